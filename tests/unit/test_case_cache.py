"""Reusing the findings of unchanged cases gives exactly the findings of a fresh analysis."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_recovered_properties import CASES as RECOVERED_CASES
from test_recovered_properties import laid_out, new_cases

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.case_cache import CaseCache
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.parser.incremental import reparse
from evalfix_ls.workspace.view import FileSystemView

CASES = [
    {"id": "a", "prompt": "请 😀", "assertions": ["x", {"type": "File-Exists"}]},
    {"id": 1, "prompt": ""},
    {"id": 1, "prompt": "p", "setup": {"kind": "seeded", "sources": ["files/a"]}},
    {"id": "b", "prompt": "p", "files": ["files/missing"]},
    {"id": "a", "prompt": "q", "metadata": {"difficulty": "Easy"}},
    {"id": "c", "prompt": "r", "assertions": [{"type": "regex-match", "pattern": "(", "flags": "x"}]},
]


# A suite with findings in every case (the recovered-parts property test's), typed into.
TYPED_INTO = [*RECOVERED_CASES, {"id": "five", "prompt": "p", "description": 5, "x": 1}]


def suite(order: list[int]) -> str:
    return json.dumps({"skill_name": "s", "evals": [CASES[i] for i in order]}, indent=1, ensure_ascii=False)


def rows(findings: list) -> list[tuple]:
    return [(f.code, f.severity, f.message, f.pointer, f.start, f.end, f.case, f.related) for f in findings]


def setup_skill(tmp_path: Path) -> Path:
    (tmp_path / "skills/s/evals/files/a").mkdir(parents=True)
    (tmp_path / "skills/s/SKILL.md").write_text("---\nname: s\n---\n")
    return tmp_path / "skills/s/evals/evals.json"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(CASES) - 1), min_size=1, max_size=8), st.data())
def test_cached_equals_fresh_across_edits(tmp_path_factory, order: list[int], data: st.DataObject) -> None:  # noqa: ANN001
    path = setup_skill(tmp_path_factory.mktemp("repo"))
    fs = FileSystemView()
    cache = CaseCache()
    text = suite(order)
    previous = analyze(text, path=path, repo_root=path.parents[3], fs=fs, case_cache=cache)
    for _ in range(4):
        at = data.draw(st.integers(min_value=0, max_value=len(text)))
        inserted = data.draw(st.sampled_from(["x", " ", "1", "😀", '"', ""]))
        cut = data.draw(st.integers(min_value=0, max_value=2))
        new_text = text[:at] + inserted + text[at + cut :]
        tree = previous.tree and reparse(previous.tree, new_text, at, min(at + cut, len(text)))
        cached = analyze(new_text, path=path, repo_root=path.parents[3], fs=fs, case_cache=cache, tree=tree)
        fresh = analyze(new_text, path=path, repo_root=path.parents[3], fs=FileSystemView())
        assert rows(cached.findings) == rows(fresh.findings)
        text, previous = new_text, cached


def test_unchanged_cases_hit_the_cache_and_fs_changes_miss(tmp_path: Path) -> None:
    path = setup_skill(tmp_path)
    fs = FileSystemView()
    cache = CaseCache()
    text = suite([0, 1, 2, 3, 4, 5])
    analyze(text, path=path, repo_root=tmp_path, fs=fs, case_cache=cache)
    assert cache.hits == 0 and cache.misses == 6
    edited = text.replace('"r"', '"rr"')
    analyze(edited, path=path, repo_root=tmp_path, fs=fs, case_cache=cache)
    assert cache.hits == 5 and cache.misses == 7  # only the edited case is checked again
    (path.parent / "files/missing").mkdir()
    fs.invalidate(path.parent / "files/missing")
    after = analyze(edited, path=path, repo_root=tmp_path, fs=fs, case_cache=cache)
    assert cache.misses == 13  # a file-system change re-checks every case
    assert "path-not-found" not in [f.code for f in after.findings]


def test_revalidate_keeps_the_generation_when_nothing_changed(tmp_path: Path) -> None:
    fs = FileSystemView()
    present = tmp_path / "present"
    present.mkdir()
    assert fs.is_dir(present) and not fs.exists(tmp_path / "later")
    generation = fs.generation
    assert fs.revalidate() is False and fs.generation == generation
    (tmp_path / "later").write_text("x")
    assert fs.revalidate() is True and fs.generation != generation
    assert fs.is_file(tmp_path / "later")


def cached_per_case(findings: list) -> list:
    """The findings the case cache holds: not the cross-case ones (duplicate ids), which the
    suite's pass makes anew every time."""
    return [f for f in findings if "duplicate" not in f.code]


def test_cases_the_edit_did_not_move_are_not_rebuilt(tmp_path: Path) -> None:
    """Work counted: a keystroke in the last case rebuilds no cached finding of the cases before
    it (they get the very objects of the previous analysis); one in the first case rebuilds the
    findings of every later case once, at their new offsets."""
    path = setup_skill(tmp_path)
    fs = FileSystemView()
    cache = CaseCache()
    text = suite([0, 1, 2, 3, 4, 5])
    first = analyze(text, path=path, repo_root=tmp_path, fs=fs, case_cache=cache)
    edited = text.replace('"r"', '"rr"')  # the last case
    after = analyze(edited, path=path, repo_root=tmp_path, fs=fs, case_cache=cache)
    assert cache.hits == 5 and cache.shifted == 0
    before_last = [f for f in cached_per_case(after.findings) if f.case is not None and f.case < 5]
    assert before_last and all(any(f is g for g in first.findings) for f in before_last)
    moved = edited.replace('"请 😀"', '"请请 😀"', 1)  # the first case, longer
    assert moved != edited
    again = analyze(moved, path=path, repo_root=tmp_path, fs=fs, case_cache=cache)
    later = [f for f in cached_per_case(again.findings) if f.case is not None and f.case > 0]
    assert cache.shifted == len(later)
    fresh = analyze(moved, path=path, repo_root=tmp_path, fs=FileSystemView())
    assert rows(again.findings) == rows(fresh.findings)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(new_cases, st.booleans(), st.integers(0, len(TYPED_INTO) - 1))
def test_typing_a_case_with_the_cache_finds_what_a_fresh_analysis_does(
    case: dict, pretty: bool, boundary: int
) -> None:
    """A random case typed after another, through every broken state, in the editor's mode
    (``recover``) with the document's case cache: the cases the cache answers stay blocks, and the
    findings built from them are, keystroke after keystroke, a fresh analysis's (no cache)."""
    text = json.dumps({"skill_name": "demo", "evals": TYPED_INTO}, indent=2, ensure_ascii=False)
    at = text.index("\n    }", text.index(json.dumps(TYPED_INTO[boundary]["id"], ensure_ascii=False))) + 6
    typed = "\n    " + laid_out(case, pretty) + ("," if text[at] == "," else "")
    at += text[at] == ","
    cache = CaseCache()
    previous = analyze(text, kind=EVALS, recover=True, case_cache=cache)
    for count in range(1, len(typed) + 1):
        new_text = text[:at] + typed[:count] + text[at:]
        tree = previous.tree and reparse(previous.tree, new_text, at + count - 1, at + count - 1)
        cached = analyze(new_text, kind=EVALS, recover=True, case_cache=cache, tree=tree)
        fresh = analyze(new_text, kind=EVALS, recover=True)
        assert rows(cached.findings) == rows(fresh.findings), typed[:count]
        previous = cached
