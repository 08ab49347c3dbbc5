"""The tolerant positioned parser: JSON.parse parity, offsets, recovery, depth."""

from __future__ import annotations

import json

import pytest

from evalfix_ls.parser import parse
from evalfix_ls.parser import tree as tree_module
from evalfix_ls.parser.tree import (
    ARRAY,
    BOOLEAN,
    INVALID,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    Span,
    iter_nodes,
    join_pointer,
    path_at,
    pointer_of,
    pointer_tokens,
    resolve_pointer,
    split_pointer,
)


def spans(text: str) -> list[tuple[str, str]]:
    """(kind, source slice) of every node, depth first."""
    result = parse(text)
    return [(node.kind, text[node.start : node.end]) for node in iter_nodes(result.root)]


def test_values_and_offsets() -> None:
    text = '{"a": [1, -2.5e3, true, false, null], "b": "x\\u00e9y", "c": {}}'
    result = parse(text)
    assert result.ok
    assert spans(text) == [
        (OBJECT, text),
        (ARRAY, "[1, -2.5e3, true, false, null]"),
        (NUMBER, "1"),
        (NUMBER, "-2.5e3"),
        (BOOLEAN, "true"),
        (BOOLEAN, "false"),
        (NULL, "null"),
        (STRING, '"x\\u00e9y"'),
        (OBJECT, "{}"),
    ]
    root = result.root
    assert root.get("b").value == "xéy"
    assert root.get("a").items[1].value == -2500.0
    member = root.member("b")
    assert text[member.key_start : member.key_end] == '"b"'


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "\ufeff{}",
        "{} {}",
        "",
        "   ",
        "[1,]",
        '{"a":1,}',
        "// c\n{}",
        "/* c */ {}",
        "{'a': 1}",
        "{a: 1}",
        "[01]",
        "[+1]",
        "[.5]",
        "[1.]",
        "[0x10]",
        '["a\tb"]',
        '["\\x41"]',
        "[1\f]",
        "[1\u00a0]",
        "[1\v]",
        '{"a" 1}',
        '{"a": }',
        "[1 2]",
        '{"a": 1 "b": 2}',
        "[",
        "{",
        '{"a": [1, 2}',
        '"unterminated',
        "True",
        "nul",
        "[1,,2]",
    ],
)
def test_rejects_what_json_parse_rejects(text: str) -> None:
    result = parse(text)
    assert result.errors, f"{text!r} must not parse"
    for issue in result.errors:
        assert 0 <= issue.start <= issue.end <= len(text)
    # Python's json agrees on everything here except NaN/Infinity, which it accepts by default.
    if text not in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ValueError):
            json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "-0",
        "1e400",
        "1" * 5000,
        '"\\ud800"',
        '"a\u2028b"',
        "[[[[[]]]]]",
        '{"__proto__": 1}',
        ' \t\r\n{ "a" : [ ] } \n',
        '"\\/\\b\\f\\n\\r\\t\\"\\\\"',
    ],
)
def test_accepts_what_json_parse_accepts(text: str) -> None:
    result = parse(text)
    assert result.ok, result.errors


def test_huge_integer_is_an_ieee_double() -> None:
    root = parse("1" * 5000).root
    assert root.kind == NUMBER and root.value == float("inf")
    assert parse("-0").root.value == 0.0


def test_nan_is_not_a_number_node() -> None:
    result = parse('{"id": NaN}')
    assert result.root.get("id").kind == INVALID
    assert "NaN" in result.errors[0].message


def test_bom_is_an_error_at_offset_zero() -> None:
    result = parse('\ufeff{"a": 1}')
    assert [(e.start, e.end) for e in result.errors] == [(0, 1)]
    assert result.root.get("a").value == 1.0  # recovery keeps the tree


def test_duplicate_keys_last_wins_every_occurrence_recorded() -> None:
    text = '{"prompt": "", "pr\\u006fmpt": "p", "x": 1, "prompt": "q"}'
    result = parse(text)
    assert result.ok
    assert result.root.get("prompt").value == "q"
    [dup] = result.duplicates
    assert dup.key == "prompt"
    assert [text[s:e] for s, e in dup.occurrences] == ['"prompt"', '"pr\\u006fmpt"', '"prompt"']


def test_missing_comma_does_not_hide_the_rest() -> None:
    text = '{"a": 1 "b": 2, "c": [1 2], "d": "x}'
    result = parse(text)
    messages = [e.message for e in result.errors]
    assert len(messages) == 4, messages  # missing commas, unterminated string, missing "}"
    assert result.root.get("b").value == 2.0
    assert [n.value for n in result.root.get("c").items] == [1.0, 2.0]
    assert result.errors[0].start == text.index('"b"')


@pytest.mark.parametrize(
    ("text", "at"),
    [('{"a" 1}', 5), ('{"a"\n  1}', 7), ('{"a" }', 5), ('{"a" "b"}', 5), ('{"日本😀" 1}', 7)],
)
def test_a_missing_colon_is_reported_at_the_next_token(text: str, at: int) -> None:
    """Where V8's JSON.parse ("Expected ':' after property name in JSON at position 5") and
    Microsoft's JSON language service put it: the token found instead, not the key's end."""
    first = parse(text).errors[0]
    assert (first.message, first.start, first.end) == ("expected ':' after the property name", at, at + 1)


