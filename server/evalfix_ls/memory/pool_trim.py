"""Give the pages of CPython's empty pymalloc pools back to the system (``trim_empty_pools``).

pymalloc carves its 1 MiB arenas into 16 KiB pools and returns an arena to the system only when
every one of its pools is empty. After a large document is closed, the live heap is back to its
size before the open, but a few small objects made meanwhile (a cache entry, a fact about a path,
a thread's state) keep each of the arenas its analyses filled: the process kept 1.8x its fresh
RSS after the soak benchmark's hostile texts, and 1.5x over the week, with the live heap flat.
``malloc_trim`` does for glibc's heap what this does for pymalloc's arenas: the empty pools of the
arenas that stay are told to the kernel with ``madvise(MADV_DONTNEED)``, all but the page holding
each pool's header, which pymalloc reads to keep its list of empty pools.

An empty pool's body is read again only when pymalloc reuses the pool for the size class it last
held (it follows the old free list through the body). The pool's size class in its header is set
to "none" first (``DUMMY_SIZE_IDX``, what pymalloc writes into a pool it has never used), so a
reused pool is always initialized afresh, and a zeroed body is never read.

The header pages stay only where pymalloc still needs them. The run of empty pools right below an
arena's carving frontier (``pool_address``, above which pymalloc has never carved a pool) is
handed back as never carved, the frontier lowered over it, and all its pages go; pymalloc writes
a header afresh when it carves a pool. ``nfreepools`` counts listed and uncarved pools alike, so
the arena keeps its place in pymalloc's order. The other empty pools are relinked lowest first
(pymalloc takes the first of the list, so what is allocated next gathers at the bottom of the
arena and its top can empty into that run), then retired (``memory/pool_retire``): taken off the
list and out of the arena's counts, the arena moved to its new place in pymalloc's order, all
their pages given back. Where that order is not found, they stay listed with their header page.

Where the structures are: pymalloc's table of arenas is found once (``memory/pymalloc_table``),
by its address in the interpreter's static data, and accepted only if it places every probe
block (small ``bytes`` kept for the process's life) in the arena its pool's header names,
with the size class its size gives. Anything else (another allocator, debug hooks, another
layout) leaves the trim off.

Safety: a pool must not be taken into use between the moment it is seen empty and the moment its
pages go. pymalloc takes empty pools from the arenas with the fewest of them first; the trim
leaves alone the arenas holding the first ``MARGIN_POOLS`` empty pools in that order (its own few
allocations come from there), and runs while no other thread can take the interpreter lock: no
call in it releases the lock (reads through ``ctypes`` objects, ``madvise`` through ``PyDLL``),
the collector is off, and the switch interval is raised, then the lock let go long enough for
every wait begun with the old interval to end, so no waiting thread asks for it (``memory/exclusive``);
past ``BUDGET_SECONDS``, or half the raised interval, it stops where it is, and the next trim
(``trim_empty_pools`` runs up to ``TRIM_ATTEMPTS``) starts at that arena; a pool an earlier trim
gave back and nobody used since is still marked unused and is skipped, so a trim costs what was
freed since the last one. The server runs it on its idle collector's thread only; it refuses
the main thread (a signal handler could run between two writes) and a thread with a trace or
profile function or a ``sys.monitoring`` tool (``_nothing_runs_between_steps``).

Audit hooks still run where ctypes raises its events: making a view, calling ``madvise``. A hook
that frees objects there can push a pool onto an arena's list, so an arena's list and count are
read again, through views made before, right before they are walked and rewritten, with no
event in between (a review lost pools that way when the rewrite used what the trim read at its
start). A hook that allocates could take pools: the tail is given back while it is off the list
and still below the frontier, and bodies go highest first, so a hook would have to take every
other empty pool of an arena that became pymalloc's first before it reached one being given back.
"""

from __future__ import annotations

import array
import ctypes
import dataclasses
import os
import platform
import sys
import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

from . import pool_retire, pool_thin
from .arena_lists import _Arena, _arenas_with_empty_pools, _empty_pools, _trailing_run
from .exclusive import _exclusive, _nothing_runs_between_steps
from .pymalloc_table import (
    ADDRESS,
    ARENA_OBJECT,
    ARENA_SIZE,
    CLASS_WORD,
    COUNTS,
    ENTRY_WORDS,
    FREEPOOLS,
    LOW_HALF,
    MADV_DONTNEED,
    NEXT,
    NEXTPOOL_WORD,
    POOL_ADDRESS,
    POOL_HEADER,
    POOL_SIZE,
    PREVIOUS,
    _mappings,
    _Probes,
    _read,
    _Readable,
    _table_length,
    _table_pointer,
    _word,
    _Words,
    _words,
)

