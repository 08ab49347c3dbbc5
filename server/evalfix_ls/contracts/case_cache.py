"""Findings of unchanged cases, reused from one version of a document to the next.

The language server analyses a document on every edit. An edit inside one case of a suite with
thousands of cases changes that case's text only; every other case yields the same findings, shifted
by however far the edit moved it. A case's findings depend on its own text, its index (messages and
pointers name it) and the file-system facts (existence checks), so that is the key. Keys hold a hash
of the case text rather than the text, so the cache does not keep whole document versions alive.

Hashing every case's text on every keystroke read the whole document (10 MB: a slice and a hash
per case, 7,652 of them). The incremental re-parse says which cases are unchanged without reading
them: a case it did not re-parse is the node first parsed, or a view of it moved by the edit
(``parser.shift.unshifted``: the same origin keystroke after keystroke), and a node's text never
changes. So each suite pass (``CaseCache.keys``) keeps the length and hash of its cases by origin,
and the next pass hashes only the cases whose origin it has not seen: the ones the edit re-parsed.
Only the origins of the last complete pass are kept — the cases of the tree that pass read.

A hit is not rebuilt at the case's new offset: ``get`` answers a ``PlacedCase`` (the relative
findings and where the case now starts), which the analysis keeps as one block
(``contracts/placed.py``) and the language server converts per case; absolute findings are built
(``CaseCache.placed``, counted in ``shifted``) only for a consumer that asks for them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..findings import SORT_KEY, Finding, Related
from ..parser.incremental.shift import unshifted
from ..parser.intact import IntactMemo
from ..parser.tree import Node

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
        self.hashed = 0  # case texts sliced and hashed for their keys (the others came by origin)
        # The cases of the last complete suite pass: id(origin) -> (origin, its text's digest).
        self._digests: dict[int, tuple[Node, _Digest]] = {}
        self._keyed = False  # a suite pass was kept since the last ``analysed``
        # The alignment of the cases of the last intact view of the document broken (the editor's).
        self.intact = IntactMemo()

    @contextmanager
    def keys(self) -> Iterator[CaseKeys]:
        """One suite pass's keys. Kept when the pass ends normally (a pass stopped half-way leaves
        the last one's); two passes at once each read the last kept one, the one ending last is
        kept. A digest is a fact of its origin node, whichever pass recorded it."""
        keys = CaseKeys(self, self._digests)
        yield keys
        self._digests = keys.kept
        self._keyed = True

    @property
    def keyed(self) -> int:
        """The cases whose digests are kept by origin (each keeps its node alive)."""
        return len(self._digests)

    def analyzed(self) -> None:
        """An analysis of the document ended: the memos by origin that it did not renew are
        dropped (a document that parses again runs no intact view; one whose cases cannot be read
        runs no suite pass), so they never keep the nodes of a tree the document no longer has.
        The alignments of the cases a suite pass just keyed stay (the same nodes): typing through
        a text that parses for a keystroke does not read every case's alignment again after it."""
        if not self._keyed:
            self._digests = {}
        if not self.intact.renewed:
            self.intact.retain(self._digests)
        self._keyed = self.intact.renewed = False

    def key(self, text: str, case: Node, *context: Hashable) -> CaseKey:
        """The key of ``case`` (a node of ``text``) outside a pass: its text hashed."""
        self.hashed += 1
        return (*_digest(text, case, unshifted(case)[0]), *context)

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


# (length of the case's text, hash of it, member count of the node: a recovered view's placeholder
# for a broken case holds none of the members its text shows, so it must not share a real case's key)
_Digest = tuple[int, int, int]


def _digest(text: str, case: Node, origin: Node) -> _Digest:
    members = origin.members  # the origin's: a moved case would build its members to count them
    return (case.end - case.start, hash(text[case.start : case.end]), -1 if members is None else len(members))


class CaseKeys:
    """The keys of one suite pass: a case whose origin the last pass keyed is not hashed again."""

    __slots__ = ("_cache", "_previous", "kept")

    def __init__(self, cache: CaseCache, previous: dict[int, tuple[Node, _Digest]]) -> None:
        self._cache = cache
        self._previous = previous
        self.kept: dict[int, tuple[Node, _Digest]] = {}

    def key(self, text: str, case: Node, *context: Hashable) -> CaseKey:
        origin, _ = unshifted(case)
        ident = id(origin)
        entry = self._previous.get(ident)
        if entry is not None and entry[0] is origin:  # (the entry keeps it alive: the id is its own)
            digest = entry[1]
        else:
            self._cache.hashed += 1
            digest = _digest(text, case, origin)
        self.kept[ident] = (origin, digest)
        return (*digest, *context)


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
