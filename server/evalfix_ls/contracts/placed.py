"""An analysis' findings in order, with the cases the case cache answered kept as blocks.

A keystroke in a suite of thousands of cases moves every case after it. Rebuilding their findings
at the new offsets, then sorting, filtering, converting, fingerprinting and encoding all of them
again cost the keystroke in proportion to the findings after the edit, not to the edit. Here a
cached case stays one block (its findings relative to the case, ``PlacedCase``) in the ordered
list; the language server converts and encodes such a block from what it kept of it, and a
consumer that wants absolute findings gets them built once (``PlacedFindings.findings``).

The order is exactly the one stable sort of every finding by ``SORT_KEY`` would give: the blocks
are pre-sorted, the other findings sorted, and merged; where a finding of a block ties with
another (same start and code), the order would depend on where the rules produced them, and the
caller sorts everything instead (``ordered`` returns None).
"""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from ..findings import Finding
from ..parser.intact import IntactView
from .case_cache import PlacedCase

Piece = Finding | PlacedCase


class PlacedFindings:
    """The ordered findings as pieces: single findings and (parts of) cached cases."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: list[Piece]) -> None:
        self.pieces = pieces

    def findings(self) -> list[Finding]:
        """Every finding, absolute (the blocks' rebuilt at their cases' offsets)."""
        out: list[Finding] = []
        for piece in self.pieces:
            if isinstance(piece, Finding):
                out.append(piece)
            else:
                out.extend(piece.findings())
        return out


def ordered(loose: Sequence[Finding], blocks: Sequence[PlacedCase]) -> list[Piece] | None:
    """``loose`` (sorted by ``SORT_KEY``) and the ``blocks`` (in document order, none empty)
    merged in order, a block split where other findings fall inside it; None when a finding of a
    block ties with another one, or two blocks interleave."""
    out: list[Piece] = []
    at, count = 0, len(loose)
    # The next other finding's key (start, code); past the last one, a key after every block's.
    after_all = (sys.maxsize, "")
    upcoming = (loose[0].start, loose[0].code) if count else after_all
    last_of_previous: tuple[int, str] | None = None
    for block in blocks:
        keys, base = block.entry.keys, block.base
        first, last = (base + keys[0][0], keys[0][1]), (base + keys[-1][0], keys[-1][1])
        if last_of_previous is not None and first <= last_of_previous:
            return None
        last_of_previous = last
        while upcoming < first:
            out.append(loose[at])
            at += 1
            upcoming = (loose[at].start, loose[at].code) if at < count else after_all
        lo = 0
        while upcoming <= last:
            relative = (upcoming[0] - base, upcoming[1])
            split = bisect_left(keys, relative)
            if keys[split] == relative:
                return None
            if split > lo:
                out.append(block.part(lo, split))
            out.append(loose[at])
            at, lo = at + 1, split
            upcoming = (loose[at].start, loose[at].code) if at < count else after_all
        out.append(block if lo == 0 else block.part(lo, len(keys)))
    out.extend(loose[at:])
    return out


def unplaced(
    findings: list[Finding], placed: list[tuple[int, PlacedCase]], view: IntactView | None
) -> tuple[list[Finding], list[tuple[int, PlacedCase]]]:
    """The contract's findings with the blocks that cannot stay blocks put back in at their places
    (those that do not lie inside one intact part of a broken document: filtered finding by
    finding), and the blocks kept, each with its place in that list. Empty blocks go."""
    out: list[Finding] = []
    kept: list[tuple[int, PlacedCase]] = []
    inside = _Inside(view) if view is not None else None
    done = 0
    for at, block in placed:
        if at != done:
            out.extend(findings[done:at])
            done = at
        if not block.entry.findings:
            continue
        if inside is None or inside(block):
            kept.append((len(out), block))
        else:
            out.extend(block.findings())
    out.extend(findings[done:])
    return out, kept


def inserted(findings: list[Finding], kept: list[tuple[int, PlacedCase]]) -> list[Finding]:
    """``findings`` with the blocks' findings put back in at their places (not sorted)."""
    out: list[Finding] = []
    done = 0
    for at, block in kept:
        out.extend(findings[done:at])
        out.extend(block.findings())
        done = at
    out.extend(findings[done:])
    return out


class _Inside:
    """Does every finding of a block (and every related place of this document) lie inside the
    one intact part its first finding starts in, as ``analysis._covered`` checks finding by
    finding? (The next part must start after all of them: ``_covered`` would match a finding
    starting where it begins against it.)"""

    def __init__(self, view: IntactView) -> None:
        self.spans = view.spans
        self.starts = [start for start, _end in view.spans]

    def __call__(self, block: PlacedCase) -> bool:
        low, high = block.base + block.entry.low, block.base + block.entry.high
        spans = self.spans
        index = bisect_right(self.starts, low) - 1
        if index < 0 or high > spans[index][1]:
            return False
        return index + 1 == len(spans) or spans[index + 1][0] > high
