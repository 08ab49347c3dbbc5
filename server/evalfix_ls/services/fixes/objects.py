"""Rewriting a JSON object member by member in its own layout: the object's opening and closing
whitespace kept verbatim, members one per line (with the object's indentation) or on one line
(with its separators), and every value written as its original text unless replaced.

The migration rebuilds the few objects it changes with this; everything else is left as it was,
and each rewritten object's edit is narrowed to the characters that differ (``edits.trimmed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...parser.tree import Member, Node
from ...parser.values import valued_members
from ...text.line_index import text_lines
from .edits import Layout, json_text, line_indentation


@dataclass(frozen=True, slots=True)
class ObjectStyle:
    opening: str  # between "{" and the first member
    separator: str  # between two members (", " or ",\n    ")
    closing: str  # between the last member and "}"
    colon: str  # between a key and its value
    indent: str  # the members' indentation ("" on one line)

    @property
    def multiline(self) -> bool:
        return "\n" in self.separator or "\r" in self.separator


def style_of(text: str, obj: Node, layout: Layout) -> ObjectStyle:
    """How ``obj`` is written (a one-member or empty object on several lines counts as one member
    per line)."""
    members = valued_members(obj)
    if not members:
        return ObjectStyle("", ", ", "", ": ", "")
    first, first_value = members[0]
    last_value = members[-1][1]
    opening = text[obj.start + 1 : first.key_start]
    closing = text[last_value.end : obj.end - 1]
    colon = text[first.key_end : first_value.start]
    if "\n" in colon or "\r" in colon:
        colon = ": "
    if len(members) > 1:
        between = text[first_value.end : members[1][0].key_start]
    else:
        between = ", " if "\n" not in opening and "\r" not in opening else "," + layout.newline
    if "\n" in between or "\r" in between:
        indent = line_indentation(text, members[1][0].key_start if len(members) > 1 else first.key_start)
        return ObjectStyle(opening, "," + layout.newline + indent, closing, colon, indent)
    return ObjectStyle(opening, between, closing, colon, "")


def nested_style(parent: ObjectStyle, layout: Layout) -> ObjectStyle:
    """The style of a new object written as a member value of an object in ``parent``'s style."""
    if not parent.multiline:
        return ObjectStyle("", ", ", "", parent.colon, "")
    inner = parent.indent + layout.indent_unit
    return ObjectStyle(
        layout.newline + inner,
        "," + layout.newline + inner,
        layout.newline + parent.indent,
        parent.colon,
        inner,
    )


@dataclass(frozen=True, slots=True)
class Entry:
    """One member to write: its key as text (the original, escapes and all, or a new name) and
    its value as text."""

    key: str
    value: str

    @classmethod
    def named(cls, name: str, value: str) -> Entry:
        return cls(json_text(name), value)

    @classmethod
    def original(cls, text: str, member: Member, value: str | None = None) -> Entry:
        """``member`` as written, its value replaced by ``value`` when given (``null`` for a member
        recovery found no value for: migrations and fixes run on text that parses, where every
        member has one)."""
        key = text[member.key_start : member.key_end]
        if value is None:
            written = member.value
            value = "null" if written is None else text[written.start : written.end]
        return cls(key, value)


def render(entries: Sequence[Entry], style: ObjectStyle) -> str:
    if not entries:
        return "{}"
    body = style.separator.join(f"{entry.key}{style.colon}{entry.value}" for entry in entries)
    return "{" + style.opening + body + style.closing + "}"


def reindent(value: str, from_indent: str, to_indent: str) -> str:
    """A (multi-line) value moved from one indentation to another: every continuation line that
    starts with ``from_indent`` gets ``to_indent`` instead. JSON strings hold no raw line breaks,
    so only the whitespace between tokens changes."""
    if from_indent == to_indent or ("\n" not in value and "\r" not in value):
        return value
    lines = text_lines(value, keepends=True)
    out = [lines[0]]
    for line in lines[1:]:
        out.append(to_indent + line[len(from_indent) :] if line.startswith(from_indent) else line)
    return "".join(out)
