"""Every test module that reads ../shared says so with a marker (issue 32): ``corpus`` (needs it:
skipped before its fixtures where it is absent) or ``corpus_extra`` (runs everywhere, takes its
files where present). .ci/run runs the suite without ../shared, then ``-m "corpus or
corpus_extra"`` with it, so an unmarked reader would run in neither pass with the corpus."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
READS_SHARED = re.compile(r"\b(CORPUS|SHARED|JSONTESTSUITE|corpus_dir)\b")
MARKED = re.compile(r"pytest\.mark\.(corpus|corpus_extra)\b")
HELPERS = {"conftest.py", "fixture_paths.py", "test_corpus_markers.py"}


def test_every_module_that_reads_shared_is_marked() -> None:
    unmarked = [
        path.relative_to(TESTS).as_posix()
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in HELPERS
        and READS_SHARED.search(text := path.read_text(encoding="utf-8"))
        and not MARKED.search(text)
    ]
    assert unmarked == []
