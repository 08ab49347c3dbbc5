"""A document text that an edit does not copy: ``PieceText``, and the regex helpers that read it.

A keystroke in a 10 MB suite used to build the whole new ``str`` on the event loop (``text[:a] +
new + text[b:]``: with one emoji in the file that is a 40 MB UCS-4 string, copied several times,
about 40 ms), before the completion request that follows could be read. A ``PieceText`` is the new
version as pieces of the earlier texts and of the inserted strings: an edit costs O(pieces), a
slice reads only the pieces it covers, and the ``str`` is built once, on first use of ``.text``
(by the analysis, on a worker thread), then shared by every reader.

Readers that only need the text around a position (the completion context, a local re-parse, the
line index) take a ``Text`` — a ``str`` or a ``PieceText`` — and use ``text[i]``, ``text[a:b]``,
``len(text)`` and the helpers below for regular expressions, which run on a window sliced out of
a ``PieceText`` (a ``str`` is searched in place, exactly as before).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from typing import TypeAlias, overload

# Inserted pieces shorter than this are merged with an inserted neighbour (typing a word makes one
# piece, not one per letter); longer ones are kept as they are.
_MERGE_LIMIT = 4096
# Code points copied per step when the whole text is built (about 1 MB of a UCS-4 string).
_BUILD_CHUNK = 1 << 18
# Windows read by the forward searches below, growing geometrically.
_WINDOW = 4096


class PieceText:
    """An immutable text: pieces ``source[start:end]`` of earlier texts and inserted strings, or,
    once built (``.text``), one ``str``. Thread-safe: the ``str`` is built once, under a lock."""

    __slots__ = ("_pieces", "_offsets", "_length", "_ascii", "_text", "_lock")

    def __init__(self, pieces: tuple[tuple[str, int, int], ...], ascii_only: bool) -> None:
        self._pieces: tuple[tuple[str, int, int], ...] | None = pieces
        offsets, total = [], 0
        for _source, start, end in pieces:
            offsets.append(total)
            total += end - start
        self._offsets = offsets  # where each piece starts in this text
        self._length = total
        self._ascii = ascii_only
        self._text: str | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, text: str | PieceText) -> PieceText:
        if isinstance(text, PieceText):
            return text
        view = cls(((text, 0, len(text)),) if text else (), text.isascii())
        view._text = text
        return view

    # -- reading ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, key: int) -> str: ...
    @overload
    def __getitem__(self, key: slice) -> str: ...
    def __getitem__(self, key: int | slice) -> str:
        text = self._text
        if text is not None:
            return text[key]
        if isinstance(key, slice):
            start, stop, step = key.indices(self._length)
            if step != 1:
                return self.text[key]
            return self._slice(start, stop)
        if key < 0:
            key += self._length
        if not 0 <= key < self._length:
            raise IndexError("text index out of range")
        return self._slice(key, key + 1)

    def _slice(self, start: int, stop: int) -> str:
        pieces = self._pieces
        if pieces is None:  # built by another thread meanwhile (pieces are dropped after)
            return self.text[start:stop]
        if stop <= start:
            return ""
        offsets = self._offsets
        index = bisect_right(offsets, start) - 1
        parts = []
        while index < len(pieces) and offsets[index] < stop:
            source, begin, end = pieces[index]
            at = offsets[index]
            parts.append(source[begin + max(start - at, 0) : begin + min(stop - at, end - begin)])
            index += 1
        return parts[0] if len(parts) == 1 else "".join(parts)

    @property
    def text(self) -> str:
        """The whole text as one ``str``: built on first use (once), then kept."""
        text = self._text
        if text is None:
            with self._lock:
                text = self._text
                if text is None:
                    text = _build(self._pieces or ())
                    self._text = text
                    self._pieces = None  # release the earlier texts the pieces held
        return text

    @property
    def built(self) -> bool:
        """True once the ``str`` exists (reading ``.text`` then costs nothing)."""
        return self._text is not None

    def isascii(self) -> bool:
        """True when every character is ASCII; may say False for an ASCII text made from pieces
        of a non-ASCII one (callers use it for a fast path only)."""
        return self._ascii

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        state = "built" if self._text is not None else f"{len(self._pieces or ())} pieces"
        return f"PieceText({self._length} chars, {state})"

    def matches(self, pattern: re.Pattern[str], reach: int) -> bool:
        """Whether ``pattern`` matches anywhere, reading the pieces in place (no copy of the
        text): each piece, then a window around each boundary between two pieces. Exact for a
        pattern whose matches are at most ``reach`` long and that does not look outside them."""
        text = self._text
        pieces = self._pieces if text is None else None
        if pieces is None:
            return pattern.search(self.text) is not None
        if any(pattern.search(source, begin, end) for source, begin, end in pieces):
            return True
        return any(
            pattern.search(self._slice(max(0, offset - reach), offset + reach))
            for offset in self._offsets[1:]
        )

    # -- editing ---------------------------------------------------------------------------------

    def replaced(self, start: int, end: int, new: str) -> PieceText:
        """This text with ``[start, end)`` replaced by ``new`` (offsets clamped to the text)."""
        start = max(0, min(start, self._length))
        end = max(start, min(end, self._length))
        text = self._text
        pieces = ((text, 0, len(text)),) if text is not None else self._pieces
        if pieces is None:  # built meanwhile
            text = self.text
            pieces = ((text, 0, len(text)),)
        before: list[tuple[str, int, int]] = []
        after: list[tuple[str, int, int]] = []
        offset = 0
        for source, begin, stop in pieces:
            size = stop - begin
            if offset < start:
                before.append((source, begin, begin + min(size, start - offset)))
            if offset + size > end:
                after.append((source, begin + max(0, end - offset), stop))
            offset += size
        middle = [(new, 0, len(new))] if new else []
        joined = _merge_small(before + middle + after)
        return PieceText(tuple(joined), self._ascii and new.isascii())


def _build(pieces: tuple[tuple[str, int, int], ...]) -> str:
    """The pieces as one ``str``, appended a chunk at a time. One ``"".join`` of a 10 MB text is
    a single C call of 40-80 ms (a fresh 40 MB allocation faulted in page by page) holding the
    GIL, during which the event loop cannot answer the completion request that follows the
    keystroke; appending in place (``+=`` on the only reference resizes the string) makes the
    same copies in steps of ``_BUILD_CHUNK``, between which the loop thread gets the GIL."""
    if len(pieces) == 1 and pieces[0][1] == 0 and pieces[0][2] == len(pieces[0][0]):
        return pieces[0][0]
    out = ""
    for source, start, end in pieces:
        for at in range(start, end, _BUILD_CHUNK):
            out += source[at : min(end, at + _BUILD_CHUNK)]
    return out


def _merge_small(pieces: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Neighbouring short pieces become one (each keystroke would add a piece otherwise)."""
    out: list[tuple[str, int, int]] = []
    for piece in pieces:
        if piece[2] <= piece[1]:
            continue
        if out and piece[2] - piece[1] < _MERGE_LIMIT and out[-1][2] - out[-1][1] < _MERGE_LIMIT:
            source, begin, end = out[-1]
            merged = source[begin:end] + piece[0][piece[1] : piece[2]]
            out[-1] = (merged, 0, len(merged))
        else:
            out.append(piece)
    return out


