"""The completion context from any state of the text: key or value, container path, partial
token and its exact range (``|`` is the cursor)."""

from __future__ import annotations

import pytest
from cursor_marker import split_cursor

from evalfix_ls.parser import parse
from evalfix_ls.services.completion_context import KEY, VALUE, find_context, token_at


def context(marked: str):
    text, offset = split_cursor(marked)
    return text, find_context(text, parse(text).root, offset)


@pytest.mark.parametrize(
    ("marked", "at", "path", "member_key"),
    [
        # trailing colon, nothing typed yet
        ('{"evals": [{"setup": {"kind": |}}]}', VALUE, ("evals", 0, "setup", "kind"), "kind"),
        # trailing colon at the very end of the text
        ('{"evals": [{"setup": {"kind": |', VALUE, ("evals", 0, "setup", "kind"), "kind"),
        # unterminated string, the rest of the line swallowed by the recovering parser
        ('{"evals": [{"setup": {"kind": "em|}}]}', VALUE, ("evals", 0, "setup", "kind"), "kind"),
        # the colon's value is missing and the next member follows on the next line
        ('{"evals": [{"setup": {"kind":|\n "sources": []}}]}', VALUE, ("evals", 0, "setup", "kind"), "kind"),
        # a new member without the comma before it
        ('{"evals": [{"id": 1 "|"}]}', KEY, ("evals", 0), None),
        ('{"evals": [{"id": 1, |}]}', KEY, ("evals", 0), None),
        ('{"evals": [{|}]}', KEY, ("evals", 0), None),
        ('{"evals": [{"ki|": 1}]}', KEY, ("evals", 0), None),
        ('{"evals": [{"assertions": [|]}]}', VALUE, ("evals", 0, "assertions", 0), None),
        ('{"evals": [{"assertions": ["a", |]}]}', VALUE, ("evals", 0, "assertions", 1), None),
        ('{"cases": [{"coverage_tags": ["trigger" "|"]}]}', VALUE, ("cases", 0, "coverage_tags", 1), None),
        ("|", VALUE, (), None),
    ],
)
def test_key_or_value_and_the_path(marked: str, at: str, path: tuple, member_key: str | None) -> None:
    _, ctx = context(marked)
    assert ctx.at == at
    assert ctx.path == path
    assert ctx.member_key == member_key


def test_the_token_of_an_unterminated_string_starts_at_its_quote() -> None:
    text, ctx = context('{"evals": [{"prompt": "日本語 😀", "setup": {"kind": "em|\n}}]}')
    token = ctx.token
    assert token.quoted and not token.closed and token.prefix == "em"
    assert text[token.start : token.end] == '"em'  # code points: CJK and emoji count one each


def test_a_closed_string_is_replaced_with_both_quotes() -> None:
    text, ctx = context('{"evals": [{"setup": {"kind": "se|ed"}}]}')
    assert text[ctx.token.start : ctx.token.end] == '"seed"' and ctx.token.prefix == "se"


def test_a_bare_word_is_the_token() -> None:
    text, ctx = context('{"evals": [{"setup": {"kind": "fixture", "fixture": {"initGit": tr|}}}]}')
    assert not ctx.token.quoted and text[ctx.token.start : ctx.token.end] == "tr"


def test_present_keys_leave_out_the_one_being_typed() -> None:
    _, ctx = context('{"evals": [{"id": 1, "pro|", "setup": {}}]}')
    assert ctx.present_keys == {"id", "setup"}


def test_present_items_of_an_array() -> None:
    _, ctx = context('{"cases": [{"coverage_tags": ["trigger", "|", "routing"]}]}')
    assert set(ctx.present_items) == {"trigger", "routing"}


def test_a_missing_comma_is_located() -> None:
    text, ctx = context('{"evals": [{"id": "x"  "|"}]}')
    assert ctx.comma_missing == text.index('"x"') + 3


def test_a_colon_after_the_key_is_seen() -> None:
    _, ctx = context('{"evals": [{"pr|": "p"}]}')
    assert ctx.colon_follows


def test_escaped_quotes_do_not_end_the_string() -> None:
    text, offset = split_cursor('{"a": "say \\"hi\\" t|o"}')
    token = token_at(text, offset)
    assert text[token.start : token.end] == '"say \\"hi\\" to"'


def test_a_string_earlier_on_the_line_is_not_the_token() -> None:
    text, offset = split_cursor('{"a": "x", |}')
    token = token_at(text, offset)
    assert not token.quoted and token.start == token.end == offset


def test_a_lone_opening_quote_is_an_unclosed_string() -> None:
    text, offset = split_cursor('{"evals": [{"setup": {"kind": "|\n}}]}')
    token = token_at(text, offset)
    assert token.quoted and not token.closed and (token.start, token.end) == (offset - 1, offset)


def test_a_minified_line_is_read_from_a_container_near_the_cursor() -> None:
    cases = ",".join(f'{{"id": "c{i}", "prompt": "p \\" {i}"}}' for i in range(3000))
    text, offset = split_cursor('{"evals": [' + cases + ', {"setup": {"kind": "em|"}}]}')
    assert offset > 65536 and "\n" not in text
    _, ctx = context('{"evals": [' + cases + ', {"setup": {"kind": "em|"}}]}')
    assert ctx.at == VALUE and ctx.path == ("evals", 3000, "setup", "kind")
    assert text[ctx.token.start : ctx.token.end] == '"em"'
