"""Findings of unchanged cases, reused from one version of a document to the next.

The language server analyses a document on every edit. An edit inside one case of a suite with
thousands of cases changes that case's text only; every other case yields the same findings, shifted
by however far the edit moved it. A case's findings depend on its own text, its index (messages and
pointers name it) and the file-system facts (existence checks), so that is the key. Keys hold a hash
of the case text rather than the text, so the cache does not keep whole document versions alive.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from ..findings import Finding, Related

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
    findings: tuple[Finding, ...]  # offsets relative to the case's first character
    facts: CaseFacts
    # Where the case stood when last asked for, and its findings there: a case the edit did not
    # move (every case before it) gets these very objects back, no finding rebuilt.
    placed_at: int = -1
    placed: tuple[Finding, ...] = ()


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

    def get(self, key: CaseKey, base: int) -> tuple[tuple[Finding, ...], CaseFacts] | None:
        """The findings of the case of ``key`` at ``base`` (shared: not to be changed) and its
        facts, or None."""
        with self._lock:
            cached = self._entries.get(key)
            if cached is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            if cached.placed_at != base:
                # Moved by an edit (or asked for the first time): rebuilt at its new offset once.
                self.shifted += len(cached.findings)
                cached.placed = tuple(_shift(f, base) for f in cached.findings)
                cached.placed_at = base
            placed = cached.placed
        return placed, cached.facts

    def put(self, key: CaseKey, findings: list[Finding], base: int, facts: CaseFacts) -> None:
        entry = CachedCase(tuple(_shift(f, -base) for f in findings), facts, base, tuple(findings))
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


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
