"""Helpers for the evals.json contract tests: build suites from JSON snippets, run the pipeline."""

from __future__ import annotations

from pathlib import Path

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.findings import Finding
from evalfix_ls.workspace.view import FileSystemView


def suite(*cases: str, top: str = '"skill_name": "demo"') -> str:
    """A suite whose ``evals`` holds the given case texts."""
    return "{" + top + ', "evals": [' + ", ".join(cases) + "]}"


def case(extra: str = "", *, id_: str = '"c"', prompt: str = '"p"') -> str:
    """A valid case (``id`` and ``prompt``) plus the members in ``extra``."""
    members = [f'"id": {id_}', f'"prompt": {prompt}']
    if extra:
        members.append(extra)
    return "{" + ", ".join(members) + "}"


def one(extra: str = "") -> str:
    """A suite of one case carrying ``extra``."""
    return suite(case(extra))


def assertions(*items: str) -> str:
    """A suite of one case whose ``assertions`` are ``items``."""
    return one('"assertions": [' + ", ".join(items) + "]")


def findings_of(
    text: str,
    *,
    path: Path | None = None,
    repo_root: Path | None = None,
    fs: FileSystemView | None = None,
) -> list[Finding]:
    return analyze(text, path=path, repo_root=repo_root, fs=fs or FileSystemView(), kind=EVALS).findings


def summary(findings: list[Finding]) -> list[tuple[str, str, int | None, str]]:
    """(code, pointer, case, severity word) of each finding, in the pipeline's order."""
    return [(f.code, f.pointer, f.case, f.severity.word) for f in findings]


def codes(text: str) -> list[str]:
    return [f.code for f in findings_of(text)]


def errors(text: str) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.pointer, f.case) for f in findings_of(text) if f.severity.word == "error"]
