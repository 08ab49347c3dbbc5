"""Merging the findings that differ only in their case (one diagnostic listing the cases): the run
walk over a sorted list gives what merging every finding by key gives, for any list."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalfix_ls.findings import SORT_KEY, Finding, Severity
from evalfix_ls.lsp.diagnostics import convert

findings = st.builds(
    Finding,
    code=st.sampled_from(["a", "b"]),
    severity=st.sampled_from([Severity.ERROR, Severity.WARNING]),
    message=st.sampled_from(["m", "n"]),
    pointer=st.sampled_from(["", "/x"]),
    start=st.integers(min_value=0, max_value=3),
    end=st.integers(min_value=3, max_value=4),
    case=st.one_of(st.none(), st.integers(min_value=0, max_value=3)),
)


def by_key(items: list[Finding]) -> list[tuple[Finding, list[int]]]:
    """The reference: every finding merged by its key, in first-occurrence order."""
    merged: dict[tuple[object, ...], tuple[Finding, list[int]]] = {}
    for f in items:
        key = (f.code, f.severity, f.start, f.end, f.pointer, f.message)
        if key not in merged:
            merged[key] = (f, [] if f.case is None else [f.case])
        elif f.case is not None and f.case not in merged[key][1]:
            merged[key][1].append(f.case)
    return list(merged.values())


@settings(max_examples=300, deadline=None)
@given(st.lists(findings, max_size=12), st.booleans())
def test_merged_as_by_key_sorted_or_not(items: list[Finding], sort: bool) -> None:
    if sort:
        items.sort(key=SORT_KEY)
    assert convert.merge_case_repeats(items) == by_key(items)


def test_a_sorted_list_is_merged_without_a_key_per_finding(monkeypatch) -> None:  # noqa: ANN001
    """Work counted: in a sorted list only the runs of equal start and code are keyed (here one
    run of two, of 5 findings), not every finding."""
    keyed = []
    plain = convert._group_key
    monkeypatch.setattr(convert, "_group_key", lambda f: keyed.append(f) or plain(f))
    items = [
        Finding("a", Severity.ERROR, "m", "", start, start + 1, case) for start, case in enumerate(range(4))
    ]
    items.append(Finding("a", Severity.ERROR, "m", "", 3, 4, 9))
    merged = convert.merge_case_repeats(items)
    assert [cases for _, cases in merged] == [[0], [1], [2], [3, 9]]
    assert len(keyed) == 2
