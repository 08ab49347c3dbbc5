"""How layout recovery reads a line: where it starts and how deeply it is indented (spaces and
tabs; only CR and LF break lines, as in JSON)."""

from __future__ import annotations

import re

_INDENT = re.compile(r"[ \t]*")


def line_start(text: str, offset: int) -> int:
    """The start of the line holding ``offset``."""
    newline = text.rfind("\n", 0, offset)
    return max(newline, text.rfind("\r", newline + 1, offset)) + 1  # never scans past the line


def line_indent(text: str, offset: int) -> int:
    """The indentation (spaces and tabs) of the line holding ``offset``, as layout recovery reads it."""
    return line_and_indent(text, offset)[1]


def line_and_indent(text: str, offset: int) -> tuple[int, int]:
    """(start of the line holding ``offset``, its indentation)."""
    line = line_start(text, offset)
    indent = _INDENT.match(text, line)  # matches always (maybe nothing)
    return line, (indent.end() if indent is not None else line) - line


def starts_line_within(text: str, start: int, opener: int, shallower_by: int) -> bool:
    """Is the token at ``start`` the first on its line, on a later line than ``opener``, and
    indented at least ``shallower_by`` columns less deep than the line ``opener`` is on?"""
    line, indent = line_and_indent(text, start)
    if line <= opener or line + indent != start:
        return False
    return indent + shallower_by <= line_indent(text, opener)
