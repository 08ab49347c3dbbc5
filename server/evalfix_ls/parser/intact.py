"""What of a document that does not parse was recovered intact, for the editor's findings.

While an open document has a syntax error, the cases the tolerant parser read completely (no syntax
error inside them, closed by their own closer) are exactly what they will be once the error is
fixed, and so are the top-level members without an error. ``intact_view`` gives a tree holding only
those — a broken top-level member is left out, a broken element of a top-level array (the case that
holds the error) is replaced by an empty object — and the spans of the intact parts. A contract run
on that tree yields every finding of the intact parts; the findings outside those spans (the
placeholders', or about the document as a whole) are guesses and are dropped by the caller.

A case being typed can also be valid JSON that swallows what follows it (``"assertions": [`` at the
end of its line takes the next cases as items, and the top-level members after the cases as its
own): inside such a case, not closed in line with its opener, the layout says where the next cases
and the top-level names are, and the view puts them back there (``swallowed``, ``members_taken``).

Whether each case is closed in line with its opener is asked again on every keystroke of a broken
document, for every case (thousands). A case the re-parse did not touch is the same origin node
(``parser.shift.unshifted``) with the same text, so what its own text says (closed on its opener's
line, or its closer's indentation) cannot have changed; only the text before its opener on its
line can. ``IntactMemo`` keeps, per origin, that line's text before the opener and the answer: the
next view checks that the line still starts so (two comparisons in C) instead of finding both
lines' starts and indentations.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Container
from dataclasses import dataclass

from .incremental.shift import unshifted
from .layout import line_and_indent, line_indent
from .tolerant import resumed
from .tree import ARRAY, OBJECT, Member, Node, ParseResult


@dataclass(frozen=True, slots=True)
class IntactView:
    root: Node | None
    spans: tuple[tuple[int, int], ...]  # the intact parts, in document order, disjoint

    def covers(self, start: int, end: int) -> bool:
        """Does ``[start, end)`` lie inside one intact part?"""
        index = bisect_right(self.spans, (start, float("inf"))) - 1
        return index >= 0 and self.spans[index][0] <= start and end <= self.spans[index][1]


# A line's text before an opener longer than this is not kept (a one-line file's cases would each
# keep the whole line before them); such a case is aligned afresh.
_MAX_LEAD = 256

# id(origin) -> (origin, the text from its line's start to its opener, closed in line with it)
_Alignments = dict[int, tuple[Node, str, bool]]


class IntactMemo:
    """Per document: whether each case of the last complete view was closed in line with its
    opener, by the case's origin node (see the module's docstring). ``aligned`` counts the cases
    whose lines were read again (tests read it)."""

    __slots__ = ("_kept", "aligned", "renewed")

    def __init__(self) -> None:
        self._kept: _Alignments = {}
        self.aligned = 0
        self.renewed = False  # a view was kept since the owner last asked (``CaseCache.analysed``)

    def forget(self) -> None:
        self._kept = {}

    def retain(self, origins: Container[int]) -> None:
        """Keep only the cases whose origin's ``id`` is in ``origins`` (nodes alive elsewhere)."""
        self._kept = {ident: entry for ident, entry in self._kept.items() if ident in origins}

    def __len__(self) -> int:
        """The cases kept (each keeps its node alive)."""
        return len(self._kept)


def intact_view(tree: ParseResult, memo: IntactMemo | None = None) -> IntactView:
    root, text = tree.root, tree.text
    if root is None or (root.kind != OBJECT and root.kind != ARRAY):
        return IntactView(None, ())
    if not isinstance(text, str):  # an approximate tree's text (its errors are partial anyway)
        return IntactView(None, ())
    check = _Intactness(tree, text, memo)
    spans: list[tuple[int, int]] = []
    if root.kind == ARRAY:
        view = IntactView(check.array_view(root, spans), tuple(spans))
    else:
        try:
            view = IntactView(check.object_view(root, spans), tuple(spans))
        except _TopLevelUnknown:
            return IntactView(None, ())  # every case inherits from a top level that cannot be read
    if memo is not None:  # kept once complete; two views at once: the last to end is kept
        memo._kept = check.kept
        memo.renewed = True
    return view


class _TopLevelUnknown(Exception):
    """Top-level members were taken where no member can be (into an array left open)."""


