"""The workflow index keeps nothing of a file without a case array (issue 33): every evals.json
suite below ``skills/x/evals/`` is read by the reference's walk, and below 256 KB its entry kept a
``NormalizedFile`` holding the whole parsed tree for the session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalfix_ls.contracts.workflow.index import index_file


def written(root: Path, rel: str, value: object) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return rel


@pytest.mark.parametrize(
    "value",
    [
        {"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]},
        {"cases": {"not": "an array"}, "examples": 3},
    ],
)
def test_a_small_file_without_a_case_array_keeps_no_tree(tmp_path: Path, value: object) -> None:
    rel = written(tmp_path, "skills/demo/evals/evals.json", value)
    entry = index_file(tmp_path, rel)
    assert entry.normalized is None and entry.keys == () and entry.parsed


@pytest.mark.parametrize("member", ["cases", "examples"])
def test_a_file_with_a_case_array_is_still_normalized(tmp_path: Path, member: str) -> None:
    rel = written(tmp_path, "skills/demo/evals/cases.json", {member: [{"id": "x"}]})
    entry = index_file(tmp_path, rel)
    assert entry.normalized is not None and [key for key, _ in entry.keys] == ["demo:x"]


def test_a_top_level_that_is_not_an_object_is_still_normalized(tmp_path: Path) -> None:
    """``null`` makes the reference throw: the index says so (``unreadable``), as before."""
    entry = index_file(tmp_path, written(tmp_path, "skills/demo/evals/null.json", None))
    assert entry.normalized is not None and entry.normalized.unreadable is not None


def test_a_fixture_on_disk_keeps_its_case_summaries_and_is_normalized_again_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: the trees of 2,000 fixtures with cases were ~20 MB of a monorepo's server. The
    index keeps each case's id, anchor and tags; the normalized file of a file on disk is read
    again when asked (readiness), an editor buffer's is kept."""
    from evalfix_ls.contracts.workflow import index as workflow_index
    from evalfix_ls.contracts.workflow.index import WorkflowIndex
    from evalfix_ls.workspace.view import FileSystemView

    cases = [
        {"id": "a", "input": "x", "coverage_tags": ["trigger", "trigger", "edge"]},
        {"name": "B c", "input": "y"},
    ]
    rel = written(tmp_path, "skills/demo/evals/cases.json", {"skill": "demo", "cases": cases})
    parses: list[int] = []
    real_parse = workflow_index.parse
    monkeypatch.setattr(workflow_index, "parse", lambda text: parses.append(1) or real_parse(text))
    index = WorkflowIndex(tmp_path, FileSystemView())
    index.load_from_disk()
    assert len(parses) == 1
    normalized = index.normalized(rel)
    assert normalized is not None and len(parses) == 2  # not kept: read and normalized again
    assert index.normalized(rel) is normalized and len(parses) == 2  # the last few are kept
    expected = [(c.id, c.id_anchor.start, c.id_anchor.end, tuple(c.tag_values)) for c in normalized.cases]
    summaries = [(s.id, s.id_start, s.id_end, s.tags) for s in index.case_summaries(rel)]
    assert summaries == expected and summaries[0][3] == ("trigger", "edge")

    buffer = json.dumps({"skill": "demo", "cases": cases[:1]})
    index.update(rel, buffer)
    assert len(parses) == 3
    assert len(index.normalized(rel).cases) == 1 and len(parses) == 3  # a buffer's is kept


def test_only_the_last_few_files_normalized_again_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalfix_ls.contracts.workflow import index as workflow_index
    from evalfix_ls.contracts.workflow.index import WorkflowIndex
    from evalfix_ls.workspace.view import FileSystemView

    fixture = {"skill": "demo", "cases": [{"id": "a", "input": "x"}]}
    first, second = (written(tmp_path, f"skills/demo/evals/{name}.json", fixture) for name in ("a", "b"))
    index = WorkflowIndex(tmp_path, FileSystemView())
    index.load_from_disk()
    monkeypatch.setattr(workflow_index, "RENORMALIZED_KEPT", 1)
    kept = index.normalized(first)
    assert index.normalized(first) is kept
    index.normalized(second)  # pushes the first out
    assert index.normalized(first) is not kept
