"""Conformance over ../shared/corpus/arc-runs/: trees written by arc-skill-eval's own code. What its
README says each case shows, from the run the spec's rule picks: ``default-world`` from the one-case
run of 2026-12-03 (3/6), the others from the compare run of 2026-12-02; ``no-assertions`` has no
graded assertion; nothing is stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalfix_ls.js.values import js_id_string
from evalfix_ls.parser import parse
from evalfix_ls.results.index import ResultsIndex
from evalfix_ls.results.matching import FAILED, PASSED, match
from evalfix_ls.results.skill_creator import CaseKey

pytestmark = pytest.mark.corpus

EXPECTED = {
    "default-world": ("2026-12-03T08-00-00-000Z", [PASSED, FAILED, PASSED, FAILED, PASSED, FAILED]),
    "2": ("2026-12-02T11-30-00-000Z", [PASSED, PASSED, PASSED]),
    "東京 greeting": ("2026-12-02T11-30-00-000Z", [PASSED, FAILED]),
    "no-assertions": ("2026-12-02T11-30-00-000Z", []),
}


def test_every_case_shows_what_the_readme_says(corpus_dir: Path) -> None:
    repo = corpus_dir / "arc-runs" / "repo"
    skill = repo / "skills" / "greeter"
    suite_text = (skill / "evals" / "evals.json").read_text(encoding="utf-8")
    suite = json.loads(suite_text)
    root = parse(suite_text).root
    assert root is not None
    ids = [js_id_string(case.get("id")) for case in root.get("evals").items]  # type: ignore[union-attr]
    keys = [
        CaseKey(case_id or "", case.get("prompt"), n)
        for n, (case_id, case) in enumerate(zip(ids, suite["evals"], strict=True))
    ]
    index = ResultsIndex(repo)
    found = index.lookup(skill, "greeter", keys)
    for key, lookup, case in zip(keys, found, suite["evals"], strict=True):
        run, states = EXPECTED[key.case_id]
        assert lookup.result is not None, key
        assert lookup.result.run.label == run, key
        assert lookup.newest is not None and lookup.newest.label == "2026-12-03T08-00-00-000Z"
        assert lookup.from_older_run == (key.case_id != "default-world")
        verdicts = match(lookup.result.primary.rows, case.get("assertions", []))
        assert [v.state for v in verdicts] == states, key
    compare = found[2].result
    assert compare is not None and compare.baseline is not None and compare.primary.name == "with_skill"
    assert found[3].result is not None and found[3].result.primary.pass_rate is None
    # the four layouts are all runs: plain, iteration bucket, compare, one-case
    labels = [run.label for run in index.skill(skill).arc_runs()]
    assert labels == [
        "2026-12-03T08-00-00-000Z",
        "2026-12-02T11-30-00-000Z",
        "iteration-1/2026-12-01T10-00-00-000Z",
        "2026-11-30T09-15-00-000Z",
    ]