class _Intactness:
    __slots__ = ("error_starts", "unclosed", "text", "memo", "previous", "kept")

    def __init__(self, tree: ParseResult, text: str, memo: IntactMemo | None) -> None:
        self.text = text
        # A comma missing before an item is its container's error, not the item's.
        self.error_starts = sorted(issue.start for issue in tree.errors if not issue.separator_missing)
        self.unclosed = frozenset(tree.unclosed)
        self.memo = memo
        self.previous: _Alignments = memo._kept if memo is not None else {}
        self.kept: _Alignments = {}

    def has_error(self, start: int, end: int) -> bool:
        """Does a syntax error start inside ``[start, end)``?"""
        at = bisect_left(self.error_starts, start)
        return at < len(self.error_starts) and self.error_starts[at] < end

    def intact(self, start: int, node: Node) -> bool:
        """Is ``[start, node.end)`` free of syntax errors, with ``node`` closed by its own closer?
        A closer on another line must also be indented as the opener's line: a case left open can
        otherwise end, without any error, at the closer of what encloses it, holding the cases
        after it as its values."""
        return not self._misclosed(node) and not self.has_error(start, node.end)

    def intact_item(self, item: Node) -> bool:
        """``intact(item.start, item)`` for an element of an array of cases, its alignment read
        through the memo."""
        if item.kind in (OBJECT, ARRAY) and (item.start in self.unclosed or not self._aligned_item(item)):
            return False
        return not self.has_error(item.start, item.end)

    def _aligned_item(self, item: Node) -> bool:
        text, opener = self.text, item.start
        origin, _ = unshifted(item)
        ident = id(origin)
        entry = self.previous.get(ident)
        if entry is not None and entry[0] is origin:  # the same text from the opener on
            lead = entry[1]
            line = opener - len(lead)
            if text.startswith(lead, line) and (line == 0 or text[line - 1] in "\r\n"):
                self.kept[ident] = entry
                return entry[2]
        if self.memo is not None:
            self.memo.aligned += 1
        line, _ = line_and_indent(text, opener)
        aligned = _aligned(text, opener, item.end - 1)
        if opener - line <= _MAX_LEAD:
            self.kept[ident] = (origin, text[line:opener], aligned)
        return aligned

    def object_view(self, root: Node, spans: list[tuple[int, int]]) -> Node:
        """The top-level object with its broken members left out (a broken array of cases is kept,
        as ``array_view``), and the members a case left open took put back."""
        view = Node(OBJECT, root.start, root.end)
        view.members, view.props = [], {}
        members = list(root.members or ())
        props = root.props or {}
        taken_ids: set[int] = set()
        reread_ids: set[int] = set()
        index = 0
        while index < len(members):
            member = members[index]
            index += 1
            value = member.value
            if value is None:
                continue
            if id(member) in reread_ids or self.intact(member.key_start, value):
                kept = member
                spans.append((member.key_start, value.end))
            elif value.kind == ARRAY and not self.has_error(member.key_start, member.key_end):
                kept = Member(member.key, member.key_start, member.key_end, self.array_view(value, spans))
                taken, reread = self.members_taken(root, member)
                members[index:index] = taken
                taken_ids.update(map(id, taken))
                if reread:
                    reread_ids.update(map(id, taken))
            else:
                continue  # a broken member other than an array: nothing of it is known for sure
            view.members.append(kept)
            # the last member of a name counts; a taken one is the last of its name in its object
            if props.get(member.key) is member or id(member) in taken_ids:
                view.props[member.key] = kept
        return view

    def members_taken(self, root: Node, member: Member) -> tuple[list[Member], bool]:
        """The top-level members after ``member`` (an array of cases) that a case left open in it
        took (`"cases": [` before `"skill"`), and whether they had to be read again. Only the
        array's last case can have: what it swallowed is everything after it."""
        items = None if member.value is None else member.value.items
        if not items or not self._misclosed(items[-1]):
            return [], False
        column = line_indent(self.text, member.key_start)
        taken = self.swallowed_members(items[-1], column)
        if taken or not root.members or member is not root.members[-1]:
            return taken, False
        return self.members_after(items[-1], column), True

    def array_view(self, array: Node, spans: list[tuple[int, int]]) -> Node:
        """``array`` with every broken element replaced by an empty object at its place, and the
        elements a broken one swallowed (``swallowed``) put back after it."""
        view = Node(ARRAY, array.start, array.end)
        view.items = view_items = []
        items = list(array.items or ())
        index = 0
        while index < len(items):
            item = items[index]
            index += 1
            if self.intact_item(item):
                spans.append((item.start, item.end))
                view_items.append(item)
                continue
            lifted = self.swallowed(item)
            placeholder = Node(OBJECT, item.start, lifted[0].start if lifted else item.end)
            placeholder.members, placeholder.props = [], {}
            view_items.append(placeholder)
            items[index:index] = lifted
        return view

    def swallowed(self, item: Node) -> list[Node]:
        """The values inside the broken ``item`` that the layout puts after it, in the array
        holding ``item``.

        Typing ``"assertions": [`` into a new case leaves that array open, and the cases after it
        are valid items of it (JSON.parse sees no error until the end of the text); after
        ``"id":`` the next case is that member's value. Such a value starts a line indented as the
        line ``item`` starts on — where the cases are, not where the values of a case are, nor
        further out — inside containers not closed in line with their opener (the ones that
        swallowed it). Only the editor's view of intact parts reads them so; the syntax findings
        do not change."""
        if not self._misclosed(item):
            return []
        column = line_indent(self.text, item.start)
        return self._offside_items(item, column)

    def swallowed_members(self, last_case: Node, column: int) -> list[Member]:
        """The top-level members that ``last_case``, left open, took as its own: the members from
        the first one whose name starts a line indented no deeper than ``column`` (where the
        top-level names are)."""
        found = self._first_offside(last_case, column, names=True)
        if found is None:
            return []
        container, index = found
        return (container.members or [])[index:]

    def members_after(self, last_case: Node, column: int) -> list[Member]:
        """The top-level members after the cases that an array left open in a case read as its
        items (``[[`` typed: the cases' ``]`` closes the inner one, ``"skill": …`` lands in the
        outer one): read again on their own, from the first name in or after the last case (the
        broken one) that starts a line indented no deeper than ``column``. Raises
        ``_TopLevelUnknown`` when they do not read as members without an error."""
        text = self.text
        line = _name_line(column).search(text, last_case.start)  # in C: the tail can be long
        if line is None:
            return []
        container = Node(OBJECT, line.end() - 1, len(text))
        container.members, container.props = [], {}
        parser = resumed(text, [], container, line.end() - 1, after_item=False)
        parser.run()
        if parser.errors or parser.stack:
            raise _TopLevelUnknown
        return container.members

    def _offside_items(self, node: Node, column: int) -> list[Node]:
        found = self._first_offside(node, column, names=False)
        if found is None:
            return []
        container, index = found
        if container.kind == ARRAY:  # the later items came after it too, up to one further out
            items = container.items or ()
            end = index + 1
            while end < len(items) and not _starts_line_at(
                self.text, items[end].start, column - 1, deeper_ok=True
            ):
                end += 1
            return list(items[index:end])
        # a member's value (typed `"id":` with the next case on the next line); the members after
        # it belong to the case left open
        value = (container.members or [])[index].value
        return [] if value is None else [value]

    def _first_offside(self, node: Node, column: int, *, names: bool) -> tuple[Node, int] | None:
        """(container, index) of the first element, in document order inside the containers left
        open from ``node`` down, that starts a line indented by ``column`` — by its value, or with
        ``names`` by the name of an object's member, indented no deeper than ``column``."""
        text = self.text
        pending = [(node, 0)]  # without recursion: containers left open nest arbitrarily deep
        while pending:
            container, index = pending.pop()
            is_array = container.kind == ARRAY
            items = (container.items or ()) if is_array else ()
            members = (container.members or []) if not is_array else []
            count = len(items) if is_array else len(members)
            while index < count:
                child: Node | None
                if is_array:
                    child, name_start = items[index], None
                else:
                    child, name_start = members[index].value, members[index].key_start
                index += 1
                if child is None:
                    continue
                start = name_start if names else child.start
                if start is not None and _starts_line_at(text, start, column, deeper_ok=names):
                    return container, index - 1
                if self._misclosed(child):
                    pending.append((container, index))
                    pending.append((child, 0))
                    break
        return None

    def _misclosed(self, node: Node) -> bool:
        """Was the container ``node`` closed by something other than its own closer in line?"""
        if node.kind != OBJECT and node.kind != ARRAY:
            return False
        return node.start in self.unclosed or not _aligned(self.text, node.start, node.end - 1)


