"""Typing a new case one character at a time never changes what the editor shows for the others.

A random case (random members and values, on one line or pretty-printed) is typed at a random case
boundary of a suite whose other cases have findings. After every keystroke the findings outside the
typed text must be exactly the finished text's findings there, at their shifted positions: none
lost (the cases the half-typed one would swallow as JSON), none invented (a guess about it).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS

SYNTAX = {"json-invalid", "json-syntax"}
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