DUMMY_SIZE_IDX = 0xFFFF  # the size class pymalloc gives a pool it has not used yet
MARGIN_POOLS = 128  # empty pools left to pymalloc's next allocations (the trim's own included)
BUDGET_SECONDS = 0.1  # the trim's own bound once it holds the lock
TRIM_ATTEMPTS = 8  # trims in a row while each one stops at its deadline
SETUP_ATTEMPTS = 3


@dataclass(frozen=True)
class TrimReport:
    """What one trim did: empty pools given back (of them, ``tail_pools`` whole, handed back to
    pymalloc as never carved, and ``retired_pools`` whole, taken out of its counts), arenas looked
    at, arenas left as margin; and used pools whose pages without a live block went,
    ``thinned_pools``)."""

    pools: int
    arenas: int
    skipped_arenas: int
    complete: bool
    tail_pools: int = 0
    retired_pools: int = 0
    thinned_pools: int = 0


def _supported() -> bool:
    return (
        sys.platform.startswith("linux")
        and platform.python_implementation() == "CPython"
        and sys.version_info >= (3, 10)
        and sys.maxsize > 2**32
        and os.environ.get("PYTHONMALLOC", "pymalloc") == "pymalloc"
        and not sys.flags.dev_mode
        and not hasattr(sys, "gettotalrefcount")  # a debug build: its allocator adds headers
        and os.environ.get("EVALFIX_LS_POOL_TRIM", "1") != "0"
        and sys.byteorder == "little"
        and os.sysconf("SC_PAGE_SIZE") == 4096  # a pool is four pages: three go back
        and _glibc_allocates()
    )


