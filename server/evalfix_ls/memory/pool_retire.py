"""Retire an arena's empty pools from pymalloc (``memory/pool_trim``'s step after the tail): take
them off the arena's list and out of both its counts, so pymalloc never sees them again and all
their pages go, the header's too. Until then each empty pool between used ones kept the page its
header is on (pymalloc's list of an arena's empty pools runs through the headers): over the soak
benchmark's week those pages were most of what the process grew by.

An arena's counts order it in pymalloc's list of arenas with empty pools (``usable_arenas``,
fewest first: new pools come from the fullest arenas), with ``nfp2lasta`` naming, per count, the
last arena that has it. Lowering ``nfreepools`` moves the arena toward the head, exactly as
pymalloc moves one when it takes a pool; an arena left with none leaves the list, as a full one
does. ``ntotalpools`` is lowered by as much: pymalloc frees the arena (the retired pools with it)
when its empty pools number its total, so it stays at ``MIN_TOTAL_POOLS`` at least (with one,
freeing the last used pool of an arena that was full would unlink it through stale links).

Where those two statics are: beside pymalloc's pointer to its table of arenas (3.11: separate
statics; 3.12+: one structure), found once by content (``find_order``): the one span of
``ORDER_SLOTS`` words that names, per count, the last arena the table's list has with it, next to
a word naming the list's head.

Every step is planned from snapshots of the table and of that span (``bytes`` of a view: more
than 512 bytes, so malloc's, not pymalloc's), which the plan's own allocations may have made stale
(a pool taken for an ``int``): the plan is written only if both compare equal to memory right
before, and the comparison and the writes allocate nothing (``apply``), so no pymalloc step falls
between what the plan read and what it writes.
"""

from __future__ import annotations

import array
import ctypes
from typing import NamedTuple

from .arena_lists import _arenas_with_empty_pools
from .pymalloc_table import (
    ADDRESS,
    ARENA_OBJECT,
    ARENA_SIZE,
    COUNTS,
    ENTRY_WORDS,
    FREEPOOLS,
    LOW_HALF,
    NEXT,
    NEXTPOOL_WORD,
    POOL_ADDRESS,
    POOL_SIZE,
    PREVIOUS,
    _read,
    _Readable,
    _Words,
    never_carved,
)

ORDER_SLOTS = ARENA_SIZE // POOL_SIZE + 1  # nfp2lasta[MAX_POOLS_IN_ARENA + 1]
SEARCH_BYTES = 4096  # each side of the table's pointer
MIN_TOTAL_POOLS = 2


class ArenaOrder(NamedTuple):
    """Addresses of ``nfp2lasta[0]`` and of ``usable_arenas``, adjacent: ``start`` is the first
    of the ``ORDER_SLOTS + 1`` words they fill."""

    last_with: int
    head: int

    @property
    def start(self) -> int:
        return min(self.last_with, self.head)

    def slot(self, count: int) -> int:
        """The index in a view from ``start`` of ``nfp2lasta[count]``."""
        return (self.last_with - self.start) // 8 + count

    @property
    def head_slot(self) -> int:
        return (self.head - self.start) // 8


def expected_order(table: int, raw: bytes, count: int) -> tuple[int, list[int]] | None:
    """The list's head and, per count of empty pools, the last arena with it (entry addresses), as
    pymalloc's table ``raw`` links them; None where the links are not a list sorted by count."""
    arenas = _arenas_with_empty_pools(table, raw, count)
    counts = [arena.free for arena in arenas]
    if not arenas or counts != sorted(counts) or counts[-1] >= ORDER_SLOTS:
        return None
    last_with = [0] * ORDER_SLOTS
    for arena in arenas:
        last_with[arena.free] = table + arena.slot * ARENA_OBJECT.size
    return table + arenas[0].slot * ARENA_OBJECT.size, last_with


