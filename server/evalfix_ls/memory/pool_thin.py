"""Give back the pages of used pymalloc pools that hold no live block (``memory/pool_trim``'s last
step): a pool of 16 KiB in which a cache entry or two outlived an analysis keeps all four of its
pages, though only the header's and those under live blocks are needed. Over the soak benchmark's
week such sparse pools were what the process grew by once empty pools were given back.

A used pool's free blocks form a list threaded through the blocks themselves (``freeblock`` in
the header, then the first word of each free block). A pool that pymalloc has extended to its end
(``nextoffset`` past ``maxnextoffset``) hands out blocks only from that list, and counts only the
blocks in use (``ref.count``). So the list is rewritten to hold only the free blocks that lie
wholly in the pages kept (the header's, and each page under a live block), lowest first, and the
other pages go. The blocks left out are not lost for good: when the pool's last live block is
freed it becomes an empty pool, which the trim gives back and pymalloc initializes afresh. The
list keeps one block at least (a pool on pymalloc's list of pools with free blocks must have
one), so the pool stays where pymalloc keeps it and nothing outside the pool is written.

The pool is planned from a snapshot of its 16 KiB (``bytes`` of a view: malloc's memory, not
pymalloc's) and written only if it still equals memory right before, with nothing allocated
between the comparison and the last write (``apply``): an allocation or a free in the pool
meanwhile changes its header or a block, and the plan is dropped.
"""

from __future__ import annotations

import array
import bisect
import ctypes
import time
from collections.abc import Callable
from typing import NamedTuple

from .pymalloc_table import (
    ARENA_OBJECT,
    ARENA_SIZE,
    CLASS_WORD,
    FREEBLOCK_WORD,
    LOW_HALF,
    MADV_DONTNEED,
    OFFSET_WORD,
    POOL_SIZE,
    _read,
    _word,
    _Words,
    _words,
)

POOL_OVERHEAD = 48  # the header, rounded up to pymalloc's 16-byte alignment: the first block's offset
ALIGNMENT = 16  # a size class's block size is (size class + 1) * ALIGNMENT
SIZE_CLASSES = 32  # blocks of up to 512 bytes


class Thinning(NamedTuple):
    """A planned rewrite of one pool's free list, and the pages it lets go."""

    writes: tuple[tuple[_Words, int, int], ...]
    dropped: tuple[tuple[int, int], ...]  # (address, length): runs of whole pages
    snapshot: bytes
    freeblock: int  # the list's new first block


class _Pool(NamedTuple):
    address: int
    words: array.array[int]
    size: int  # the block size
    capacity: int  # blocks in the pool
    in_use: int  # blocks in use


def sparse_header(count: int, classes: int, offsets: int, slot: int) -> bool:
    """From the pool's header words alone (``ref.count``, arenaindex | szidx, nextoffset |
    maxnextoffset): a used pool of arena ``slot``, extended to its end, whose live blocks fill
    at most half of it."""
    size_class = classes >> 32
    if count & LOW_HALF == 0 or classes & LOW_HALF != slot or size_class >= SIZE_CLASSES:
        return False
    size = (size_class + 1) * ALIGNMENT
    return offsets & LOW_HALF > offsets >> 32 and (count & LOW_HALF) * size <= POOL_SIZE // 2


