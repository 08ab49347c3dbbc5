"""Result files of any shape never break the reader: the producers' files are written by a tool
(arc-skill-eval) or an LLM agent (skill-creator), and a run can be caught half-way. Whatever JSON
sits in grading.json, timing.json, benchmark.json or eval_metadata.json, the lookup, the lens line,
the verdicts and the hover text come back without an exception."""

from __future__ import annotations

import json
from pathlib import Path

import results_trees as trees
from hypothesis import given, settings
from hypothesis import strategies as st

from evalfix_ls.results.index import ResultsIndex
from evalfix_ls.results.matching import canonical
from evalfix_ls.results.skill_creator import CaseKey
from evalfix_ls.services.run_results import (
    AssertionSpan,
    Suite,
    SuiteCase,
    hint_tooltip,
    hover_markdown,
    lens_title,
    notes,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Values at the keys the readers look at, so the shapes they meet are the odd ones.
grading_like = st.fixed_dictionaries(
    {},
    optional={
        "case_id": st.sampled_from(["a", 1, None]) | json_values,
        "assertion_results": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "text": json_values,
                    "passed": json_values,
                    "evidence": json_values,
                    "assertion": json_values,
                },
            )
            | json_values,
            max_size=4,
        )
        | json_values,
        "expectations": json_values,
        "timing": json_values,
    },
)
timing_like = st.fixed_dictionaries(
    {},
    optional={
        k: json_values
        for k in ("duration_ms", "total_tokens", "estimated_cost_usd", "model", "total_duration_seconds")
    },
)
benchmark_like = st.fixed_dictionaries(
    {}, optional={"cases": json_values, "errors": json_values, "generated_at": json_values}
)


@settings(max_examples=60, deadline=None)
@given(
    grading=grading_like | json_values,
    timing=timing_like | json_values,
    benchmark=benchmark_like | json_values,
    metadata=json_values,
    raw=st.binary(max_size=16),
)
def test_any_result_file_content_is_read_without_an_exception(
    grading: object, timing: object, benchmark: object, metadata: object, raw: bytes
) -> None:
    import tempfile

    root = Path(tempfile.mkdtemp()) / "repo"
    (root / ".git").mkdir(parents=True)
    skill = root / "skills" / "g"
    run = skill / "evals-runs" / "2026-05-02T00-00-00-000Z" / "eval-a"
    trees.dump(run / "with_skill" / "grading.json", grading)
    trees.dump(run / "with_skill" / "timing.json", timing)
    (run / "without_skill").mkdir(parents=True)
    (run / "without_skill" / "grading.json").write_bytes(raw)
    trees.dump(run.parent / "benchmark.json", benchmark)
    iteration = skill.parent / "g-workspace" / "iteration-1" / "eval-0"
    trees.dump(iteration / "eval_metadata.json", metadata)
    trees.dump(iteration / "with_skill" / "grading.json", grading)
    trees.dump(iteration / "with_skill" / "timing.json", timing)
    spans = (AssertionSpan(0, 1, "x", canonical("x")), AssertionSpan(2, 3, {"t": 1}, canonical({"t": 1})))
    case = SuiteCase(0, 0, 10, CaseKey("a", "p", 0), spans)
    for key in (CaseKey("a", "p", 0), CaseKey("0", None, 0), CaseKey("1", "p", 1)):
        (found,) = ResultsIndex(root).lookup(skill, "g", [key])
        lens_title(case, found, now=0)
        suite = Suite(skill, "g", (case,))
        for note in notes(suite, [found]):
            hover_markdown(note)
            hint_tooltip(note)
    json.dumps(grading)  # (the inputs were JSON: nothing above depended on Python-only values)
