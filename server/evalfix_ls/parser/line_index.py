"""Text snapshots and the line index: offsets ↔ LSP positions in UTF-8, UTF-16 or UTF-32 units.

LSP counts lines on ``\\n``, ``\\r\\n`` and ``\\r`` only. Python's ``str.splitlines()`` also splits on
U+2028, U+2029, U+0085 and others that are legal inside JSON strings, so the index is built here with
a pattern of exactly the three LSP line breaks.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from enum import Enum

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Encoding(str, Enum):
    """Position encodings as LSP names them (``general.positionEncodings``)."""

    UTF8 = "utf-8"
    UTF16 = "utf-16"
    UTF32 = "utf-32"


def unit_length(segment: str, encoding: Encoding) -> int:
    """Length of ``segment`` in code units of ``encoding`` (lone surrogates count as one unit)."""
    if encoding is Encoding.UTF32:
        return len(segment)
    if segment.isascii():
        return len(segment)
    if encoding is Encoding.UTF16:
        return len(segment.encode("utf-16-le", "surrogatepass")) // 2
    return len(segment.encode("utf-8", "surrogatepass"))


class LineIndex:
    """Line starts of one text version; converts between offsets and (line, character)."""

    __slots__ = ("text", "starts", "_ascii")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        self._ascii = text.isascii()

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``'s content (before its line break)."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1]
            text = self.text
            if end >= 2 and text[end - 2 : end] == "\r\n":
                return end - 2
            return end - 1
        return len(self.text)

    def position(self, offset: int, encoding: Encoding = Encoding.UTF16) -> tuple[int, int]:
        """(line, character) of a code-point ``offset``, clamped to the text."""
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        start = self.starts[line]
        if self._ascii or encoding is Encoding.UTF32:
            return line, offset - start
        return line, unit_length(self.text[start:offset], encoding)

    def offset(self, line: int, character: int, encoding: Encoding = Encoding.UTF16) -> int:
        """Code-point offset of an LSP position. A line past the end maps to the end of the text;
        a character past the end of its line maps to the line end (as LSP requires)."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        if self._ascii or encoding is Encoding.UTF32:
            return min(start + character, end)
        units = 0
        text = self.text
        for index in range(start, end):
            if units >= character:
                return index
            code = ord(text[index])
            if encoding is Encoding.UTF16:
                units += 2 if code > 0xFFFF else 1
            else:
                units += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
            if units > character:  # inside a multi-unit character: snap to its start
                return index
        return end
