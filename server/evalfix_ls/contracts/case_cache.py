"""Findings of unchanged cases, reused from one version of a document to the next.

The language server analyses a document on every edit. An edit inside one case of a suite with
thousands of cases changes that case's text only; every other case yields the same findings, shifted
by however far the edit moved it. A case's findings depend on its own text, its index (messages and
pointers name it) and the file-system facts (existence checks), so that is the key. Keys hold a hash
of the case text rather than the text, so the cache does not keep whole document versions alive
(only the last text it keyed, which that text's result holds anyway).

Hashing every case's text again on every keystroke reads the whole document (10 MB: a slice and a
hash per case, 7,652 of them). So the cache keeps where each case of the last text it keyed stood
and the hash of its text (``_Layout``); told how the next text was made from that one
(``edited``), a case that lies wholly before or after the edit has the text it had, and its hash
is taken from there: only the cases the edit touched are hashed (``hashed`` counts them).
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
class _Layout:
    """The cases of one text as keyed: start -> (length, hash of the case's text)."""

    text: str  # held (the result of that text holds it too), compared by identity
    hashes: dict[int, tuple[int, int]]


@dataclass(frozen=True, slots=True)
class _Edit:
    """``[start, old_end)`` of the text before became ``[start, new_end)``."""

    start: int
    old_end: int
    new_end: int

    def old_start(self, start: int, end: int) -> int | None:
        """Where the case ``[start, end)`` of the new text stood in the text before when the edit
        did not touch it (the same characters), else None."""
        if end <= self.start:
            return start
        if start >= self.new_end:
            return start - (self.new_end - self.old_end)
        return None


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
        self.hashed = 0  # case texts hashed (the others' hashes came from the text before the edit)
        self._layout: _Layout | None = None  # the cases of the last text keyed
        self._told: tuple[str, str, _Edit] | None = None  # (text before, the next text, the edit)
        self._base: tuple[dict[int, tuple[int, int]], _Edit] | None = None  # while keying it

    def edited(self, previous: str, current: str, start: int, old_end: int, new_end: int) -> None:
        """``current`` is ``previous`` with ``[start, old_end)`` replaced (ending at ``new_end``):
        when ``current`` is keyed next after ``previous``, the cases the edit did not touch keep
        their hashes."""
        with self._lock:
            self._told = (previous, current, _Edit(start, old_end, new_end))

    def key(self, text: str, start: int, end: int, *context: Hashable) -> CaseKey:
        with self._lock:
            layout = self._layout
            if layout is None or layout.text is not text:
                layout = self._next_layout(text)
            digest = None
            if self._base is not None:
                hashes, edit = self._base
                old_start = edit.old_start(start, end)
                entry = hashes.get(old_start) if old_start is not None else None
                if entry is not None and entry[0] == end - start:
                    digest = entry[1]
            if digest is None:
                self.hashed += 1
                digest = hash(text[start:end])
            layout.hashes[start] = (end - start, digest)
        return (end - start, digest, *context)

    def _next_layout(self, text: str) -> _Layout:
        """A new text is keyed: the last one is its base when the edit told was made from it.
        Neither text is held beyond this point (only the new one, which its result holds too)."""
        last, told = self._layout, self._told
        self._told = None
        self._base = None
        # Both texts checked: an edit told for a text never keyed (its analysis stopped early)
        # must not be applied to another one.
        if told is not None and last is not None and told[0] is last.text and told[1] is text:
            self._base = (last.hashes, told[2])
        layout = self._layout = _Layout(text, {})
        return layout

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