def test_unclosed_string_ends_at_the_line() -> None:
    text = '{\n  "a": "oops,\n  "b": 2\n}'
    result = parse(text)
    assert len(result.errors) == 1
    assert result.errors[0].start == text.index('"oops')
    assert result.root.get("b").value == 2.0


def test_trailing_comma_points_at_the_comma() -> None:
    text = '{"a": [1, 2,], "b": 3,}'
    result = parse(text)
    assert [text[e.start : e.end] for e in result.errors] == [",", ","]
    assert [e.start for e in result.errors] == [11, 21]


def test_a_comma_where_a_value_belongs_then_a_closing_brace_is_reported_not_a_crash() -> None:
    # The comma that replaced the value is also the trailing one; '}' right after it once read an
    # offset the comma had not recorded (found by the splice property test under another seed).
    for text in ('{"a": ,}', '[1, {"a": ,}]', '{\n  "a": , }\n'):
        result = parse(text)
        comma = text.index(",", text.index('"a"'))
        assert [(e.message, e.start) for e in result.errors] == [
            ("expected a value before ','", comma),
            ("trailing comma before '}'", comma),
        ], text
        assert result.root is not None and result.root.end == len(text.rstrip())


def test_deep_nesting_without_recursion() -> None:
    depth = 100_000
    text = '{"metadata": ' + "[" * depth + "]" * depth + "}"
    result = parse(text)
    assert result.ok
    assert sum(1 for _ in iter_nodes(result.root)) == depth + 1
    steps, node, _ = path_at(result.root, len(text) // 2)
    assert node.kind == ARRAY and len(steps) > 1000


def test_deep_unclosed_nesting_reports_without_crash() -> None:
    result = parse("[" * 50_000)
    assert result.errors
    assert result.errors[-1].start == 50_000


def test_path_and_pointers() -> None:
    text = '{"evals": [{"id": 1, "a/b": {"~x": "v"}}]}'
    result = parse(text)
    steps, node, member = path_at(result.root, text.index('"v"') + 1)
    assert pointer_of(steps) == "/evals/0/a~1b/~0x"
    assert node.value == "v" and member is None
    assert resolve_pointer(result.root, "/evals/0/a~1b/~0x") is node
    steps, _, member = path_at(result.root, text.index('"id"') + 1)
    assert member is not None and member.key == "id"
    assert resolve_pointer(result.root, "/evals/5") is None


@pytest.mark.parametrize("names", [["a/b", "~x"], ["~1", "~01/"], [""], ["~", "/", "~/~"]])
def test_pointer_tokens_and_split_undo_join(names: list[str]) -> None:
    pointer = join_pointer("", *names)
    assert pointer_tokens(pointer) == names
    assert split_pointer(pointer) == (join_pointer("", *names[:-1]), names[-1])


def test_control_characters_and_bad_escapes_are_reported_inside_strings() -> None:
    text = '["a\x01b", "c\\qd", "ok"]'
    result = parse(text)
    assert len(result.errors) == 2
    assert result.root.items[2].value == "ok"


def test_syntax_findings_are_capped_for_garbage_input() -> None:
    from evalfix_ls.analysis import MAX_SYNTAX_FINDINGS, analyze

    analysis = analyze("{" * 5000, kind="evals")
    assert len(analysis.findings) == MAX_SYNTAX_FINDINGS
    assert analysis.findings[0].code == "json-invalid"
    assert "more syntax errors not shown" in analysis.findings[-1].message


def test_an_open_buffer_over_50_mb_is_not_analyzed() -> None:
    from evalfix_ls.analysis import analyze
    from evalfix_ls.workspace.files import MAX_FILE_BYTES

    text = '{"skill_name": "x", "evals": [], "pad": "' + "中" * (MAX_FILE_BYTES // 3) + '"}'
    analysis = analyze(text, kind="evals")
    assert [f.code for f in analysis.findings] == ["file-too-large"]
    assert analysis.tree is None


@pytest.mark.parametrize("tail", ["}", ",}"], ids=["fast parser", "tolerant parser"])
def test_a_name_repeated_many_times_is_recorded_without_copying_per_occurrence(
    tail: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every occurrence is recorded, and the spans recorded so far are not copied again for each new
    one (that copy made 200,000 repetitions of one name take minutes: quadratic)."""
    copied = 0
    plain_init = tree_module.DuplicateKey.__init__

    def counting_init(
        self: tree_module.DuplicateKey, key: str, occurrences: tuple[Span, ...] | list[Span]
    ) -> None:
        nonlocal copied
        copied += len(occurrences)
        plain_init(self, key, occurrences)

    monkeypatch.setattr(tree_module.DuplicateKey, "__init__", counting_init)
    count = 5000
    text = "{" + ", ".join(f'"k": {i}' for i in range(count)) + tail
    result = parse(text)
    [dup] = result.duplicates
    assert len(dup.occurrences) == count
    assert dup.occurrences[-1] == (text.rindex('"k"'), text.rindex('"k"') + 3)
    assert copied <= 2 * count, f"{copied} spans copied while recording {count} occurrences"
