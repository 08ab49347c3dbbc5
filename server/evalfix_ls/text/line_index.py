"""The line index: code-point offsets ↔ LSP positions in UTF-8, UTF-16 or UTF-32 units (the text
snapshots it indexes are ``lsp/session/documents.py``'s ``Snapshot``).

LSP counts lines on ``\\n``, ``\\r\\n`` and ``\\r`` only. Python's ``str.splitlines()`` also splits on
U+2028, U+2029, U+0085 and others that are legal inside JSON strings, so the index is built here with
a pattern of exactly the three LSP line breaks.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from enum import Enum

from .line_starts import LineStarts
from .pieces import Text, as_str

# CRLF, CR or LF: the line breaks LSP positions count (services/fixes/edits.py reads a document's
# line ending with it too)
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_AFTER_LINE_BREAK = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


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


# Positions on a long line are converted through checkpoints every ``BLOCK`` code points (the code
# units of the text before each, per encoding, built on first use): a conversion then scans at most
# about two blocks instead of the line up to the offset, so a one-line (minified) suite with many
# findings costs linear time, not quadratic.
BLOCK = 1024


def text_lines(text: str, *, keepends: bool = False) -> list[str]:
    """The lines of ``text`` as ``LineIndex`` and an LSP client count them: only ``\n``, ``\r\n``
    and ``\r`` end a line (``str.splitlines`` also splits at form feeds, ``\x1c``–``\x1e``,
    ``\x85``, U+2028 and U+2029 — raw inside a JSON string — so its line numbers drift). Without
    ``keepends`` a text ending with a break ends with an empty line; with it, the lines join back
    to ``text``."""
    if keepends:
        return [line for line in _AFTER_LINE_BREAK.split(text) if line]
    return LINE_BREAK.split(text)


class LineIndex:
    """Line starts of one text version; converts between offsets and (line, character).

    ``text`` may be a ``PieceText`` (an edited version whose ``str`` is not built yet): positions
    are then converted from slices of the lines involved, never from the whole text, except on a
    line longer than ``BLOCK`` (a minified file), which reads the text's checkpoints."""

    __slots__ = ("text", "_starts", "_ascii", "_checkpoints")

    def __init__(self, text: Text) -> None:
        ends = [m.end() for m in LINE_BREAK.finditer(as_str(text))]
        self._reset(text, LineStarts.of([0, *ends]))

    @classmethod
    def with_starts(cls, text: Text, starts: list[int] | LineStarts) -> LineIndex:
        """An index of ``text`` whose line starts the caller already knows (e.g. spliced after an
        edit)."""
        index = object.__new__(cls)
        index._reset(text, starts if isinstance(starts, LineStarts) else LineStarts.of(starts))
        return index

    def _reset(self, text: Text, starts: LineStarts) -> None:
        self.text = text
        self._starts = starts
        self._ascii = text.isascii()
        self._checkpoints: dict[Encoding, list[int]] = {}

    def _read(self) -> Text:
        """The text to slice: once a ``PieceText`` is built, its ``str`` (kept from then on)."""
        text = self.text
        if not isinstance(text, str) and text.built:
            text = self.text = text.text
        return text

    @property
    def starts(self) -> list[int]:
        """Every line start, as a list (built: O(lines))."""
        return self._starts.to_list()

    @property
    def line_starts(self) -> LineStarts:
        return self._starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        return self._starts[line]

    def line_of(self, offset: int) -> int:
        return self._starts.line_of(max(offset, 0))

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``'s content (before its line break)."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1]
            if end >= 2 and self._read()[end - 2 : end] == "\r\n":
                return end - 2
            return end - 1
        return len(self.text)

    def position(self, offset: int, encoding: Encoding = Encoding.UTF16) -> tuple[int, int]:
        """(line, character) of a code-point ``offset``, clamped to the text."""
        text = self._read()
        offset = max(0, min(offset, len(text)))
        line, start = self._starts.locate(offset)
        if self._ascii or encoding is Encoding.UTF32:
            return line, offset - start
        if offset - start <= BLOCK:
            return line, unit_length(text[start:offset], encoding)
        return line, self._units_before(offset, encoding) - self._units_before(start, encoding)

    def positions(self, offsets: Iterable[int], encoding: Encoding = Encoding.UTF16) -> list[tuple[int, int]]:
        """``position`` of each offset, in one pass: the answers of thousands of ranges (the symbols
        of a 10 MB suite) pay the lookups, not a call chain per offset."""
        text = self._read()
        size = len(text)
        locate = self._starts.locate
        units_only = self._ascii or encoding is Encoding.UTF32
        out = []
        for offset in offsets:
            offset = 0 if offset < 0 else size if offset > size else offset
            line, start = locate(offset)
            if units_only:
                out.append((line, offset - start))
            elif offset - start <= BLOCK:
                segment = text[start:offset]
                out.append((line, len(segment) if segment.isascii() else unit_length(segment, encoding)))
            else:
                out.append(self.position(offset, encoding))
        return out

    def offset(self, line: int, character: int, encoding: Encoding = Encoding.UTF16) -> int:
        """Code-point offset of an LSP position. A line past the end maps to the end of the text;
        a character past the end of its line maps to the line end (as LSP requires)."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self.text)
        start = self._starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        if self._ascii or encoding is Encoding.UTF32:
            return min(start + character, end)
        if end - start <= BLOCK:
            return start + scan_units(self._read()[start:end], 0, end - start, 0, character, encoding)
        # Jump to the last checkpoint at or before the target, then scan at most one block.
        table = self._table(encoding)
        base = self._units_before(start, encoding)
        block = max(bisect_right(table, base + character) - 1, start // BLOCK)
        origin = max(block * BLOCK, start)
        units = self._units_before(origin, encoding) - base
        return scan_units(as_str(self.text), origin, end, units, character, encoding)

    def _units_before(self, offset: int, encoding: Encoding) -> int:
        """Code units of ``text[:offset]``: the checkpoint below it plus at most one block."""
        block = offset // BLOCK
        origin = block * BLOCK
        return self._table(encoding)[block] + unit_length(self._read()[origin:offset], encoding)

    def _table(self, encoding: Encoding) -> list[int]:
        """``table[k]`` = code units of ``text[: k * BLOCK]``, for every ``k * BLOCK <= len(text)``."""
        table = self._checkpoints.get(encoding)
        if table is None:
            text = as_str(self.text)
            table = [0]
            for origin in range(0, len(text) - BLOCK + 1, BLOCK):
                table.append(table[-1] + unit_length(text[origin : origin + BLOCK], encoding))
            self._checkpoints[encoding] = table
        return table


def scan_units(text: str, origin: int, end: int, units: int, character: int, encoding: Encoding) -> int:
    """The offset in ``text[origin:end]`` where ``character`` code units are reached, counting from
    ``units`` at ``origin``; inside a multi-unit character, its start; past ``end``, ``end``."""
    for index in range(origin, end):
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
