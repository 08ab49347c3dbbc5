"""The line starts of a text, in blocks that an edit does not copy: ``LineStarts``.

A 10 MB suite has about 400,000 lines. Rebuilding the list of line starts after every keystroke
(shifting every start after the edit) took 10-15 ms of each ``didChange``. Here the starts are
kept in blocks of about ``BLOCK`` lines, each with a shift added when read: an edit rebuilds the
blocks around it and moves the shift of every later block, O(lines / BLOCK + lines edited); every
other block is shared with the previous version (the structure is immutable).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator

BLOCK = 512


class LineStarts:
    """Ascending code-point offsets of line starts (the first is 0). Immutable."""

    __slots__ = ("_blocks", "_shifts", "_heads", "_firsts", "_count")

    def __init__(self, blocks: list[list[int]], shifts: list[int], firsts: list[int], count: int) -> None:
        # Block k holds the starts ``s + _shifts[k]`` for ``s`` in ``_blocks[k]`` (never empty);
        # ``_heads[k]`` is its first start, ``_firsts[k]`` the number of lines before it.
        self._blocks = blocks
        self._shifts = shifts
        self._heads = [block[0] + shift for block, shift in zip(blocks, shifts, strict=True)]
        self._firsts = firsts
        self._count = count

    @classmethod
    def of(cls, starts: list[int]) -> LineStarts:
        blocks = [starts[at : at + BLOCK] for at in range(0, len(starts), BLOCK)]
        return cls(blocks, [0] * len(blocks), list(range(0, len(starts), BLOCK)), len(starts))

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, line: int) -> int:
        if line < 0:
            line += self._count
        if not 0 <= line < self._count:
            raise IndexError("line out of range")
        block = bisect_right(self._firsts, line) - 1
        return self._blocks[block][line - self._firsts[block]] + self._shifts[block]

    def __iter__(self) -> Iterator[int]:
        for block, shift in zip(self._blocks, self._shifts, strict=True):
            yield from (start + shift for start in block)

    def to_list(self) -> list[int]:
        return list(self)

    def line_of(self, offset: int) -> int:
        """The line holding ``offset`` (``offset`` >= 0)."""
        block = max(bisect_right(self._heads, offset) - 1, 0)
        within = bisect_right(self._blocks[block], offset - self._shifts[block]) - 1
        return self._firsts[block] + within

    def locate(self, offset: int) -> tuple[int, int]:
        """The line holding ``offset`` (>= 0) and that line's start, in one lookup."""
        block = max(bisect_right(self._heads, offset) - 1, 0)
        shift = self._shifts[block]
        starts = self._blocks[block]
        within = bisect_right(starts, offset - shift) - 1
        return self._firsts[block] + within, starts[within] + shift

    def replaced(self, first: int, stop: int, middle: list[int], delta: int) -> LineStarts:
        """The starts with lines ``[first, stop)`` replaced by ``middle`` (absolute offsets) and
        every line from ``stop`` on moved by ``delta``. ``first`` >= 1: line 0 always starts at 0."""
        low = bisect_right(self._firsts, first - 1) - 1  # the block holding line first - 1
        last_line = min(stop, self._count - 1)
        high = bisect_right(self._firsts, last_line) - 1  # the block holding line stop (or the last)
        begin = self._firsts[low]
        end = self._firsts[high] + len(self._blocks[high])
        rebuilt = [self[line] for line in range(begin, first)]
        rebuilt += middle
        rebuilt += [self[line] + delta for line in range(stop, end)]
        if len(rebuilt) <= 2 * BLOCK:
            pieces = [rebuilt]
        else:
            pieces = [rebuilt[at : at + BLOCK] for at in range(0, len(rebuilt), BLOCK)]
        firsts = self._firsts[: low + 1]
        for piece in pieces[:-1]:
            firsts.append(firsts[-1] + len(piece))
        line_delta = len(middle) - (stop - first)
        firsts += [line + line_delta for line in self._firsts[high + 1 :]]
        return LineStarts(
            self._blocks[:low] + pieces + self._blocks[high + 1 :],
            self._shifts[:low] + [0] * len(pieces) + [shift + delta for shift in self._shifts[high + 1 :]],
            firsts,
            self._count + line_delta,
        )
