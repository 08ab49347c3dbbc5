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
