"""Paths that leave the repository (security): a crafted repository must not make the rules read a
file outside it, nor tell an existing outside path from a missing one. Each such path gets a finding
saying it leaves the repository, the same whether the target exists or not, and the file system is
never asked about it."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import patch

import pytest
from evals_support import findings_of, one
from workflow_support import make_repo, with_case, write_and_analyze

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.workspace.files import read_file
from evalfix_ls.workspace.view import FileSystemView

SECRET = "SECRET-0xfeed"
SUITE = "skills/demo/evals/evals.json"


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """``repo/`` (a skill ``demo``) and ``outside/`` beside it holding secrets."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / ".git").mkdir(parents=True)
    (root / "skills/demo/evals/files").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n")
    (root / "skills/demo/evals/files/a.txt").write_text("a")
    (root / "skills/demo/evals/files/link").symlink_to(outside, target_is_directory=True)
    outside.mkdir()
    (outside / "x").write_text(SECRET)
    (outside / "SKILL.md").write_text(f"---\nname: {SECRET}\n---\n")
    return root, outside


def evals_findings(
    root: Path, text: str, fs: FileSystemView | None = None
) -> list[tuple[str, str, str, str]]:
    path = root / SUITE
    path.write_text(text, encoding="utf-8")
    found = findings_of(text, path=path, repo_root=root, fs=fs or FileSystemView())
    return [(f.code, f.pointer, f.severity.word, f.message) for f in found]


def paths_suite(path: str) -> str:
    quoted = json.dumps(path)
    return one(
        f'"setup": {{"kind": "seeded", "sources": [{quoted}, {{"from": {quoted}, "to": "x"}}]}}, '
        f'"files": [{quoted}]'
    )


@pytest.mark.parametrize(
    ("existing", "missing"),
    [
        ("../../../../outside/x", "../../../../outside/nope"),  # climbs out with ".."
        ("files/link/x", "files/link/nope"),  # through a symbolic link inside evals/
    ],
)
def test_evals_paths_leaving_the_repository(world: tuple[Path, Path], existing: str, missing: str) -> None:
    root, outside = world
    # every path the real view stats (its one way to the file system), recorded
    with patch.object(FileSystemView, "_stat", wraps=FileSystemView._stat) as stat:
        found = evals_findings(root, paths_suite(existing), FileSystemView())
    statted = [str(call.args[0]) for call in stat.call_args_list]
    assert statted  # the view was asked about the paths inside the repository
    leaving = [(code, pointer) for code, pointer, _, _ in found if code == "path-outside-repository"]
    assert leaving == [
        ("path-outside-repository", "/evals/0/setup/sources/0"),
        ("path-outside-repository", "/evals/0/setup/sources/1/from"),
        ("path-outside-repository", "/evals/0/files/0"),
    ]
    assert "path-not-found" not in {code for code, *_ in found}
    assert not any(path.startswith(str(outside)) for path in statted), statted
    # A missing target gives the same findings, only the path in the messages differs.
    other = evals_findings(root, paths_suite(missing))
    assert [(c, p, s, m.replace(missing, existing)) for c, p, s, m in other] == found


def test_paths_inside_the_repository_are_still_checked(world: tuple[Path, Path]) -> None:
    root, _ = world
    found = evals_findings(root, paths_suite("files/gone"))
    assert [code for code, *_ in found if code in ("path-not-found", "path-outside-repository")] == [
        "path-not-found"
    ] * 3
    assert not [c for c, *_ in evals_findings(root, paths_suite("files/a.txt")) if c == "path-not-found"]


def test_skill_md_linked_outside_is_not_read(world: tuple[Path, Path]) -> None:
    root, outside = world
    skill_md = root / "skills/demo/SKILL.md"
    skill_md.unlink()
    skill_md.symlink_to(outside / "SKILL.md")
    found = evals_findings(root, '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]}')
    assert ("path-outside-repository", "", "warning") in [(c, p, s) for c, p, s, _ in found]
    assert not any(SECRET in message for *_, message in found)
    assert "not-discovered" not in {code for code, *_ in found}  # whether it exists is not decided


def test_a_suite_file_that_leaves_the_repository_is_not_read(world: tuple[Path, Path]) -> None:
    root, outside = world
    (outside / "evals.json").write_text(json.dumps({"skill_name": SECRET, "evals": [{"id": SECRET}]}))
    path = root / SUITE
    path.symlink_to(outside / "evals.json")
    file_text = read_file(path, root)
    analysis = analyze(file_text.text, path=path, repo_root=root, kind=EVALS, file_text=file_text)
    assert [(f.code, f.severity.word) for f in analysis.findings] == [("file-outside-repository", "error")]
    assert SECRET not in analysis.findings[0].message


@pytest.fixture
def wf_repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/x.md").write_text(SECRET)
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs/link").symlink_to(tmp_path / "outside", target_is_directory=True)
    return root


@pytest.mark.parametrize(
    ("existing", "missing"),
    [("../outside/x.md", "../outside/nope.md"), ("docs/link/x.md", "docs/link/nope.md")],
)
def test_source_refs_leaving_the_repository(wf_repo: Path, existing: str, missing: str) -> None:
    def summary(ref: str) -> list[tuple[str, str, str]]:
        analysis = write_and_analyze(wf_repo, with_case({"source_refs": [ref]}))
        return [(f.code, f.severity.word, f.message.replace(ref, "REF")) for f in analysis.findings]

    found = summary(existing)
    assert [(code, severity) for code, severity, _ in found] == [("path_outside_repository", "error")]
    assert summary(missing) == found  # never tested: an existing target looks like a missing one


@pytest.mark.parametrize("authority", ["historical", "advisory"])
@pytest.mark.parametrize(
    ("existing", "missing"), [("../outside/x.md", "../nope.md"), ("docs/link/x.md", "docs/link/no")]
)
def test_refs_leaving_the_repository_under_other_authorities_are_warnings(
    wf_repo: Path, authority: str, existing: str, missing: str
) -> None:
    """workflow-fixtures.md §6: under historical/advisory the reference tests no path, so it
    accepts these; only the contract (repository-relative evidence) rejects them: the warning
    ``source_ref_outside_repo`` (specs/README.md's severity policy), the same whether the target
    exists or not (never tested)."""

    def summary(ref: str) -> list[tuple[str, str, str, str]]:
        analysis = write_and_analyze(
            wf_repo, with_case({"source_refs": [ref], "source_ref_authority": authority})
        )
        return [
            (f.code, f.severity.word, f.pointer, f.message.replace(ref, "REF"))
            for f in analysis.findings
            if f.code.startswith(("path", "source"))
        ]

    found = summary(existing)
    assert [row[:3] for row in found] == [("source_ref_outside_repo", "warning", "/cases/0/source_refs/0")]
    assert summary(missing) == found
    assert SECRET not in found[0][3]


def test_a_ref_leaving_an_unsaved_buffer_is_an_error_too() -> None:
    text = json.dumps(with_case({"source_refs": ["../x.md"]}))
    analysis = analyze(text)  # no path, no repository root: only '..' can be seen
    assert "path_outside_repository" in {f.code for f in analysis.findings if f.severity.word == "error"}
