"""Typing a new case one character at a time never changes what the editor shows for the others.

A random case (random members and values, on one line or pretty-printed) is typed at a random case
boundary of a suite whose other cases have findings. After every keystroke the findings outside the
typed text must be exactly the finished text's findings there, at their shifted positions: none
lost (the cases the half-typed one would swallow as JSON), none invented (a guess about it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import CANONICAL_SCHEMA, EVALS

SYNTAX = {"json-invalid", "json-syntax", "invalid_json", "json_syntax"}
CASES = [
    {"id": "Case One", "prompt": "写一个文件 😀", "extra": 1},  # id-style, key-ignored
    {"id": "two", "prompt": "second", "assertions": ["the reply is polite", {"type": "json-valid"}]},
    {"id": "three", "prompt": "", "files": "x"},  # prompt-required, files-not-array
    {"id": "four", "prompt": "p", "setup": {"kind": "nope"}},
]

leaves = st.none() | st.booleans() | st.integers(-9, 99) | st.text("ab 😀{}[],:\"'", max_size=5)
values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "path", "kind", "x"]), children, max_size=3)
    ),
    max_leaves=8,
)
new_cases = st.dictionaries(
    st.sampled_from(["id", "prompt", "assertions", "setup", "files", "metadata"]), values
)


def laid_out(case: dict, pretty: bool) -> str:
    if not pretty:
        return json.dumps(case, ensure_ascii=False)
    return json.dumps(case, indent=2, ensure_ascii=False).replace("\n", "\n    ")


def semantic(text: str, recover: bool) -> list:
    result = analyze(text, kind=EVALS, recover=recover)
    return [(f.code, f.start, f.end) for f in result.findings if f.code not in SYNTAX]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(new_cases, st.booleans(), st.integers(0, len(CASES)))
def test_typing_a_case_keeps_the_other_cases_findings(case: dict, pretty: bool, boundary: int) -> None:
    text = json.dumps({"skill_name": "demo", "evals": CASES}, indent=2, ensure_ascii=False)
    if boundary == 0:
        at = text.index("[", text.index('"evals"')) + 1
    else:
        at = text.index("\n    }", text.index(json.dumps(CASES[boundary - 1]["id"], ensure_ascii=False))) + 6
        at += text[at] == ","
    last = boundary == len(CASES)
    typed = ("," if last else "") + "\n    " + laid_out(case, pretty) + ("" if last else ",")
    finished = text[:at] + typed + text[at:]
    expected = [f for f in semantic(finished, False) if not at <= f[1] < at + len(typed)]
    for count in range(1, len(typed) + 1):
        shown = semantic(text[:at] + typed[:count] + text[at:], True)
        shift = len(typed) - count
        outside = [
            (c, s + shift if s >= at + count else s, e + shift if s >= at + count else e) for c, s, e in shown
        ]
        outside = [f for f in outside if not at <= f[1] < at + len(typed)]
        assert outside == expected, typed[:count]


WORKFLOW_CASES = [
    {"id": "done", "input": "Do it 😀.", "coverage_tags": ["trigger"], "expected_outcome": "ok"},
    {"id": "no-outcome", "input": "规划 it.", "coverage_tags": ["trigger"]},  # missing_expected_outcome
    {"id": "Bad Id", "input": "x", "coverage_tags": ["boundary"], "expected_outcome": "y"},
]
workflow_cases = st.dictionaries(
    st.sampled_from(["id", "input", "coverage_tags", "expected_outcome", "source_refs", "boundary_note"]),
    values,
)


@pytest.fixture(scope="module")
def workflow_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    (root / ".git").mkdir()
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text(
        "---\nname: demo\ndescription: d\n---\n# Demo\n", encoding="utf-8"
    )
    return root / "skills/demo/evals/cases.json"


def case_spans(text: str) -> list[tuple[int, int]]:
    starts = [text.rindex("{", 0, text.index(f'"id": "{case["id"]}"')) for case in WORKFLOW_CASES]
    return [(start, text.index("\n    }", start) + 6) for start in starts]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workflow_cases, st.booleans(), st.integers(0, len(WORKFLOW_CASES)), st.booleans())
def test_typing_a_workflow_case_keeps_the_other_cases_findings(
    workflow_path: Path, case: dict, pretty: bool, boundary: int, defaults_last: bool
) -> None:
    # The findings inside the other cases (their own and what they inherit from the top-level
    # defaults, written before or after "cases") stay exactly, whatever has been typed so far.
    defaults = {"skill": "demo", "source_refs": ["skills/demo/SKILL.md"], "source_ref_authority": "source"}
    head = {"schema_version": CANONICAL_SCHEMA} | ({} if defaults_last else defaults)
    payload = head | {"cases": WORKFLOW_CASES} | (defaults if defaults_last else {})
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    root = workflow_path.parents[3]
    spans = case_spans(text)

    def inside_cases(typed_text: str, at: int, count: int) -> list:
        result = analyze(typed_text, path=workflow_path, repo_root=root, recover=True)
        findings = [f for f in result.findings if f.code not in SYNTAX and not at <= f.start < at + count]
        moved = [(f.code, f.start - count if f.start >= at + count else f.start) for f in findings]
        return [(code, start) for code, start in moved if any(a <= start < b for a, b in spans)]

    if boundary == 0:
        at = text.index("[", text.index('"cases"')) + 1
    else:
        at = spans[boundary - 1][1] + (text[spans[boundary - 1][1]] == ",")
    last = boundary == len(WORKFLOW_CASES)
    typed = ("," if last else "") + "\n    " + laid_out(case, pretty) + ("" if last else ",")
    expected = inside_cases(text, at, 0)
    assert ("missing_expected_outcome", spans[1][0]) in expected
    for count in range(1, len(typed) + 1):
        assert inside_cases(text[:at] + typed[:count] + text[at:], at, count) == expected, typed[:count]