def _glibc_allocates() -> bool:
    """glibc's ``malloc`` is the one the process calls (no allocator preloaded in its place):
    ``malloc_usable_size`` measures pymalloc's table from glibc's chunk header."""
    try:
        process, libc = ctypes.CDLL(None), ctypes.CDLL("libc.so.6")
        address = ctypes.cast(process.malloc, ctypes.c_void_p).value
        return address is not None and address == ctypes.cast(libc.malloc, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return False


class PoolTrimmer:
    """pymalloc's arenas, found once; ``trim`` gives back the pages of their empty pools."""

    def __init__(self) -> None:
        libc = ctypes.PyDLL("libc.so.6")  # PyDLL: its calls keep the interpreter lock
        self._usable_size = libc.malloc_usable_size
        self._usable_size.restype = ctypes.c_size_t
        self._usable_size.argtypes = (ctypes.c_void_p,)
        self._madvise = libc.madvise
        self._madvise.restype = ctypes.c_int
        self._madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._lock = threading.Lock()
        # trims run, pools given back in all, and the table slot of the arena where the last
        # trim stopped at its deadline (-1: it completed), where the next one starts: kept in
        # place (an int object made during the trim could take an empty pool it is giving back)
        self.counts = array.array("q", [0, 0, -1])
        self._thinner = pool_thin.PoolThinner(self._madvise, self._page)
        self._probes = _Probes()  # before the mappings are read: their pools are in them
        self._pointer = self._find_pointer()
        # the probes' arenas keep their counts: the table is recognised by them at each trim
        self._probe_slots = frozenset(arena for _, arena in self._probes.expected)
        self._order = self._find_order()

    def _find_order(self) -> pool_retire.ArenaOrder | None:
        """Where pymalloc keeps its order of arenas (None: empty pools are not retired, the rest
        of the trim runs). The table is read before and after the search: equal, nothing in
        between took or gave a pool."""
        readable = _Readable(_mappings())
        for _ in range(SETUP_ATTEMPTS):
            with _exclusive():
                found = self._table(readable)
                if found is None:
                    return None
                table, count = found
                before = _read(table, count * ARENA_OBJECT.size)
                order = pool_retire.find_order(self._pointer, before, table, count, readable)
                if _read(table, count * ARENA_OBJECT.size) == before:
                    return order
        return None

    def _find_pointer(self) -> int:
        """Look for the table while no other thread runs (it must not move meanwhile); another
        thread may have added an arena since the mappings were read: read them again then."""
        for attempt in range(SETUP_ATTEMPTS):
            mappings = _mappings()  # a file read lets other threads run: outside the exclusive part
            readable = _Readable(mappings)
            with _exclusive():
                try:
                    self._probes.read_pools(readable)
                    return _table_pointer(self._probes, mappings, readable)
                except LookupError:
                    if attempt == SETUP_ATTEMPTS - 1:
                        raise
        raise AssertionError("unreachable")

    def _table(self, readable: _Readable) -> tuple[int, int] | None:
        """The table's address and length now (pymalloc reallocates it as arenas are added), if
        the probes still find themselves in it."""
        table = ctypes.c_uint64.from_address(self._pointer).value
        if not table or not self._probes.placed_by(table, readable):
            return None
        count = _table_length(self._usable_size(table))
        return (table, count) if count is not None else None

    def trim(self) -> TrimReport:
        """Give back the empty pools' pages. Nothing is done (``complete`` false) when another
        thread is trimming, or when the table is not where the process's mappings, read just
        before, say it can be."""
        if not _nothing_runs_between_steps() or not self._lock.acquire(blocking=False):
            return TrimReport(0, 0, 0, complete=False)  # another thread trims: no wait for it
        try:
            readable = _Readable(_mappings())
            with _exclusive() as deadline:
                found = self._table(readable)
                if found is None:
                    return TrimReport(0, 0, 0, complete=False)
                until = min(deadline, time.monotonic() + BUDGET_SECONDS)
                report = self._trim_table(*found, until)
                if report.complete:
                    report = dataclasses.replace(
                        report, thinned_pools=self._thinner.thin(*found, self._pointer, until)
                    )
            self.counts[0] += 1
            self.counts[1] += report.pools
            return report
        finally:
            self._lock.release()

    def _trim_table(self, table: int, count: int, deadline: float) -> TrimReport:
        arenas = _arenas_with_empty_pools(table, _read(table, count * ARENA_OBJECT.size), count)
        kept = _margin(arenas)
        table_words = _words(table, count * ENTRY_WORDS)
        pointer = _words(self._pointer, 1)
        order = None if self._order is None else pool_retire.views(table, table_words, self._order)
        pools = tail = retired = 0
        for arena in _resumed(arenas[kept:], self.counts[2]):
            if time.monotonic() > deadline:  # checked before each arena and each pool
                self.counts[2] = arena.slot
                return TrimReport(pools, len(arenas), kept, False, tail, retired)
            memory = _words(arena.address, ARENA_SIZE // 8)  # made first: its audit event fires here
            if pointer[0] != table:  # pymalloc moved its table (arenas were added): stop here
                return TrimReport(pools, len(arenas), kept, False, tail, retired)
            uncarved = self._uncarve_tail(table_words, memory, arena)
            listed = uncarved.kept
            gone = 0
            if order is not None and listed and arena.slot not in self._probe_slots:
                gone, listed = self._retire(order, pointer, memory, arena, listed)
                retired += gone
            trimmed, complete = self._trim_pools(table_words, memory, arena, listed, deadline)
            pools += trimmed + len(uncarved.tail) + gone
            tail += len(uncarved.tail)
            if not complete:
                self.counts[2] = arena.slot
                return TrimReport(pools, len(arenas), kept, False, tail, retired)
        self.counts[2] = -1
        return TrimReport(pools, len(arenas), kept, True, tail, retired)

    def _retire(
        self, order: pool_retire.Views, pointer: _Words, memory: _Words, arena: _Arena, listed: list[int]
    ) -> tuple[int, list[int]]:
        """Retire the arena's listed empty pools (``memory/pool_retire``) and give back all their
        pages: how many went, and the pools still listed. Once the writes are done pymalloc can
        reach them neither from a list nor by carving, whatever a hook run by ``madvise`` does."""
        retirement = pool_retire.plan(order, arena.slot, listed, memory)
        if retirement is None or pointer[0] != order.table or not pool_retire.apply(order, retirement):
            return 0, listed
        for pool in retirement.retired:
            self._madvise(pool, POOL_SIZE, MADV_DONTNEED)
        return len(retirement.retired), retirement.kept

    def _uncarve_tail(self, table_words: _Words, memory: _Words, arena: _Arena) -> _Uncarved:
        """Hand the arena's run of empty pools right below its carving frontier back to pymalloc as
        never carved (the frontier lowered over it, the pools off the arena's list of empty ones),
        and give back all their pages, headers included: pymalloc writes a carved pool's header
        afresh. The other empty pools are relinked in address order: pymalloc takes the lowest
        first, so what stays in use gathers low in the arena and its top empties into the tail.

        The entry is read again here, not taken from the table read at the trim's start: making
        a ctypes view fires an audit event, and a hook that frees objects could push a pool onto
        this very list meanwhile. From that read to the last write before ``madvise`` nothing
        can run Python code or change pymalloc's state: reads and writes go through the views
        made before (``memory``, ``table_words``)."""
        base = arena.slot * ENTRY_WORDS
        if not _another_arena_leads(table_words, arena.slot):
            return _Uncarved(tail=(), kept=[])
        entry = arena._replace(
            pool_address=table_words[base + POOL_ADDRESS],
            free=table_words[base + COUNTS] & LOW_HALF,
            total=table_words[base + COUNTS] >> 32,
            first=table_words[base + FREEPOOLS],
        )
        pools = _empty_pools(memory, entry) if table_words[base + ADDRESS] == arena.address else None
        if pools is None:  # not what the entry says, or changed since the table was read
            return _Uncarved(tail=(), kept=[])
        tail = _trailing_run(pools, entry.pool_address)
        kept = sorted(set(pools) - set(tail))
        linked = dict(zip(pools, [*pools[1:], 0], strict=False))  # each listed pool's next, now
        for pool, following in zip(kept, [*kept[1:], 0], strict=False):  # the last one: none
            if linked[pool] != following:  # a list sorted by an earlier trim is left as it is
                memory[_word(memory, pool) + NEXTPOOL_WORD] = following
        if entry.first != (kept[0] if kept else 0):
            table_words[base + FREEPOOLS] = kept[0] if kept else 0
        if not tail:
            return _Uncarved(tail=(), kept=kept)
        # The tail is off the list but the frontier stays above it while ``madvise`` runs (its
        # audit event could run a hook that takes pools): pymalloc can reach those pools neither
        # from the list nor by carving. The frontier is lowered once they are gone.
        frontier = entry.pool_address - len(tail) * POOL_SIZE
        given = self._madvise(frontier, len(tail) * POOL_SIZE, MADV_DONTNEED) == 0
        if table_words[base + ADDRESS] != arena.address:  # a hook emptied the arena: pymalloc freed it
            return _Uncarved(tail=(), kept=[])
        if table_words[base + POOL_ADDRESS] != entry.pool_address:  # a pool was carved meanwhile
            _relist(memory, table_words, base, tail, arena.slot)
            return _Uncarved(tail=(), kept=kept)
        table_words[base + POOL_ADDRESS] = frontier
        return _Uncarved(tail=tail if given else (), kept=kept)

    def _trim_pools(
        self, table_words: _Words, memory: _Words, arena: _Arena, pools: list[int], deadline: float
    ) -> tuple[int, bool]:
        """The pages past the header of each of the arena's empty ``pools`` given back, and
        whether the deadline let the walk finish. A pool already marked unused was given back by
        an earlier trim and not used since (pymalloc sets a size class in any pool it takes):
        its body is still not resident, and it is skipped. Each pool's header is read again
        right before: still empty, still this arena's; and the arena must still be mapped (a hook
        run by ``madvise``'s audit event can free its last used block, and pymalloc then unmaps
        it and clears its entry's address)."""
        trimmed = 0
        body = POOL_SIZE - self._page
        for pool in reversed(pools):  # pymalloc takes the lowest first: the highest go first
            if time.monotonic() > deadline:
                return trimmed, False
            if table_words[arena.slot * ENTRY_WORDS + ADDRESS] != arena.address:  # unmapped: see below
                return trimmed, True
            at = _word(memory, pool)
            count, classes = memory[at] & LOW_HALF, memory[at + CLASS_WORD]
            if count != 0 or classes & LOW_HALF != arena.slot or classes >> 32 == DUMMY_SIZE_IDX:
                continue
            memory[at + CLASS_WORD] = (DUMMY_SIZE_IDX << 32) | arena.slot
            if self._madvise(pool + self._page, body, MADV_DONTNEED) == 0:
                trimmed += 1
        return trimmed, True


LEAD_POOLS = 8  # empty pools the arenas ahead of one being rewritten must hold between them


def _another_arena_leads(table_words: _Words, slot: int) -> bool:
    """pymalloc takes new pools from the head of its list of arenas with empty pools, then the
    next; hooks run by audit events since the trim began may have reordered that list. The arena
    in ``slot`` may be rewritten only while the arenas ahead of it hold ``LEAD_POOLS`` empty
    pools between them: the few pools the rewrite's own allocations could need come from there.
    Read through the table's view (no audit event); the head found last is checked first (an
    arena put before it would have set its predecessor), the table scanned only when it no
    longer leads."""
    head = _lead[0]
    if not (0 <= head < len(table_words) and _leads(table_words, head)):
        heads = [base for base in range(0, len(table_words), ENTRY_WORDS) if _leads(table_words, base)]
        head = heads[0] if len(heads) == 1 else -1
        _lead[0] = head
    table = ctypes.addressof(table_words)
    base, ahead = head, 0
    for _ in range(len(table_words) // ENTRY_WORDS):
        if base < 0 or base == slot * ENTRY_WORDS or not 0 <= base < len(table_words):
            return False
        ahead += table_words[base + COUNTS] & LOW_HALF
        if ahead >= LEAD_POOLS:
            return True
        following = table_words[base + NEXT]
        base = (following - table) // 8 if following else -1
    return False


def _leads(table_words: _Words, base: int) -> bool:
    """The entry at ``base`` is an arena with empty pools and no predecessor in pymalloc's list."""
    return bool(
        table_words[base + ADDRESS]
        and table_words[base + COUNTS] & LOW_HALF
        and not table_words[base + PREVIOUS]
    )


_lead = array.array("q", [-1])  # the table word where the head's entry was found last


def _relist(memory: _Words, table_words: _Words, base: int, pools: tuple[int, ...], slot: int) -> None:
    """Put ``pools`` (carved, empty, off the list, their headers maybe zeroed) back at the head of
    the arena's list, their headers written afresh as empty and never used."""
    following = table_words[base + FREEPOOLS]
    for pool in sorted(pools, reverse=True):  # pushed highest first: the lowest leads the list
        at = _word(memory, pool)
        for offset in range(POOL_HEADER.size // 8):
            memory[at + offset] = 0
        memory[at + NEXTPOOL_WORD] = following
        memory[at + CLASS_WORD] = (DUMMY_SIZE_IDX << 32) | slot
        following = pool
    table_words[base + FREEPOOLS] = following


class _Uncarved(NamedTuple):
    tail: tuple[int, ...]  # pools handed back as never carved, all their pages given back
    kept: list[int]  # the empty pools left on the arena's list


def _resumed(arenas: list[_Arena], slot: int) -> list[_Arena]:
    """The arenas from the one in table ``slot`` on, then those before it: a trim stopped at its
    deadline is taken up where it stopped, not by walking again what it did."""
    start = next((position for position, arena in enumerate(arenas) if arena.slot == slot), 0)
    return arenas[start:] + arenas[:start]


def _margin(arenas: list[_Arena]) -> int:
    """How many of the first arenas to leave alone: those holding the first ``MARGIN_POOLS``
    empty pools, where the trim's own allocations and anything else's would take pools from."""
    total = 0
    for position, arena in enumerate(arenas):
        if total >= MARGIN_POOLS:
            return position
        total += arena.free
    return len(arenas)


_trimmer: PoolTrimmer | None = None
_unavailable = False
_setup_lock = threading.Lock()


def trimmer() -> PoolTrimmer | None:
    """The process's trimmer, found at the first call; None where the interpreter is not one this
    module knows (the reason is not kept: the trim is an optimization)."""
    global _trimmer, _unavailable
    with _setup_lock:
        if _trimmer is None and not _unavailable:
            if not _supported():
                _unavailable = True
            else:
                try:
                    _trimmer = PoolTrimmer()
                except (LookupError, OSError, AttributeError, ValueError):
                    _unavailable = True
        return _trimmer


def trims() -> tuple[int, int]:
    """How many trims ran in this process, and how many pools they gave back (for tests)."""
    found = _trimmer
    return (found.counts[0], found.counts[1]) if found is not None else (0, 0)


def _stopped_at_deadline(report: TrimReport) -> bool:
    """Not complete after walking arenas (not: the table not found, or another thread trimming)."""
    return not report.complete and report.arenas > 0


def trim_empty_pools() -> TrimReport | None:
    """Trim until a trim completes, at most ``TRIM_ATTEMPTS`` times: one stopped by its deadline
    lets go of the interpreter lock (a request waiting runs), and the next one skips what the
    earlier ones gave back. None where the trim is off."""
    found = trimmer()
    if found is None:
        return None
    reports = [found.trim()]
    while _stopped_at_deadline(reports[-1]) and len(reports) < TRIM_ATTEMPTS:
        reports.append(found.trim())
    last = reports[-1]
    return TrimReport(
        sum(r.pools for r in reports),
        last.arenas,
        last.skipped_arenas,
        last.complete,
        sum(r.tail_pools for r in reports),
        sum(r.retired_pools for r in reports),
        sum(r.thinned_pools for r in reports),
    )
