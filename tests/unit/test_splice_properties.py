"""The incremental re-parse through invalid states equals a full tolerant parse, over random edits.

Documents are random JSON values (pretty-printed or not, sometimes broken first); edits insert,
delete or replace snippets that open and close strings, brackets and comments. After every edit the
re-parse built from the previous version (``reparse``, or a full parse when it declines) must give
exactly the tree, the errors (in order: the first one is the ``json-invalid`` finding), the
duplicate names and the unclosed containers that ``parse`` gives for the new text.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalfix_ls.parser import parse
from evalfix_ls.parser.incremental import reparse
from evalfix_ls.parser.incremental.splice import reparse_tolerant
from evalfix_ls.parser.tree import ParseResult, iter_nodes

SNIPPETS = [
    '"',
    '"x',
    '",',
    "{",
    "}",
    "[",
    "]",
    "{}",
    "[]",
    ",",
    ":",
    "\n",
    "\n    {",
    '{"id": ',
    "// c\n",
    "//",
    "/*",
    "*/",
    "/* c */",
    "\\",
    "a",
    "1",
    "tru",
    "NaN",
    "'",
    "😀",
    "\u2028",
    " ",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.sampled_from("abcde"), children, max_size=4)
    ),
    max_leaves=25,
)


def snapshot(result: ParseResult) -> tuple:
    nodes = []
    for node in iter_nodes(result.root):
        value = None if node.kind in ("object", "array") else node.value
        nodes.append((node.kind, node.start, node.end, value))
        if node.members is not None:
            nodes.extend(("member", m.key, m.key_start, m.key_end, m.value is None) for m in node.members)
            nodes.append(("props", tuple(sorted((k, m.key_start) for k, m in node.props.items()))))
    return (
        nodes,
        list(result.errors),  # message, place, and what is missing since where
        sorted((d.key, d.occurrences) for d in result.duplicates),
        tuple(sorted(result.unclosed)),
    )


def apply_edit(text: str, data: st.DataObject) -> tuple[str, int, int]:
    start = data.draw(st.integers(0, len(text)), label="start")
    action = data.draw(st.sampled_from(["insert", "insert", "delete", "replace"]), label="action")
    end = start
    if action != "insert":
        end = min(len(text), start + data.draw(st.integers(1, 3), label="length"))
    inserted = "" if action == "delete" else data.draw(st.sampled_from(SNIPPETS), label="snippet")
    return text[:start] + inserted + text[end:], start, end


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.sampled_from([None, 2, 4]), st.data())
def test_reparse_through_invalid_states_equals_full_parse(value: object, indent: int | None, data) -> None:  # noqa: ANN001
    text = json.dumps({"skill_name": "s", "evals": [value, {"id": 1, "a": [value]}, value]}, indent=indent)
    previous = parse(text)
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        new_text, start, end = apply_edit(previous.text, data)
        full = parse(new_text)
        local = reparse(previous, new_text, start, end)
        if local is not None:
            assert snapshot(local) == snapshot(full), (previous.text, new_text, start, end)
            previous = local
        else:
            previous = full


def cases_suite(count: int) -> str:
    cases = [
        {
            "id": f"case-{i}",
            "prompt": f"请 {i} 😀",
            "assertions": ["judged", {"type": "file-exists", "path": "x"}],
        }
        for i in range(count)
    ]
    return json.dumps({"skill_name": "s", "evals": cases}, indent=2, ensure_ascii=False)


def type_into(text: str, at: int, typed: str):  # noqa: ANN201
    """Every intermediate (text, edit start) of typing ``typed`` at ``at``, one character a step."""
    for count in range(1, len(typed) + 1):
        yield text[:at] + typed[:count] + text[at:], at + count - 1


def test_typing_a_new_case_between_cases_reparses_only_that_region() -> None:
    text = cases_suite(60)
    at = text.index("},", text.index('"case-29"')) + 2  # after case 29, where Enter was pressed
    typed = '\n    {"id": "new-case", "prompt": "写 it"},'
    previous = parse(text)
    first_case = previous.root.get("evals").items[0]
    for new_text, start in type_into(text, at, typed):
        local = reparse_tolerant(previous, new_text, start, start)
        assert local is not None, new_text[at - 5 : at + len(typed) + 5]
        assert snapshot(local) == snapshot(parse(new_text))
        # the cases before the edit are the previous tree's nodes, not a new parse of them
        assert local.root.get("evals").items[0] is first_case
        previous = local
    assert previous.ok and len(previous.root.get("evals").items) == 61


def test_typing_a_new_assertion_string_keeps_other_cases_intact() -> None:
    text = cases_suite(40)
    at = text.index('"judged"', text.index('"case-20"')) + len('"judged"')
    typed = ', "the reply names the file"'
    previous = parse(text)
    for new_text, start in type_into(text, at, typed):
        local = reparse(previous, new_text, start, start)
        assert local is not None
        assert snapshot(local) == snapshot(parse(new_text))
        cases = local.root.get("evals").items
        assert len(cases) == 40 and all(case.kind == "object" for case in cases)
        previous = local
    assert previous.ok


def test_layout_closes_an_unfinished_case_before_the_next_one() -> None:
    text = cases_suite(3)
    at = text.index("    {", text.index('"case-1"') - 40) + 4  # at case-1's opening brace
    broken = text[:at] + '{"id": "new",\n    ' + text[at:]
    result = parse(broken)
    cases = result.root.get("evals").items
    # the unfinished case is an item of its own; case-1 and case-2 are not swallowed by it
    assert [case.get("id").value for case in cases if case.get("id")] == ["case-0", "new", "case-1", "case-2"]
    assert result.errors[0].message == "missing '}' to close this object"
    assert result.errors[0].start == at


@pytest.mark.parametrize(
    ("text", "opener"),
    [
        ('{"a": [1, 2], "b": [3', "[3"),  # opened after the edit: its offset moves
        ("[[1, 2], 3", "[["),  # opened before it: its offset stays
    ],
)
def test_a_container_still_open_at_the_end_keeps_its_opener_through_an_edit(text: str, opener: str) -> None:
    """The issue of a container left open at the end of the text says where it opened: an edit
    before the end moves that offset (message included) exactly when the container opened after it."""
    at = text.index("2") + 1
    edited = text[:at] + ", 9" + text[at:]
    spliced = reparse_tolerant(parse(text), edited, at, at)
    assert spliced is not None
    assert spliced.errors == parse(edited).errors
    (issue,) = [e for e in spliced.errors if e.start == len(edited)]
    assert (issue.missing, issue.opener) == (
        edited[edited.index(opener) - 1 :][:0] or "]",
        edited.index(opener),
    )
    assert issue.message.endswith(f"opened at offset {issue.opener}")


def test_a_token_right_before_the_edit_is_read_again() -> None:
    # A number or word that ends where the edit starts can grow ("12" + "3"), so the re-parse must
    # not resume right after it.
    for text, at, typed in (
        ('{"evals": [12, 3, {"a": 1}], "x": [tru, 1]}', 13, "3"),
        ('{"evals": [true, 3, {"a": 1}], "x": [tru, 1]}', 15, "x"),
        ('{"evals": [1, nul, 2], "x": [}', 17, "l"),
    ):
        new_text = text[:at] + typed + text[at:]
        local = reparse(parse(text), new_text, at, at)
        assert local is None or snapshot(local) == snapshot(parse(new_text)), new_text


def test_a_container_that_replaced_the_reparsed_one_on_the_stack_is_not_a_sync_point() -> None:
    # '[' typed at the start of a case's line closes the case and the case array by layout; the new
    # array then sits where the case array was on the stack, and its item ends must not be taken
    # for the case array's.
    text = json.dumps({"skill_name": "s", "evals": [[], {"id": 1, "a": [[]]}, []]}, indent=4)
    at = text.index('"a"') - 12  # the start of the line holding "a"
    new_text = text[:at] + "[" + text[at:]
    local = reparse(parse(text), new_text, at, at)
    assert local is None or snapshot(local) == snapshot(parse(new_text))


def test_an_edit_that_changes_the_indentation_of_the_sync_line_is_not_spliced_there() -> None:
    # Found by Hypothesis: '[' typed at column 0 of a line whose later '[' opens an array. The
    # re-parsed object closes in place, but the array opened after it on the same line now sits on
    # a line indented 0, not 8, and the layout recovery of a '{' at column 0 further down reads
    # that indentation: the full parse keeps the '{' inside the array, the old parse had closed
    # the array before it. The previous parse after the sync point is not the parse any more.
    text = json.dumps({"skill_name": "s", "evals": [[False], {"id": 1, "a": [[False]]}, [False]]}, indent=4)
    previous = parse(text)
    for at, typed in ((173, "{"), (137, "}"), (129, "[")):
        new_text = previous.text[:at] + typed + previous.text[at:]
        full = parse(new_text)
        local = reparse(previous, new_text, at, at)
        assert local is None or snapshot(local) == snapshot(full), (previous.text, new_text, at)
        previous = local or full
    assert previous.text.splitlines()[9] == "[        }        ["


def test_indentation_changed_on_the_line_of_an_array_sync_point() -> None:
    # The same through the array path: the case array re-parsed from the item before the edit
    # must not stop at an item ending on a line whose indentation the edit changed.
    # ('    ]' closes the array opened on a line indented 4; at column 0 that line's '[' is not it).
    text = '{"evals": [\n    1,\n    2, [\n{\n    ]]}'
    at = text.index("    2,")
    new_text = text[:at] + "x" + text[at:]
    local = reparse(parse(text), new_text, at, at)
    assert local is None or snapshot(local) == snapshot(parse(new_text))
    # an item typed on that line, its indentation kept, still stops at the next item
    at = text.index("2,")
    new_text = text[:at] + "3, " + text[at:]
    local = reparse(parse(text), new_text, at, at)
    assert local is not None and snapshot(local) == snapshot(parse(new_text))
