"""The exact incremental re-parse of an edit into (or out of) an invalid document.

The tolerant parser reads left to right and its state at any offset is small: the open containers,
each expecting a separator once a child is open, plus the state of the innermost one. So a re-parse
can start inside the innermost container around the edit — at its opening bracket, or (arrays) just
after the last complete item before the edit — with stand-ins for the open ancestors, and stop where
its state is again one the previous parse had at the same text: where that container closes with
its own closer, at the same place as before (shifted), or (arrays) at the end of an item after the
edit where the previous parse also ended an item. From there on, the previous parse is the parse:
its nodes, errors and duplicate names are reused, shifted. The result equals a full tolerant parse
of the new text (``tests/unit/test_splice_properties.py`` checks it over random edits).

The state also holds one thing that is not on the stack: the layout recovery reads the indentation
of the line each container opened on, and the containers the previous parse opened after the stop
on the stop's own line took the indentation that line had then. So a stop is taken only where the
edit left that line's indentation as it was.

The layout recovery of the tolerant parser (a '{' at the indentation of an unclosed case closes it)
keeps a new case typed between two others from swallowing the rest of the array, so typing one
costs a re-parse of that case and the next, not of the whole suite.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import islice

from ..layout import line_indent
from ..tolerant import TolerantParser, at_item_boundary, resumed
from ..tree import ARRAY, OBJECT, DuplicateKey, Node, ParseResult, SyntaxIssue
from .shift import enclosing_chain, rebuild, shifted

MAX_LEVELS_TRIED = 3  # containers tried, innermost first, before parsing from scratch


def reparse_tolerant(prev: ParseResult, new_text: str, start: int, end: int) -> ParseResult | None:
    """The tolerant parse of ``new_text`` (``prev.text`` with ``[start, end)`` replaced), built from
    ``prev``; None when no container around the edit recovers locally (the root is never
    re-parsed this way: that is a full parse)."""
    if prev.root is None or not isinstance(prev.text, str):
        return None  # an approximate tree (its text may be a PieceText) is never the base
    old = _Previous(prev, prev.text)
    chain = enclosing_chain(prev.root, start, end)
    tried = 0
    for depth in range(len(chain) - 1, 0, -1):
        target = chain[depth]
        if target.kind != OBJECT and target.kind != ARRAY:
            continue
        if tried == MAX_LEVELS_TRIED:
            break
        tried += 1
        if target.start in old.unclosed:
            continue  # closed without its own closer: the parse after it depends on the edit
        result = _splice(old, new_text, chain[: depth + 1], start, end + len(new_text) - len(prev.text))
        if result is not None:
            return result
    return None


class _Previous:
    """The previous parse, with what the splice asks of it indexed."""

    __slots__ = ("result", "text", "unclosed", "error_starts")

    def __init__(self, result: ParseResult, text: str) -> None:
        self.result = result
        self.text = text  # ``result.text``, a ``str``
        self.unclosed = frozenset(result.unclosed)
        self.error_starts = sorted(issue.start for issue in result.errors)

    def clean_item(self, item: Node) -> bool:
        """After this item the previous parse's state was "a complete item, expecting a separator":
        a container closed with its own closer, or a scalar without a syntax error (an
        unterminated string leaves the parser assuming a comma)."""
        if item.kind == OBJECT or item.kind == ARRAY:
            return item.start not in self.unclosed
        starts = self.error_starts
        at = bisect_left(starts, item.start)
        return at == len(starts) or starts[at] > item.end


def _splice(
    old: _Previous, new_text: str, chain: list[Node], edit_start: int, new_edit_end: int
) -> ParseResult | None:
    prev = old.result
    delta = len(new_text) - len(prev.text)
    target = chain[-1]
    depth = len(chain) - 1  # the stack index of the re-parsed container
    container, head, boundary, after_item = _resume_point(old, target, edit_start)
    parser = resumed(new_text, chain[:-1], container, boundary, after_item)
    parser.limit = target.end + delta
    items = target.items if target.kind == ARRAY else None
    synced: list[int] = []
    edit = _Edit(old.text, new_text, edit_start, new_edit_end)

    def watch() -> bool:
        if len(parser.stack) <= depth:
            return True  # the container closed (how is checked below)
        if items is not None and parser.pos >= new_edit_end and at_item_boundary(parser, container):
            index = _item_ending_at(old, items, parser.pos - delta)
            if index is not None and edit.keeps_indent_of_line_at(parser.pos):
                synced.append(index)
                return True
        return False

    parser.watch_depth, parser.watch = depth + 1, watch
    try:
        parser.run()
    finally:
        # ``watch`` and the parser refer to each other: left as a cycle, only the collector frees
        # them — and with them the previous parse and both texts ``watch`` reaches. The server
        # freezes what a job leaves (``memory.collector``), so each keystroke's cycle kept every
        # earlier version's tree alive while typing went on (peak RSS 4.3 GB at 10 MB).
        parser.watch = _never_stop
    if synced and items is not None:
        old_sync = items[synced[0]].end
        replacement = Node(ARRAY, target.start, target.end + delta)
        # ``head``: the container's items, which the parser extended
        replacement.items = head + [shifted(item, delta) for item in items[synced[0] + 1 :]]
    elif _closed_in_place(parser, depth, container, target.end + delta) and edit.keeps_indent_of_line_at(
        parser.pos
    ):
        old_sync = target.end
        replacement = container
    else:
        return None
    return ParseResult(
        new_text,
        rebuild(chain, replacement, delta),
        _spliced_errors(prev, parser, chain[:-1], boundary, old_sync, delta),
        _spliced_duplicates(prev, parser, boundary, old_sync, delta),
        tuple(
            sorted(
                [start for start in prev.unclosed if start < boundary]
                + parser.unclosed
                + [start + delta for start in prev.unclosed if start >= old_sync]
            )
        ),
    )


class _Edit:
    """``old_text[start:old_end]`` replaced by ``new_text[start:new_end]``."""

    __slots__ = ("old_text", "new_text", "start", "old_end", "new_end")

    def __init__(self, old_text: str, new_text: str, start: int, new_end: int) -> None:
        self.old_text, self.new_text = old_text, new_text
        self.start, self.new_end = start, new_end
        self.old_end = new_end - (len(new_text) - len(old_text))

    def keeps_indent_of_line_at(self, new_offset: int) -> bool:
        """Is the line holding ``new_offset`` (after the edit) indented as the line holding the same
        text was before it? Decided without scanning a long (minified) line back to its start when
        the answer does not depend on it: the line starts after the edit, or the edit lies on it
        after its first non-blank character."""
        new_text, start, new_end = self.new_text, self.start, self.new_end
        if _has_line_break(new_text, new_end, new_offset):
            return True  # the line starts after the edit: the same text in both versions
        if (
            not _has_line_break(new_text, start, new_end)
            and not _has_line_break(self.old_text, start, self.old_end)
            and _after_first_non_blank(new_text, start)
        ):
            return True  # one line in both, its indentation before the edit
        old_offset = new_offset - new_end + self.old_end
        return line_indent(new_text, new_offset) == line_indent(self.old_text, old_offset)


def _has_line_break(text: str, start: int, end: int) -> bool:
    return text.find("\n", start, end) >= 0 or text.find("\r", start, end) >= 0


def _after_first_non_blank(text: str, offset: int) -> bool:
    """Does the line holding ``offset`` have a character other than a space or tab before it?"""
    index = offset
    while index > 0 and text[index - 1] in " \t":
        index -= 1
    return index > 0 and text[index - 1] not in "\r\n"


def _resume_point(old: _Previous, target: Node, edit_start: int) -> tuple[Node, list[Node], int, bool]:
    """A fresh copy of ``target`` holding what precedes the resume offset, its list of items (an
    array's; empty for an object), that offset, and whether it is just after an item. Arrays resume
    after the last clean item ending before the edit (strictly: a number or word right before it
    could grow); objects at their opening brace."""
    if target.kind == OBJECT:
        container = Node(OBJECT, target.start, target.start + 1)
        container.members, container.props = [], {}
        return container, [], target.start + 1, False
    items = target.items or ()
    index = bisect_left(items, edit_start, key=_end_of) - 1
    while index >= 0 and (items[index].end >= edit_start or not old.clean_item(items[index])):
        index -= 1
    container = Node(ARRAY, target.start, target.start + 1)
    container.items = head = list(islice(items, index + 1))
    if index < 0:
        return container, head, target.start + 1, False
    return container, head, items[index].end, True


def _end_of(node: Node) -> int:
    return node.end


def _item_ending_at(old: _Previous, items: Sequence[Node], offset: int) -> int | None:
    index = bisect_left(items, offset, key=_end_of)
    if index < len(items) and items[index].end == offset and old.clean_item(items[index]):
        return index
    return None


def _closed_in_place(parser: TolerantParser, depth: int, container: Node, expected_end: int) -> bool:
    """Did the re-parsed container close with its own closer where the old one ended (shifted)?"""
    return (
        len(parser.stack) == depth
        and parser.pos == expected_end
        and container.end == expected_end
        and container.start not in parser.unclosed
    )


def _spliced_errors(
    prev: ParseResult,
    parser: TolerantParser,
    ancestors: list[Node],
    boundary: int,
    old_sync: int,
    delta: int,
) -> list[SyntaxIssue]:
    """The previous errors produced before the re-parsed span, the new ones, then the previous ones
    produced after it — in the order a full parse produces them. Errors lie where they were
    produced, except an open ancestor's "missing closer", which lies at its opening bracket but is
    produced when it closes, after the span."""
    ancestor_starts = {node.start for node in ancestors}
    before: list[SyntaxIssue] = []
    after: list[SyntaxIssue] = []
    for issue in prev.errors:
        if issue.start >= old_sync:
            after.append(_shifted_issue(issue, delta, old_sync))
        elif issue.start < boundary:
            late = issue.closed_implicitly and issue.start in ancestor_starts
            (after if late else before).append(issue)
    return before + parser.errors + after


def _shifted_issue(issue: SyntaxIssue, delta: int, old_sync: int) -> SyntaxIssue:
    """An issue after the re-parsed span, moved by ``delta``; the opener of a container still open
    at the end moves only if it opened after the span too."""
    opener_moves = issue.opener is not None and issue.opener >= old_sync
    return issue.moved(delta, delta if opener_moves else 0)


def _spliced_duplicates(
    prev: ParseResult, parser: TolerantParser, boundary: int, old_sync: int, delta: int
) -> list[DuplicateKey]:
    """Duplicate names of objects inside the re-parsed span come from the new parse; the others
    (names of objects before or after it, or of its ancestors) keep their offsets, shifted after it."""
    merged = list(parser.duplicates)
    for dup in prev.duplicates:
        if all(boundary <= start and end <= old_sync for start, end in dup.occurrences):
            continue
        merged.append(
            DuplicateKey(
                dup.key,
                tuple(
                    (start + delta, end + delta) if start >= old_sync else (start, end)
                    for start, end in dup.occurrences
                ),
            )
        )
    merged.sort(key=lambda dup: dup.occurrences[0])
    return merged


def _never_stop() -> bool:
    return False
