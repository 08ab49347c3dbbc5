"""Helpers for the workflow fixture tests: a tiny repository on disk and one-call analysis."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from fixture_paths import make_walking

from evalfix_ls.analysis import Analysis, analyze
from evalfix_ls.contracts.detection import CANONICAL_SCHEMA
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.findings import Severity
from evalfix_ls.workspace.view import FileSystemView

FIXTURE = "skills/demo/evals/cases.json"
EXISTING = (
    "skills/demo/SKILL.md",
    "skills/demo/references/guide.md",
    "skills/other/SKILL.md",
    "docs/plans/plan.md",
    "docs/validation/run.md",
    "docs/notes.md",
    ".claude/skills/demo/SKILL.md",
    "C:/x.md",
)

BASE: dict[str, Any] = {
    "schema_version": CANONICAL_SCHEMA,
    "skill": "demo",
    "source_refs": ["skills/demo/SKILL.md"],
    "source_ref_authority": "source",
    "cases": [
        {
            "id": "plan-request",
            "input": "Plan the work.",
            "coverage_tags": ["trigger"],
            "expected_outcome": "Uses the planning workflow.",
        }
    ],
}


def base(**top: Any) -> dict[str, Any]:
    """A clean canonical file; keyword arguments replace top-level members (None deletes)."""
    payload = copy.deepcopy(BASE)
    for name, value in top.items():
        if value is None:
            payload.pop(name, None)
        else:
            payload[name] = value
    return payload


def with_case(case: dict[str, Any] | Any, **top: Any) -> dict[str, Any]:
    """``base`` with one case replaced by ``case`` (merged onto the clean case when a dict)."""
    payload = base(**top)
    if isinstance(case, dict):
        merged = dict(BASE["cases"][0])
        for name, value in case.items():
            if value is _DELETE:
                merged.pop(name, None)
            else:
                merged[name] = value
        payload["cases"] = [merged]
    else:
        payload["cases"] = [case]
    return payload


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


_DELETE = _Delete()
DELETE: Any = _DELETE


def make_repo(
    root: Path,
    files: dict[str, Any] | None = None,
    *,
    existing: tuple[str, ...] = EXISTING,
    walking: bool = True,
) -> Path:
    """Create ``root`` with ``.git``, the ``existing`` files (empty) and ``files`` (JSON values are
    dumped, strings written as they are); ``walking``: with spec-first's normalizer (legacy shapes
    are workflow fixtures)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    if walking:
        make_walking(root)
    for rel in existing:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    for rel, content in (files or {}).items():
        write(root, rel, content)
    return root


def write(root: Path, rel: str, content: Any) -> Path:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    text = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
    target.write_text(text, encoding="utf-8")
    return target


def write_and_analyze(root: Path, content: Any, rel: str = FIXTURE, *, index: bool = True) -> Analysis:
    """Write ``content`` at ``rel`` and analyse it as ``--check`` does (with a workspace index)."""
    path = write(root, rel, content)
    fs = FileSystemView()
    text = path.read_text(encoding="utf-8")
    workspace = WorkflowIndex(root, fs) if index else None
    return analyze(text, path=path, repo_root=root, fs=fs, workspace=workspace)


def errors(analysis: Analysis) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.pointer, f.case) for f in analysis.findings if f.severity == Severity.ERROR]


def codes(analysis: Analysis, severity: Severity | None = None) -> list[str]:
    return [f.code for f in analysis.findings if severity is None or f.severity == severity]


def non_errors(analysis: Analysis) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.pointer, f.case) for f in analysis.findings if f.severity != Severity.ERROR]