def _aligned(text: str, opener: int, closer: int) -> bool:
    opener_line, opener_indent = line_and_indent(text, opener)
    closer_line, closer_indent = line_and_indent(text, closer)
    return closer_line == opener_line or closer_indent == opener_indent


def _starts_line_at(text: str, offset: int, column: int, *, deeper_ok: bool) -> bool:
    """Is ``offset`` the first token of its line, indented by ``column`` (or, ``deeper_ok``, by
    no more than ``column``)?"""
    line, indent = line_and_indent(text, offset)
    return line + indent == offset and (indent == column or (deeper_ok and indent < column))


def _compile_name_line(column: int) -> re.Pattern[str]:
    return re.compile(rf'[\r\n][ \t]{{0,{column}}}"')


# Compiled once, with the module: ``re`` keeps every pattern it compiles in a cache of its own, and
# a pattern first compiled for a column met during a large analysis stayed there after the
# document was closed, holding one of that analysis' pymalloc arenas (issue 33, the arena census).
_NAME_LINES = tuple(_compile_name_line(column) for column in range(33))


def _name_line(column: int) -> re.Pattern[str]:
    """A line whose first token is a name (a string), indented no deeper than ``column``."""
    if column < len(_NAME_LINES):
        return _NAME_LINES[column]
    return _compile_name_line(column)  # deeper than any real suite: left to re's cache