def find_order(pointer: int, raw: bytes, table: int, count: int, readable: _Readable) -> ArenaOrder | None:
    """The one place near the table's pointer where ``nfp2lasta`` holds what the table's list
    says, with the head's pointer right after it (3.11) or right before (3.12+)."""
    expected = expected_order(table, raw, count)
    start, end = readable.around(pointer - pointer % 8, SEARCH_BYTES)
    if expected is None or end - start < 8 * (ORDER_SLOTS + 1):
        return None
    head, last_with = expected
    words = array.array("Q", _read(start, end - start))
    found = []
    for index in range(1, len(words) - ORDER_SLOTS):
        if words[index : index + ORDER_SLOTS].tolist() != last_with:
            continue
        address = start + index * 8
        if words[index + ORDER_SLOTS] == head:
            found.append(ArenaOrder(address, address + ORDER_SLOTS * 8))
        elif words[index - 1] == head:
            found.append(ArenaOrder(address, address - 8))
    return found[0] if len(found) == 1 else None


class Views(NamedTuple):
    """What a trim reads and writes pymalloc's order through, made before its exclusive steps:
    word views of the table and of the order's span, and byte views of both to compare."""

    table: int
    table_words: _Words
    table_bytes: memoryview
    order: ArenaOrder
    order_words: _Words
    order_bytes: memoryview


def views(table: int, table_words: _Words, order: ArenaOrder) -> Views:
    order_words = (ctypes.c_uint64 * (ORDER_SLOTS + 1)).from_address(order.start)
    table_bytes = memoryview(table_words).cast("B")
    return Views(table, table_words, table_bytes, order, order_words, memoryview(order_words).cast("B"))


class Retirement(NamedTuple):
    """A planned retirement: the writes, and the snapshots they were planned from."""

    writes: tuple[tuple[_Words, int, int], ...]
    retired: tuple[int, ...]  # the pools taken out of pymalloc's sight, highest first
    kept: list[int]  # the pools left on the arena's list
    table_snapshot: bytes
    order_snapshot: bytes


class _Inconsistent(Exception):
    """A link in the snapshot names no entry of the table."""


class _Plan:
    """Copies of the table's and the order's words, changed as pymalloc would change them, and
    the writes that make memory match."""

    def __init__(self, found: Views, table_snapshot: bytes, order_snapshot: bytes) -> None:
        self._found = found
        self.snapshots = (table_snapshot, order_snapshot)
        self.table = array.array("Q", table_snapshot)
        self.order = array.array("Q", order_snapshot)
        self.writes: dict[tuple[int, int], tuple[_Words, int, int]] = {}

    def entry(self, address: int) -> int:
        index, rest = divmod(address - self._found.table, 8)
        if rest or index % ENTRY_WORDS or not 0 <= index < len(self.table):
            raise _Inconsistent(address)
        return index

    def field(self, address: int, word: int) -> int:
        return self.table[self.entry(address) + word]

    def free(self, address: int) -> int:
        return self.field(address, COUNTS) & LOW_HALF

    def set_field(self, address: int, word: int, value: int) -> None:
        index = self.entry(address) + word
        self.table[index] = value
        self.writes[(0, index)] = (self._found.table_words, index, value)

    def last_with(self, count: int) -> int:
        return self.order[self._found.order.slot(count)]

    def set_last_with(self, count: int, address: int) -> None:
        self._set_order(self._found.order.slot(count), address)

    def head(self) -> int:
        return self.order[self._found.order.head_slot]

    def set_head(self, address: int) -> None:
        self._set_order(self._found.order.head_slot, address)

    def _set_order(self, index: int, value: int) -> None:
        self.order[index] = value
        self.writes[(1, index)] = (self._found.order_words, index, value)

    def unlink(self, arena: int) -> None:
        """Take ``arena`` out of the list (its own links are left as they were, as pymalloc
        leaves those of an arena it takes out full)."""
        previous, following = self.field(arena, PREVIOUS), self.field(arena, NEXT)
        if previous:
            self.set_field(previous, NEXT, following)
        else:
            self.set_head(following)
        if following:
            self.set_field(following, PREVIOUS, previous)

    def insert_after(self, previous: int, arena: int) -> None:
        """Put ``arena`` after ``previous`` (0: at the head)."""
        following = self.field(previous, NEXT) if previous else self.head()
        self.set_field(arena, NEXT, following)
        self.set_field(arena, PREVIOUS, previous)
        if following:
            self.set_field(following, PREVIOUS, arena)
        if previous:
            self.set_field(previous, NEXT, arena)
        else:
            self.set_head(arena)

    def linked(self, arena: int) -> bool:
        """``arena`` is where its neighbours and the head say it is."""
        previous, following = self.field(arena, PREVIOUS), self.field(arena, NEXT)
        before = self.field(previous, NEXT) if previous else self.head()
        return before == arena and (not following or self.field(following, PREVIOUS) == arena)


