"""The results services over a suite's analysis: the lens line, the verdict per assertion, and the
rule that a keystroke opens no result file (counted, not timed)."""

from __future__ import annotations

import json
from pathlib import Path

import results_trees as trees

from evalfix_ls.analysis import analyze
from evalfix_ls.results.index import ResultsIndex
from evalfix_ls.results.reading import reads_so_far
from evalfix_ls.services.document import DocumentView
from evalfix_ls.services.run_results import (
    age_text,
    cost_text,
    duration_text,
    hint_label,
    lens_title,
    lookups,
    notes,
    suite_of,
    tokens_text,
)

JUDGED = "The reply greets 東京"
FILE = {"type": "file-exists", "path": "a.txt"}


def _view(path: Path, root: Path, text: str) -> DocumentView:
    return DocumentView(text, analyze(text, path=path, repo_root=root), path=path, repo_root=root)


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "g"
    cases: list[dict[str, object]] = [
        {"id": f"case {n}", "prompt": "p", "assertions": [JUDGED, FILE]} for n in range(5)
    ]
    suite = trees.suite(skill, cases)
    rows = [(JUDGED, True, "yes"), (FILE, False, "No such file: `a.txt`")]
    trees.arc_run(skill / "evals-runs" / "2026-05-02T00-00-00-000Z", {f"case {n}": rows for n in range(5)})
    return root, suite


def test_keystrokes_open_no_result_file(tmp_path: Path) -> None:
    root, suite = _workspace(tmp_path)
    index = ResultsIndex(root)
    text = suite.read_text(encoding="utf-8")
    first = suite_of(_view(suite, root, text))
    assert first is not None
    before = reads_so_far()
    lookups(first, index.lookup)
    assert reads_so_far() - before == 10  # the first read: a grading.json and a timing.json per case
    for typed in range(1, 6):  # typing in a prompt, then in an assertion (which makes it stale)
        text = text.replace('"prompt": "p', '"prompt": "p' + "x", 1)
        if typed == 5:
            text = text.replace('"a.txt"', '"b.txt"', 1)
        suite_now = suite_of(_view(suite, root, text))
        assert suite_now is not None
        found = lookups(suite_now, index.lookup)
        pairs = zip(suite_now.cases, found, strict=True)
        titles = [lens_title(case, lookup, now=0) for case, lookup in pairs]
        labels = [hint_label(note.verdict) for note in notes(suite_now, found)]
    assert reads_so_far() == before + 10  # no keystroke opened a result file
    assert labels[:2] == ["✓", "stale"] and labels[2:4] == ["✓", "✗"]
    assert titles[0] is not None and "1 stale" in titles[0]


def test_lens_lines() -> None:
    assert [duration_text(ms) for ms in (9184, 41207, 125_000)] == ["9.2 s", "41 s", "2 min 5 s"]
    assert [tokens_text(n) for n in (912, 12_345, 2_500_000)] == ["912 tokens", "12.3k tokens", "2.5M tokens"]
    assert [cost_text(c) for c in (0.1234, 0.0042)] == ["$0.12", "$0.0042"]
    assert [age_text(s) for s in (30, 600, 7300, 200_000)] == ["just now", "10 min ago", "2 h ago", "2 d ago"]


def test_no_run_no_lens_and_a_case_never_run(tmp_path: Path) -> None:
    root, suite = _workspace(tmp_path)
    text = json.dumps({"skill_name": "g", "evals": [{"id": "new", "prompt": "p", "assertions": [JUDGED]}]})
    view = suite_of(_view(suite, root, text))
    assert view is not None
    (found,) = lookups(view, ResultsIndex(root).lookup)
    assert lens_title(view.cases[0], found, now=0) == "no result in any run"
    other = root / "skills" / "h"
    other_suite = trees.suite(other, [{"id": "x", "prompt": "p"}])
    lone = suite_of(_view(other_suite, root, other_suite.read_text(encoding="utf-8")))
    assert lone is not None
    (nothing,) = lookups(lone, ResultsIndex(root).lookup)
    assert lens_title(lone.cases[0], nothing) is None
