"""Findings of unchanged cases, reused from one version of a document to the next.

The language server analyses a document on every edit. An edit inside one case of a suite with
thousands of cases changes that case's text only; every other case yields the same findings, shifted
by however far the edit moved it. A case's findings depend on its own text, its index (messages and
pointers name it) and the file-system facts (existence checks), so that is the key. Keys hold a hash
of the case text rather than the text, so the cache does not keep whole document versions alive.

A hit is not rebuilt at the case's new offset: ``get`` answers a ``PlacedCase`` (the relative
findings and where the case now starts), which the analysis keeps as one block
(``contracts/placed.py``) and the language server converts per case; absolute findings are built
(``CaseCache.placed``, counted in ``shifted``) only for a consumer that asks for them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from ..findings import SORT_KEY, Finding, Related

CaseKey = tuple[Hashable, ...]


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What the rules learnt of a case besides its findings, for the rules that follow it: how many
    of its findings stand for loader issues, and its id (kind, value, start and end relative to the
    case) when the id is one the later rules compare, with what they compare of it (``String(id)``
    and its artifact folder), so a case the cache answers costs them no conversion."""

    loader_issues: int
    id: tuple[str, object, int, int] | None
    id_string: str | None = None
    folder: str | None = None


@dataclass(slots=True)
class CachedCase:
    """One case's findings, relative to the case's first character, in the order the analysis
    sorts them (by ``SORT_KEY``, stably: ties keep the order the rules gave them)."""

    findings: tuple[Finding, ...]
    facts: CaseFacts
    # The relative span every finding and every related place of this document lies in: whether a
    # moved case is still inside one intact part of a broken document is one comparison.
    low: int = 0
    high: int = 0
    # Each finding's (start, code), the order's key: where another finding falls among them.
    keys: tuple[tuple[int, str], ...] = ()
    # Where the case stood when its findings were last materialised, and them there: a case the
    # edit did not move (every case before it) gets these very objects back, no finding rebuilt.
    placed_at: int = -1
    placed: tuple[Finding, ...] = ()


@dataclass(frozen=True, slots=True)
class PlacedCase:
    """A cached case's findings ``lo:hi`` where the case now starts (``base``), not rebuilt: the
    language server converts and encodes a moved case from its relative findings, and only a
    consumer that asks for absolute findings (``findings()``) has them rebuilt."""

    entry: CachedCase
    base: int
    cache: CaseCache
    lo: int = 0
    hi: int = -1  # -1: to the end

    @property
    def stop(self) -> int:
        return len(self.entry.findings) if self.hi < 0 else self.hi

    def part(self, lo: int, hi: int) -> PlacedCase:
        return PlacedCase(self.entry, self.base, self.cache, lo, hi)

    def findings(self) -> tuple[Finding, ...]:
        """The findings ``lo:hi`` at the case's offset (shared: not to be changed)."""
        placed = self.cache.placed(self.entry, self.base)
        return placed if self.lo == 0 and self.hi < 0 else placed[self.lo : self.stop]


class CaseCache:
    """A bounded, thread-safe LRU map from case keys to relative findings."""

    def __init__(self, max_entries: int = 50_000) -> None:
        self._entries: OrderedDict[CaseKey, CachedCase] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries
        self.hits = 0
        self.misses = 0
        self.shifted = 0  # findings rebuilt at a new offset (work that grows with the moved cases)

    @staticmethod
    def key(text: str, start: int, end: int, *context: Hashable) -> CaseKey:
        piece = text[start:end]
        return (end - start, hash(piece), *context)

    def get(self, key: CaseKey, base: int) -> tuple[PlacedCase, CaseFacts] | None:
        """The findings of the case of ``key`` placed at ``base`` (not rebuilt there until asked
        for) and its facts, or None."""
        with self._lock:
            cached = self._entries.get(key)
            if cached is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
        return PlacedCase(cached, base, self), cached.facts

    def placed(self, entry: CachedCase, base: int) -> tuple[Finding, ...]:
        """``entry``'s findings at ``base``: rebuilt there once (counted in ``shifted``), the same
        objects while the case stays there."""
        with self._lock:
            if entry.placed_at != base:
                self.shifted += len(entry.findings)
                entry.placed = tuple(_shift(f, base) for f in entry.findings)
                entry.placed_at = base
            return entry.placed

    def put(self, key: CaseKey, findings: list[Finding], base: int, facts: CaseFacts) -> PlacedCase:
        """Keep the findings of the case of ``key`` (at ``base``); the case's block there."""
        ordered = sorted(findings, key=SORT_KEY)
        relative = tuple(_shift(f, -base) for f in ordered)
        low, high = _extent(relative)
        keys = tuple((f.start, f.code) for f in relative)
        entry = CachedCase(relative, facts, low, high, keys, base, tuple(ordered))
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return PlacedCase(entry, base, self)

    def __len__(self) -> int:
        return len(self._entries)


def _extent(findings: tuple[Finding, ...]) -> tuple[int, int]:
    """The smallest start and the largest end of ``findings`` and of their related places in
    this document."""
    starts = [f.start for f in findings]
    ends = [max(f.start, f.end) for f in findings]
    for finding in findings:
        for related in finding.related:
            if related.path is None:
                starts.append(related.start)
                ends.append(max(related.start, related.end))
    return (min(starts), max(ends)) if starts else (0, 0)


def _shift(finding: Finding, delta: int) -> Finding:
    if delta == 0:
        return finding
    related = finding.related
    if related:
        related = tuple(
            r if r.path is not None else Related(r.message, r.start + delta, r.end + delta, r.path)
            for r in related
        )
    # The constructor, not dataclasses.replace: a keystroke shifts the findings of every case
    # after the edit, and replace's generic field walk cost most of the cache's time.
    return Finding(
        finding.code,
        finding.severity,
        finding.message,
        finding.pointer,
        finding.start + delta,
        finding.end + delta,
        finding.case,
        finding.data,
        related,
    )