def plan(snapshot: bytes, pool: int, memory: _Words, page: int) -> Thinning | None:
    """The rewrite of the pool (``snapshot``: its bytes now) that keeps only the pages under live
    blocks and the header's; None where no page would go, or the pool is not what a used,
    extended pool of pymalloc's looks like."""
    words = array.array("Q", snapshot)
    size_class = words[CLASS_WORD] >> 32
    if size_class >= SIZE_CLASSES or words[OFFSET_WORD] & LOW_HALF <= words[OFFSET_WORD] >> 32:
        return None
    size = (size_class + 1) * ALIGNMENT
    found = _Pool(pool, words, size, (POOL_SIZE - POOL_OVERHEAD) // size, words[0] & LOW_HALF)
    free = _free_blocks(found)
    if not free or found.in_use == 0:  # a pool full again since its header was read: nothing to do
        return None
    kept = _kept_pages(found, free, page)
    listed = [offset for offset in sorted(free) if _within(offset, size, kept, page)]
    if not listed:  # pymalloc keeps a pool with no free block off its lists: keep one, and its page
        lowest = min(free)
        kept |= set(range(lowest // page, (lowest + size - 1) // page + 1))
        listed = [offset for offset in sorted(free) if _within(offset, size, kept, page)]
    dropped = _runs(pool, [number for number in range(POOL_SIZE // page) if number not in kept], page)
    if not dropped:
        return None
    base = (pool - ctypes.addressof(memory)) // 8
    writes = [(memory, base + FREEBLOCK_WORD, pool + listed[0])]
    for offset, following in zip(listed, [*listed[1:], None], strict=True):
        link = 0 if following is None else pool + following
        if words[offset // 8] != link:
            writes.append((memory, base + offset // 8, link))
    return Thinning(tuple(writes), dropped, snapshot, pool + listed[0])


def _free_blocks(pool: _Pool) -> set[int] | None:
    """The offsets of the pool's free blocks, following its list; None where the list leaves
    the pool's grid of blocks, repeats, or disagrees with the count in use."""
    free: set[int] = set()
    block = pool.words[FREEBLOCK_WORD]
    end = POOL_OVERHEAD + pool.capacity * pool.size
    while block:
        offset = block - pool.address
        if offset in free or not POOL_OVERHEAD <= offset < end or (offset - POOL_OVERHEAD) % pool.size:
            return None
        free.add(offset)
        block = pool.words[offset // 8]
    return free if len(free) == pool.capacity - pool.in_use else None


def _kept_pages(pool: _Pool, free: set[int], page: int) -> set[int]:
    """The header's page and every page a live block lies in, wholly or in part."""
    kept = {0}
    for offset in range(POOL_OVERHEAD, POOL_OVERHEAD + pool.capacity * pool.size, pool.size):
        if offset not in free:
            kept.update(range(offset // page, (offset + pool.size - 1) // page + 1))
    return kept


def _within(offset: int, size: int, kept: set[int], page: int) -> bool:
    return offset // page in kept and (offset + size - 1) // page in kept


def _runs(pool: int, pages: list[int], page: int) -> tuple[tuple[int, int], ...]:
    runs: list[tuple[int, int]] = []
    for number in pages:
        address = pool + number * page
        if runs and runs[-1][0] + runs[-1][1] == address:
            runs[-1] = (runs[-1][0], runs[-1][1] + page)
        else:
            runs.append((address, page))
    return tuple(runs)


def apply(view: memoryview, thinning: Thinning) -> bool:
    """Write the plan if the pool (``view``: its bytes, made before) is still what it was planned
    from; nothing allocates from the comparison to the last write (the iterator is made first)."""
    steps = iter(thinning.writes)
    if view != thinning.snapshot:
        return False
    for words, index, value in steps:
        words[index] = value
    return True


class PoolThinner:
    """Thins the sparse used pools of every arena, a pass at a time (``thin``), for the trim:
    under its exclusive hold of the interpreter, past the empty pools' steps."""

    def __init__(self, madvise: Callable[[int, int, int], int], page: int) -> None:
        self._madvise = madvise
        self._page = page
        self._resume = array.array("q", [-1])  # the table slot where a pass stopped at its deadline
        self._thinned: dict[int, tuple[int, int]] = {}  # pool -> (count, first free) when thinned

    def thin(self, table: int, count: int, pointer: int, deadline: float) -> int:
        """Thin every arena's sparse used pools: how many were. A pass stopped at the deadline is
        taken up at the arena where it stopped; a pool thinned before and unchanged since (same
        count, same first free block) is skipped. Stops where ``pointer`` (pymalloc's pointer to
        its table) no longer names ``table``."""
        raw = _read(table, count * ARENA_OBJECT.size)  # again: the trim lowered frontiers
        entries = [ARENA_OBJECT.unpack_from(raw, slot * ARENA_OBJECT.size)[:2] for slot in range(count)]
        slots = [slot for slot, (address, _) in enumerate(entries) if address]
        start = slots.index(self._resume[0]) if self._resume[0] in slots else 0
        table_pointer = _words(pointer, 1)
        thinned = 0
        for slot in slots[start:] + slots[:start]:
            if time.monotonic() > deadline:
                self._resume[0] = slot
                return thinned
            address, pool_address = entries[slot]
            memory = _words(address, ARENA_SIZE // 8)  # made first: its audit event fires here
            if table_pointer[0] != table:
                return thinned
            thinned += self.thin_arena(memory, slot, address, pool_address)
        self._resume[0] = -1
        starts = sorted(address for address, _ in entries if address)  # forget arenas gone
        self._thinned = {pool: key for pool, key in self._thinned.items() if _in_arena(pool, starts)}
        return thinned

    def thin_arena(self, memory: _Words, slot: int, address: int, pool_address: int) -> int:
        """Thin the arena's sparse used pools; their headers are read a word at a time across
        all pools at once (a strided view), the pools themselves only where the header says so."""
        arena_bytes = memoryview(memory).cast("B")
        first = -(-address // POOL_SIZE) * POOL_SIZE
        pools = range(first, pool_address, POOL_SIZE)
        words = arena_bytes.cast("Q")[(first - address) // 8 :]
        stride = POOL_SIZE // 8
        counts, classes, offsets = (words[w : w + stride * len(pools) : stride].tolist() for w in (0, 4, 5))
        thinned = 0
        for pool, count, size_class, offset in zip(pools, counts, classes, offsets, strict=True):
            if not sparse_header(count, size_class, offset, slot):
                continue
            at = _word(memory, pool)
            if self._thinned.get(pool) == (count & LOW_HALF, memory[at + FREEBLOCK_WORD]):
                continue
            view = arena_bytes[pool - address : pool - address + POOL_SIZE]
            thinning = plan(bytes(view), pool, memory, self._page)
            if thinning is None or not apply(view, thinning):
                continue
            for start, length in thinning.dropped:
                self._madvise(start, length, MADV_DONTNEED)
            self._thinned[pool] = (count & LOW_HALF, thinning.freeblock)
            thinned += 1
        return thinned


def _in_arena(address: int, starts: list[int]) -> bool:
    index = bisect.bisect_right(starts, address) - 1
    return index >= 0 and address < starts[index] + ARENA_SIZE
