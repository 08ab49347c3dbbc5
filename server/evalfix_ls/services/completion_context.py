"""Where a completion request stands, from any state of the text.

Users type one character at a time, so the document is broken most of the time: ``"kind": `` with
nothing after it, ``"kind": "em`` with the string unterminated, a missing comma before the cursor.
The context is found in two layers:

* lexically, on the text around the cursor: the partial token (a string, opened by its quote and
  perhaps closed, or a bare word) and its exact range, and the significant character before it
  (``:`` → a value, ``{``/``,`` → a key of an object, ``[``/``,`` → an item of an array). JSON
  strings cannot span lines, so the cursor's line alone decides whether it lies inside a string;
* structurally, on the (possibly recovered) tree: the container at the cursor and its JSON path,
  the members and items already written.

No full re-parse happens here: the caller hands in the tree of this text (the analysis, or a cheap
local re-parse of the region that changed). Nor is the whole text read: it may be a ``PieceText``
(an edited version whose ``str`` is not built yet), so regular expressions go through the
``text.pieces`` helpers, which read only the span they are given.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..parser.tree import ARRAY, OBJECT, STRING, Node
from ..text.pieces import Text, finditer, match_run, search, search_forward
from .cursor import JsonPath, locate

KEY = "key"
VALUE = "value"

# One token of a line: a string (perhaps unterminated), or any single other character.
_LINE_TOKEN = re.compile(r'"(?:[^"\\\n\r]|\\.)*"?|[^"]')
# A bare word (true, fals, 12, em …): what a user types before the opening quote.
_WORD_CHARS = re.compile(r"[A-Za-z0-9_.$+\-]*")
_WORD_BEFORE = re.compile(r"[A-Za-z0-9_.$+\-]*\Z")
_SPACE = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Token:
    """The text the completion replaces: ``[start, end)`` (code points), with the opening quote
    and, when the string is closed, the closing one. ``prefix`` is what was typed between the
    opening quote (or the word start) and the cursor, as written (escapes not decoded)."""

    start: int
    end: int
    prefix: str
    quoted: bool
    closed: bool


@dataclass(frozen=True, slots=True)
class CompletionContext:
    """``at`` is ``key`` (a member name of the object at ``container_path``) or ``value`` (the
    value at ``path``: the member ``member_key`` of that object, or an item of that array).

    ``present_keys`` are the members the object already has (the one being typed left out);
    ``present_items`` the string items the array already has (the one being typed left out).
    ``colon_follows`` tells that a ``:`` already follows a key (insert the name only);
    ``comma_missing`` that the previous member or item ends without its comma (offset where one
    belongs, else None)."""

    offset: int
    at: str
    container_path: JsonPath
    container: Node | None
    token: Token
    member_key: str | None = None
    present_keys: frozenset[str] = frozenset()
    present_items: tuple[str, ...] = ()
    colon_follows: bool = False
    comma_missing: int | None = None

    @property
    def path(self) -> JsonPath:
        """The JSON path of the value being written (for a key: of its object)."""
        if self.at == KEY:
            return self.container_path
        if self.member_key is not None:
            return (*self.container_path, self.member_key)
        if self.container is not None and self.container.kind == ARRAY:
            return (*self.container_path, _item_index(self.container, self.token.start))
        return self.container_path

    @property
    def in_array(self) -> bool:
        return self.container is not None and self.container.kind == ARRAY


def token_at(text: Text, offset: int, root: Node | None = None) -> Token:
    """The partial token at ``offset``: the string the cursor lies in (from its opening quote;
    to its closing quote when the line has one), else the bare word around it. The line is read
    from its start, or — on a very long line (a minified file) — from the innermost container of
    ``root`` that starts not too far before the cursor (a bracket is never inside a string)."""
    line_start = _scan_start(root, offset, line_start_of(text, offset))
    line_end = _line_end(text, offset)
    for match in finditer(_LINE_TOKEN, text, line_start, line_end):
        start, end = match.span()
        if start >= offset:
            break
        if text[start] != '"':
            continue
        closed = end - start >= 2 and text[end - 1] == '"' and not _escaped(text, start, end - 1)
        if offset < end or (offset == end and not closed):
            return Token(
                start, end if closed else _word_end(text, offset), text[start + 1 : offset], True, closed
            )
    word = search(_WORD_BEFORE, text, line_start, offset)
    word_start = offset - (len(word.group()) if word is not None else 0)
    return Token(word_start, _word_end(text, offset), text[word_start:offset], False, False)


_LINE_BREAK_AT = re.compile(r"[\r\n]")
_LINE_BREAK_BEFORE = re.compile(r"[\r\n][^\r\n]*\Z")
_LOOK = 4096  # a line break is looked for in windows of this size, backwards
MAX_LINE_SCAN = 65536  # beyond this, a line is read from a container start nearer the cursor


def line_start_of(text: Text, offset: int) -> int:
    """The start of the line holding ``offset`` (LSP line breaks), without scanning the text
    before that line (``rfind`` of a break a file never contains would read all of it)."""
    high = offset
    while high > 0:
        low = max(0, high - _LOOK)
        found = search(_LINE_BREAK_BEFORE, text, low, high)
        if found is not None:
            return found.start() + 1
        high = low
    return 0


def _scan_start(root: Node | None, offset: int, line_start: int) -> int:
    if offset - line_start <= MAX_LINE_SCAN or root is None:
        return line_start
    best = line_start
    for step in locate(root, offset).steps:
        if step.container.start >= line_start and offset - step.container.start <= MAX_LINE_SCAN:
            return step.container.start
        best = max(best, step.container.start)
    return best


def _line_end(text: Text, offset: int) -> int:
    found = search_forward(_LINE_BREAK_AT, text, offset)
    return found.start() if found is not None else len(text)


def _word_end(text: Text, offset: int) -> int:
    return match_run(_WORD_CHARS, text, offset)


def _escaped(text: Text, start: int, quote: int) -> bool:
    """Is the quote at ``quote`` escaped (an odd run of backslashes before it)?"""
    run = 0
    while quote - run - 1 > start and text[quote - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def previous_significant(text: Text, offset: int) -> tuple[str, int]:
    """The last non-blank character before ``offset`` and its offset (``""``, -1 at the start)."""
    index = offset - 1
    while index >= 0 and text[index] in _SPACE:
        index -= 1
    return (text[index], index) if index >= 0 else ("", -1)


def next_significant(text: Text, offset: int) -> str:
    index = offset
    while index < len(text) and text[index] in _SPACE:
        index += 1
    return text[index] if index < len(text) else ""


def find_context(text: Text, root: Node | None, offset: int) -> CompletionContext:
    """The completion context at ``offset`` of ``text`` whose (possibly recovered) tree is
    ``root``."""
    token = token_at(text, offset, root)
    before, before_at = previous_significant(text, token.start)
    container, container_path = _container(root, token, offset, before_at)
    if container is None or container.kind != OBJECT or before == ":":
        return _value_context(text, offset, token, before, before_at, container, container_path)
    return CompletionContext(
        offset=offset,
        at=KEY,
        container_path=container_path,
        container=container,
        token=token,
        present_keys=frozenset(m.key for m in container.members or () if m.key_start != token.start),
        colon_follows=next_significant(text, token.end) == ":",
        comma_missing=_missing_comma(before, before_at),
    )


def _value_context(
    text: Text,
    offset: int,
    token: Token,
    before: str,
    before_at: int,
    container: Node | None,
    container_path: JsonPath,
) -> CompletionContext:
    member_key = _key_before_colon(text, before_at) if before == ":" else None
    items: tuple[str, ...] = ()
    if container is not None and container.kind == ARRAY:
        items = tuple(
            item.value
            for item in container.items or ()
            if item.kind == STRING and item.start != token.start and isinstance(item.value, str)
        )
    comma = _missing_comma(before, before_at) if container is not None and container.kind == ARRAY else None
    if container is not None and container.kind == OBJECT and member_key is None:
        member_key = ""  # a value without a name (a recovery artefact): nothing fits
    return CompletionContext(
        offset=offset,
        at=VALUE,
        container_path=container_path,
        container=container,
        token=token,
        member_key=member_key,
        present_items=items,
        comma_missing=comma,
    )


def _container(root: Node | None, token: Token, offset: int, before_at: int) -> tuple[Node | None, JsonPath]:
    """The object or array holding the token, and its path. An empty token is looked up right
    after the significant character before it: only blanks lie between, and an unclosed
    container of a recovered tree may end there."""
    at = token.start if token.quoted or token.start < offset else max(before_at + 1, 0)
    cursor = locate(root, at)
    node = cursor.node
    if cursor.on_key or cursor.member is not None and cursor.member.key_start == token.start:
        return cursor.steps[-1].container, cursor.path[:-1]
    if node is not None and node.kind in (OBJECT, ARRAY) and node.start < at < node.end:
        return node, cursor.path
    return cursor.container, cursor.container_path


def _key_before_colon(text: Text, colon: int) -> str | None:
    """The member name written before the ``:`` at ``colon`` (None when it is not a string)."""
    end = colon - 1
    while end >= 0 and text[end] in _SPACE:
        end -= 1
    if end < 0 or text[end] != '"':
        return None
    start = end - 1
    while start >= 0:
        if text[start] == '"' and not _escaped(text, -1, start):
            break
        if text[start] in "\n\r":
            return None
        start -= 1
    try:
        decoded: object = json.loads(text[start : end + 1])  # a JSON string: always a str
    except ValueError:
        return text[start + 1 : end]
    return decoded if isinstance(decoded, str) else text[start + 1 : end]


def _missing_comma(before: str, before_at: int) -> int | None:
    """Where a comma belongs when the previous member or item ends without one."""
    if before in ("", "{", "[", ",", ":"):
        return None
    return before_at + 1


def _item_index(array: Node, offset: int) -> int:
    """The index a value at ``offset`` has (or will have) in ``array``."""
    for index, item in enumerate(array.items or ()):
        if offset <= item.end:
            return index
    return len(array.items or ())
