"""A burst of queued fixture texts (a ``git checkout`` touching thousands of fixtures) is applied
in slices of ``SYNC_SLICE`` (issue 30, point 4): the analysis of a keystroke waits for one slice
under the repository lock, not for every text; what a slice changes for other files is reported
as affected by the sync that applied it."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import make_walking

from evalfix_ls.lsp.session.workspace_index import SYNC_SLICE, RepoState

FILES = 2 * SYNC_SLICE + 10


def fixture(case_id: str) -> str:
    case = {"id": case_id, "input": "hi", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
    fixture = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md"],
        "coverage_tags": ["routing"],
        "cases": [case],
    }
    return json.dumps(fixture)


def repository(root: Path) -> RepoState:
    (root / ".git").mkdir(parents=True)
    make_walking(root)
    evals = root / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    for i in range(FILES):
        (evals / f"f{i:03}.json").write_text(fixture(f"case-{i}"), encoding="utf-8")
    (evals / "z.json").write_text(fixture("last"), encoding="utf-8")
    state = RepoState(root, watching=True)
    assert state.ensure_index() is not None
    return state


def test_a_burst_of_texts_is_applied_one_slice_per_sync(tmp_path: Path) -> None:
    state = repository(tmp_path)
    evals = tmp_path / "skills" / "demo" / "evals"
    # Every file rewritten on disk (a checkout); the first now holds z.json's id.
    (evals / "f000.json").write_text(fixture("last"), encoding="utf-8")
    for i in range(FILES):
        state.queue_text(f"skills/demo/evals/f{i:03}.json", None)

    affected: list[set[str]] = []
    while state.texts_pending():
        with state.lock:
            affected.append(state.sync())
    assert len(affected) == -(-FILES // SYNC_SLICE), "one slice of the queued texts per sync"
    # The slice that read f000.json again reported z.json, whose id is now a duplicate.
    assert "skills/demo/evals/z.json" in affected[0]
    index = state.workflow_index()
    assert index is not None
    assert index.earlier_site("skills/demo/evals/z.json", "demo:last") is not None


def test_file_events_reach_the_repositories_they_touch(tmp_path: Path) -> None:
    """An event inside a repository, on its root, or on a folder holding it reaches it; one in
    a sibling whose name merely starts with the root's does not (compared as strings)."""
    from evalfix_ls.lsp.session.workspace_index import WorkspaceIndex

    index = WorkspaceIndex()
    repo = index.repo(tmp_path / "repo")
    for path in (tmp_path / "repo", tmp_path / "repo" / "skills" / "a.json", tmp_path):
        assert list(index._repos_containing(path)) == [repo], path
    assert list(index._repos_containing(tmp_path / "repo2" / "skills" / "a.json")) == []
