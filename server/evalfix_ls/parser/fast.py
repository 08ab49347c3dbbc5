"""The fast path: positions for text the stdlib's C parser has already accepted.

Valid documents are the common case, so this pass has no error handling at all: one compiled
regular expression finds every token, string bodies without escapes are plain slices, escaped ones
are decoded by the stdlib's C ``scanstring``.
"""

from __future__ import annotations

import re
from json.decoder import scanstring

from .tree import (
    ARRAY,
    BOOLEAN,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    DuplicateKey,
    Member,
    Node,
    ParseResult,
    record_duplicate,
)


def reject_constant(name: str) -> None:
    """``parse_constant`` for ``json.loads``: ``NaN``/``Infinity`` are errors, as in ``JSON.parse``."""
    raise ValueError(f"{name} is not JSON")


# Valid JSON only: separators are skipped, a string followed by ':' is a member name.
_VALID_TOKEN = re.compile(
    r'[ \t\n\r,]*(?:("[^"\\]*(?:\\.[^"\\]*)*")[ \t\n\r]*(:)?'
    r"|(-?[0-9][0-9.eE+\-]*)|(true|false|null)|([{\[])|([}\]]))"
)
_VALID_LITERALS = {"true": (BOOLEAN, True), "false": (BOOLEAN, False), "null": (NULL, None)}


def parse_valid(text: str) -> ParseResult:
    """Positions for text already known to be valid JSON: no error handling on the hot path."""
    duplicates: list[DuplicateKey] = []
    dup_index: dict[tuple[int, str], int] = {}
    root: Node | None = None
    current: Node | None = None
    stack: list[Node | None] = []
    pending: Member | None = None
    for m in _VALID_TOKEN.finditer(text):
        group = m.lastindex
        if group <= 2:
            start, end = m.span(1)
            value = text[start + 1 : end - 1]
            if "\\" in value:
                value = scanstring(text, start + 1, True)[0]
            if group == 2:
                pending = Member(value, start, end)
                current.members.append(pending)
                props = current.props
                if value in props:
                    record_duplicate(dup_index, duplicates, current, value, props[value], pending)
                props[value] = pending
                continue
            node = Node(STRING, start, end, value)
        elif group == 3:
            start, end = m.span(3)
            node = Node(NUMBER, start, end, float(m.group(3)))
        elif group == 4:
            start, end = m.span(4)
            kind, value = _VALID_LITERALS[m.group(4)]
            node = Node(kind, start, end, value)
        elif group == 5:
            start = m.start(5)
            if text[start] == "{":
                node = Node(OBJECT, start, start + 1)
                node.members = []
                node.props = {}
            else:
                node = Node(ARRAY, start, start + 1)
                node.items = []
        else:
            current.end = m.end()
            current = stack.pop()
            continue
        if current is None:
            root = node
        elif current.items is None:
            pending.value = node
        else:
            current.items.append(node)
        if group == 5:
            stack.append(current)
            current = node
    return ParseResult(text, root, [], duplicates)
