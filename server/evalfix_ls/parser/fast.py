"""The fast path: positions for text the stdlib's C parser has already accepted.

Valid documents are the common case, so this pass has no error handling at all: one compiled
regular expression finds every token, string bodies without escapes are plain slices, escaped ones
are decoded by the stdlib's C ``scanstring``.
"""

from __future__ import annotations

import re

from .tokens import scanstring
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
    # The open container and the lists it fills (its own: ``Node.items`` is typed as any sequence,
    # the lazily moved ones included); ``items`` is None inside an object.
    current: Node | None = None
    members: list[Member] = []
    props: dict[str, Member] = {}
    items: list[Node] | None = None
    # The lists of a container just opened (read once it is placed in ``current``)
    opened_members, opened_props, opened_items = members, props, items
    stack: list[tuple[Node | None, list[Member], dict[str, Member], list[Node] | None]] = []
    pending: Member | None = None
    for m in _VALID_TOKEN.finditer(text):
        group = m.lastindex or 0  # each alternative of _VALID_TOKEN is a group: never 0
        if group <= 2:
            start, end = m.span(1)
            value = text[start + 1 : end - 1]
            if "\\" in value:
                value = scanstring(text, start + 1, True)[0]
            if group == 2 and current is not None:
                pending = Member(value, start, end)
                members.append(pending)
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
            kind, literal = _VALID_LITERALS[m.group(4)]
            node = Node(kind, start, end, literal)
        elif group == 5:
            start = m.start(5)
            if text[start] == "{":
                node = Node(OBJECT, start, start + 1)
                opened_members, opened_props, opened_items = [], {}, None
                node.members, node.props = opened_members, opened_props
            else:
                node = Node(ARRAY, start, start + 1)
                node.items = opened_items = []
        else:
            if current is not None:
                current.end = m.end()
            current, members, props, items = stack.pop()
            continue
        if current is None:
            root = node
        elif items is not None:
            items.append(node)
        elif pending is not None:
            pending.value = node
        if group == 5:
            stack.append((current, members, props, items))
            current, items = node, opened_items
            if opened_items is None:
                members, props = opened_members, opened_props
    return ParseResult(text, root, [], duplicates)
