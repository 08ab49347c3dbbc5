"""Property tests: the fast path and the tolerant parser agree; nothing ever raises."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalfix_ls.parser import parse
from evalfix_ls.parser.tolerant import parse_tolerant
from evalfix_ls.parser.tree import iter_nodes

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=6), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.sampled_from([None, 0, 2]), st.booleans())
def test_fast_path_equals_tolerant_parser(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    fast = parse(text)
    slow = parse_tolerant(text)
    assert fast.ok and slow.ok

    def flat(result):  # noqa: ANN001, ANN202
        return [
            (n.kind, n.start, n.end, None if n.kind in ("object", "array") else n.value)
            for n in iter_nodes(result.root)
        ]

    assert flat(fast) == flat(slow)
    assert [d.occurrences for d in fast.duplicates] == [d.occurrences for d in slow.duplicates]


@settings(max_examples=400, deadline=None)
@given(json_values, st.data())
def test_mutated_documents_never_raise_and_ranges_stay_inside(value: object, data: st.DataObject) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        position = data.draw(st.integers(min_value=0, max_value=len(text)))
        action = data.draw(st.sampled_from(["delete", "insert", "replace"]))
        snippet = data.draw(
            st.sampled_from(
                ['"', ",", "{", "}", "[", "]", ":", "\n", "NaN", "/*", "\\", "😀", "\u2028", "'", "tru"]
            )
        )
        if action == "delete":
            text = text[:position] + text[position + 1 :]
        elif action == "insert":
            text = text[:position] + snippet + text[position:]
        else:
            text = text[:position] + snippet + text[position + len(snippet) :]
    result = parse(text)
    for issue in result.errors:
        assert 0 <= issue.start <= issue.end <= len(text)
    for node in iter_nodes(result.root):
        assert 0 <= node.start <= node.end <= len(text)
    try:
        json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
        valid = True
    except (ValueError, RecursionError):
        valid = False
    assert result.ok == valid


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_never_raises(text: str) -> None:
    result = parse(text)
    for issue in result.errors:
        assert 0 <= issue.start <= issue.end <= len(text)