def plan(found: Views, slot: int, listed: list[int], memory: _Words) -> Retirement | None:
    """Retire the highest of the arena's ``listed`` empty pools (its whole list, ascending, as the
    trim relinked it), as many as keep ``MIN_TOTAL_POOLS``; None when nothing can be retired or
    the snapshots disagree with what the arena's entry and neighbours should be."""
    table_snapshot, order_snapshot = bytes(found.table_bytes), bytes(found.order_bytes)
    model = _Plan(found, table_snapshot, order_snapshot)
    try:
        return _planned(model, found.table + slot * ARENA_OBJECT.size, listed, memory)
    except _Inconsistent:
        return None


def _planned(model: _Plan, arena: int, listed: list[int], memory: _Words) -> Retirement | None:
    counts = model.field(arena, COUNTS)
    free, total = counts & LOW_HALF, counts >> 32
    uncarved = never_carved(model.field(arena, ADDRESS), model.field(arena, POOL_ADDRESS))
    retiring = min(len(listed), total - MIN_TOTAL_POOLS)
    if retiring <= 0 or uncarved is None or free != len(listed) + uncarved or free >= ORDER_SLOTS:
        return None  # the list is not the one the arena counts (a pool pushed or taken since)
    if model.field(arena, FREEPOOLS) != listed[0] or not model.linked(arena):
        return None
    last = model.last_with(free)
    if not last or model.free(last) != free:
        return None
    kept, retired = listed[: len(listed) - retiring], listed[len(listed) - retiring :]
    if kept:
        index = (kept[-1] - ctypes.addressof(memory)) // 8 + NEXTPOOL_WORD
        model.writes[(2, index)] = (memory, index, 0)
    else:
        model.set_field(arena, FREEPOOLS, 0)
    remaining = free - retiring
    model.set_field(arena, COUNTS, remaining | (total - retiring) << 32)
    if not _move(model, arena, free, remaining, last):
        return None
    return Retirement(
        tuple(model.writes.values()), tuple(reversed(retired)), kept, model.snapshots[0], model.snapshots[1]
    )


def _move(model: _Plan, arena: int, free: int, remaining: int, last: int) -> bool:
    """Move ``arena`` (``free`` empty pools before, ``remaining`` now) to its place in pymalloc's
    list, and ``nfp2lasta`` with it; False where the list is not as it should be."""
    previous = model.field(arena, PREVIOUS)
    if last == arena:  # pymalloc's own step when the last arena with a count leaves it
        model.set_last_with(free, previous if previous and model.free(previous) == free else 0)
    after = previous
    for _ in range(len(model.table) // ENTRY_WORDS):
        if not after or model.free(after) <= remaining:
            break
        after = model.field(after, PREVIOUS)
    else:
        return False
    if remaining == 0:  # nothing left to give: off the list, as pymalloc takes a full arena off
        model.unlink(arena)
        return True
    if after != previous:
        model.unlink(arena)
        model.insert_after(after, arena)
    holder = model.last_with(remaining)
    if holder not in (0, after):
        return False
    model.set_last_with(remaining, arena)
    return True


def apply(found: Views, retirement: Retirement) -> bool:
    """Write the plan if the table and the order are still what it was planned from. From the
    comparison to the last write nothing allocates (the iterator is made first), so pymalloc
    cannot change either in between."""
    steps = iter(retirement.writes)
    if not (
        found.table_bytes == retirement.table_snapshot and found.order_bytes == retirement.order_snapshot
    ):
        return False
    for view, index, value in steps:
        view[index] = value
    return True