Text: TypeAlias = "str | PieceText"


def as_str(text: Text) -> str:
    """The whole text as a ``str`` (builds a ``PieceText``'s once)."""
    return text if isinstance(text, str) else text.text


# -- regular expressions on a ``Text`` ---------------------------------------------------------
# A ``str`` is searched in place. A ``PieceText`` is searched in ``text[pos:endpos]``, so these are
# exact only for patterns that do not look outside the span they are given (no lookbehind, no
# ``^``/``\b`` at ``pos``); every pattern passed here is of that kind.


class Found:
    """A match moved back to offsets of the whole text (what ``re.Match`` gives for a ``str``)."""

    __slots__ = ("_match", "_shift")

    def __init__(self, match: re.Match[str], shift: int) -> None:
        self._match = match
        self._shift = shift

    def start(self) -> int:
        return self._match.start() + self._shift

    def end(self) -> int:
        return self._match.end() + self._shift

    def span(self) -> tuple[int, int]:
        return self.start(), self.end()

    def group(self) -> str:
        return self._match.group()


def search(pattern: re.Pattern[str], text: Text, pos: int, endpos: int) -> re.Match[str] | Found | None:
    if isinstance(text, str):
        return pattern.search(text, pos, endpos)
    found = pattern.search(text[pos:endpos])
    return None if found is None else Found(found, pos)


def finditer(pattern: re.Pattern[str], text: Text, pos: int, endpos: int) -> list[re.Match[str] | Found]:
    if isinstance(text, str):
        return list(pattern.finditer(text, pos, endpos))
    return [Found(found, pos) for found in pattern.finditer(text[pos:endpos])]


def search_forward(pattern: re.Pattern[str], text: Text, pos: int) -> re.Match[str] | Found | None:
    """The first match at or after ``pos``, reading a ``PieceText`` in growing windows (only for
    a pattern whose matches are single characters, so no match straddles two windows)."""
    if isinstance(text, str):
        return pattern.search(text, pos)
    size = _WINDOW
    while pos < len(text):
        found = search(pattern, text, pos, min(len(text), pos + size))
        if found is not None:
            return found
        pos += size
        size *= 2
    return None


def match_run(pattern: re.Pattern[str], text: Text, pos: int) -> int:
    """The end of the match of ``pattern`` (a run of characters of one class, ``[…]*``) at
    ``pos``."""
    if isinstance(text, str):
        found = pattern.match(text, pos)
        return found.end() if found is not None else pos
    size = _WINDOW
    while True:
        stop = min(len(text), pos + size)
        found = pattern.match(text[pos:stop])
        end = pos + (found.end() if found is not None else 0)
        if end < stop or stop == len(text):
            return end
        size *= 2
