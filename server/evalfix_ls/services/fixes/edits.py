"""Minimal text edits on a JSON document: replace a value, rename a key, insert or remove a member
or an array item — each touching only the bytes it must, following the document's own layout
(line endings, indentation, ``": "`` and ``", "`` spacing) so the rest stays byte-for-byte.

Offsets are code points into the document text, as everywhere in the core.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...js.values import escape_lone_surrogates
from ...json_value import JsonValue
from ...parser.tree import Member, Node
from ...parser.values import valued_members
from ...text.line_index import LINE_BREAK, text_lines


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``text[start:end]`` by ``new_text`` (an insertion when ``start == end``)."""

    start: int
    end: int
    new_text: str


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (in any order given)."""
    out = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < position:
            raise ValueError(f"overlapping edits at offset {edit.start}")
        out.append(text[position : edit.start])
        out.append(edit.new_text)
        position = edit.end
    out.append(text[position:])
    return "".join(out)


def conflicts(a: TextEdit, b: TextEdit) -> bool:
    """True when applying both is ambiguous: their ranges overlap, or both start at one point
    (two insertions there have no defined order)."""
    return a.start == b.start or (a.start < b.end and b.start < a.end)


class EditSet:
    """Non-overlapping edits kept in order, so that a conflict check looks at two neighbours
    instead of every edit taken so far (fix-all on a 10 MB suite takes thousands)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._edits: list[TextEdit] = []

    def conflicts(self, edit: TextEdit) -> bool:
        at = bisect.bisect_left(self._starts, edit.start)
        neighbours = self._edits[max(at - 1, 0) : at + 1]
        return any(conflicts(edit, other) for other in neighbours)

    def add(self, edit: TextEdit) -> None:
        at = bisect.bisect_left(self._starts, edit.start)
        self._starts.insert(at, edit.start)
        self._edits.insert(at, edit)


def trimmed(old: str, edit: TextEdit) -> TextEdit:
    """``edit`` narrowed to the characters that differ (so an editor keeps cursors and marks in
    the unchanged text of a rewritten object)."""
    start, end, replacement = edit.start, edit.end, edit.new_text
    segment = old[start:end]
    prefix = 0
    limit = min(len(segment), len(replacement))
    while prefix < limit and segment[prefix] == replacement[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and segment[len(segment) - 1 - suffix] == replacement[len(replacement) - 1 - suffix]
    ):
        suffix += 1
    return TextEdit(start + prefix, end - suffix, replacement[prefix : len(replacement) - suffix])


# -- writing JSON values ---------------------------------------------------------------------------


