"""What of a document that does not parse was recovered intact, for the editor's findings.

While an open document has a syntax error, the cases the tolerant parser read completely (no syntax
error inside them, closed by their own closer) are exactly what they will be once the error is
fixed, and so are the top-level members without an error. ``intact_view`` gives a tree holding only
those — a broken top-level member is left out, a broken element of a top-level array (the case that
holds the error) is replaced by an empty object — and the spans of the intact parts. A contract run
on that tree yields every finding of the intact parts; the findings outside those spans (the
placeholders', or about the document as a whole) are guesses and are dropped by the caller.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from .tolerant import MISSING_COMMA_BEFORE_PROPERTY, MISSING_COMMA_BEFORE_VALUE
from .tree import ARRAY, OBJECT, Member, Node, ParseResult

_SEPARATOR_ERRORS = frozenset({MISSING_COMMA_BEFORE_PROPERTY, MISSING_COMMA_BEFORE_VALUE})


@dataclass(frozen=True, slots=True)
class IntactView:
    root: Node | None
    spans: tuple[tuple[int, int], ...]  # the intact parts, in document order, disjoint

    def covers(self, start: int, end: int) -> bool:
        """Does ``[start, end)`` lie inside one intact part?"""
        index = bisect_right(self.spans, (start, float("inf"))) - 1
        return index >= 0 and self.spans[index][0] <= start and end <= self.spans[index][1]


def intact_view(tree: ParseResult) -> IntactView:
    root = tree.root
    if root is None or (root.kind != OBJECT and root.kind != ARRAY):
        return IntactView(None, ())
    check = _Intactness(tree)
    spans: list[tuple[int, int]] = []
    if root.kind == ARRAY:
        return IntactView(check.array_view(root, spans), tuple(spans))
    view = Node(OBJECT, root.start, root.end)
    view.members, view.props = [], {}
    for member in root.members:
        value = member.value
        if value is None:
            continue
        if check.intact(member.key_start, value):
            kept = member
            spans.append((member.key_start, value.end))
        elif value.kind == ARRAY and not check.has_error(member.key_start, member.key_end):
            kept = Member(member.key, member.key_start, member.key_end, check.array_view(value, spans))
        else:
            continue  # a broken member other than an array: nothing of it is known for sure
        view.members.append(kept)
        if root.props.get(member.key) is member:
            view.props[member.key] = kept
    return IntactView(view, tuple(spans))


class _Intactness:
    __slots__ = ("error_starts", "unclosed", "text")

    def __init__(self, tree: ParseResult) -> None:
        self.text = tree.text
        # A comma missing before an item is its container's error, not the item's.
        self.error_starts = sorted(
            issue.start for issue in tree.errors if issue.message not in _SEPARATOR_ERRORS
        )
        self.unclosed = frozenset(tree.unclosed)

    def has_error(self, start: int, end: int) -> bool:
        """Does a syntax error start inside ``[start, end)``?"""
        at = bisect_left(self.error_starts, start)
        return at < len(self.error_starts) and self.error_starts[at] < end

    def intact(self, start: int, node: Node) -> bool:
        """Is ``[start, node.end)`` free of syntax errors, with ``node`` closed by its own closer?
        A closer on another line must also be indented as the opener's line: a case left open can
        otherwise end, without any error, at the closer of what encloses it, holding the cases
        after it as its values."""
        if node.kind == OBJECT or node.kind == ARRAY:
            if node.start in self.unclosed or not _aligned(self.text, node.start, node.end - 1):
                return False
        return not self.has_error(start, node.end)

    def array_view(self, array: Node, spans: list[tuple[int, int]]) -> Node:
        """``array`` with every broken element replaced by an empty object at its place."""
        view = Node(ARRAY, array.start, array.end)
        view.items = []
        for item in array.items:
            if self.intact(item.start, item):
                spans.append((item.start, item.end))
                view.items.append(item)
            else:
                placeholder = Node(OBJECT, item.start, item.end)
                placeholder.members, placeholder.props = [], {}
                view.items.append(placeholder)
        return view


_INDENT = re.compile(r"[ \t]*")


def _indent_of_line(text: str, offset: int) -> tuple[int, int]:
    """(start of the line holding ``offset``, its indentation)."""
    newline = text.rfind("\n", 0, offset)
    line = max(newline, text.rfind("\r", newline + 1, offset)) + 1
    return line, _INDENT.match(text, line, offset).end() - line


def _aligned(text: str, opener: int, closer: int) -> bool:
    opener_line, opener_indent = _indent_of_line(text, opener)
    closer_line, closer_indent = _indent_of_line(text, closer)
    return closer_line == opener_line or closer_indent == opener_indent