def json_text(value: JsonValue) -> str:
    """``value`` as compact one-line JSON (``{"from": "x"}``); non-ASCII text is written as is, like
    the fixtures themselves (CJK and emoji stay readable); a lone surrogate stays an escape, as
    UTF-8 cannot hold it."""
    return escape_lone_surrogates(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


# -- the document's layout ---------------------------------------------------------------------------

_INDENT = re.compile(r"[ \t]*")


@dataclass(frozen=True, slots=True)
class Layout:
    """How the document is written: its line ending and one level of indentation."""

    newline: str
    indent_unit: str

    @classmethod
    def of(cls, text: str) -> Layout:
        """Read from the document's start (a few KB say it; a 10 MB file is not split in lines)."""
        head = text[:16384]
        # The first line break says (CRLF, LF, or a lone CR: classic Mac files); one past the
        # head, so that a CRLF cut in two is still seen whole.
        first = LINE_BREAK.search(text, 0, len(head) + 1) or LINE_BREAK.search(text)
        newline = first.group() if first is not None else "\n"
        unit = "  "
        for line in text_lines(head)[1:50]:
            lead = _indent_at(line, 0)
            if lead and len(lead) < len(line):
                unit = "\t" if lead.startswith("\t") else " " * min(len(lead), 8)
                break
        return cls(newline, unit)


def line_indentation(text: str, offset: int) -> str:
    """The whitespace that starts the line holding ``offset`` (as text, to write again; the
    parser's ``layout.line_indent`` is its width, for layout recovery)."""
    newline = text.rfind("\n", 0, offset)
    # A lone CR ends a line too; look for one only after the last LF (searching the whole prefix
    # for a CR that a LF-only document never has would make every call O(document)).
    line_start = max(newline, text.rfind("\r", newline + 1, offset)) + 1
    return _indent_at(text, line_start)


def _indent_at(text: str, start: int) -> str:
    """The spaces and tabs from ``start`` on (``_INDENT`` matches everywhere, the empty string
    included)."""
    match = _INDENT.match(text, start)
    return match.group(0) if match is not None else ""


def multiline(text: str, node: Node) -> bool:
    """True when the container spans more than one line."""
    return "\n" in text[node.start : node.end] or "\r" in text[node.start : node.end]


def _member_separator(text: str, obj: Node) -> str:
    """What the object writes between a key and its value (``": "``, ``":"``, ``" : "``)."""
    for member in obj.members or ():
        if member.value is not None:
            between = text[member.key_end : member.value.start]
            if "\n" not in between and "\r" not in between:
                return between
    return ": "


def _item_separator(text: str, items: Sequence[tuple[int, int]]) -> str:
    """What a one-line container writes between two entries (``", "`` or ``","``)."""
    if len(items) >= 2:
        between = text[items[0][1] : items[1][0]]
        if "\n" not in between and "\r" not in between:
            return between
    return ", "


# -- edits -----------------------------------------------------------------------------------------


def replace_node(node: Node, value: JsonValue) -> TextEdit:
    return TextEdit(node.start, node.end, json_text(value))


def rename_key(member: Member, name: str) -> TextEdit:
    return TextEdit(member.key_start, member.key_end, json_text(name))


def insert_member(text: str, obj: Node, name: str, value_text: str, layout: Layout) -> TextEdit:
    """Add ``"name": value`` as the last member of ``obj``, as its siblings are written (one line
    or one member per line, with their indentation and separators)."""
    members = valued_members(obj)
    separator = _member_separator(text, obj)
    entry = f"{json_text(name)}{separator}{value_text}"
    if not members:
        inner = text[obj.start + 1 : obj.end - 1]
        if inner.strip() == "":
            return TextEdit(obj.start + 1, obj.end - 1, entry)
        return TextEdit(obj.start + 1, obj.start + 1, entry)
    last, last_value = members[-1]
    if _starts_own_line(text, obj, members):
        indent = line_indentation(text, last.key_start)
        return TextEdit(last_value.end, last_value.end, f",{layout.newline}{indent}{entry}")
    spans = [(member.key_start, value.end) for member, value in members]
    return TextEdit(last_value.end, last_value.end, f"{_item_separator(text, spans)}{entry}")


def _starts_own_line(text: str, obj: Node, members: Sequence[tuple[Member, Node]]) -> bool:
    """True when the last member begins a line of its own (one member per line)."""
    previous_end = members[-2][1].end if len(members) > 1 else obj.start + 1
    before = text[previous_end : members[-1][0].key_start]
    return "\n" in before or "\r" in before


def _entry_removal(text: str, spans: Sequence[tuple[int, int]], index: int, container: Node) -> TextEdit:
    """Remove entry ``index`` of a container and one adjacent comma, leaving the layout of the
    others as it was."""
    start, end = spans[index]
    if len(spans) == 1:
        return TextEdit(start, end, "")
    if index + 1 < len(spans):  # take everything up to the next entry: its indentation stays
        return TextEdit(start, spans[index + 1][0], "")
    return TextEdit(spans[index - 1][1], end, "")  # the last: the comma before it goes


def remove_member(text: str, obj: Node, member: Member) -> TextEdit:
    members = valued_members(obj)
    spans = [(written.key_start, value.end) for written, value in members]
    return _entry_removal(text, spans, [written for written, _ in members].index(member), obj)


def remove_item(text: str, array: Node, index: int) -> TextEdit:
    spans = [(item.start, item.end) for item in array.items or ()]
    return _entry_removal(text, spans, index, array)


def member_at(obj: Node, key_start: int) -> Member | None:
    """The member of ``obj`` whose name starts at ``key_start`` (any occurrence of a repeated name)."""
    for member in obj.members or ():
        if member.key_start == key_start:
            return member
    return None
