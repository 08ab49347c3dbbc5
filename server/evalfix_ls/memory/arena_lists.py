"""Reading pymalloc's lists from its table of arenas (``memory/pymalloc_table``): the arenas
with empty pools in the order pymalloc takes pools from them, and an arena's list of empty pools.
What the trim (``memory/pool_trim``), the retirement (``memory/pool_retire``) and the soak
benchmark's counts read; nothing here writes.
"""

from __future__ import annotations

from typing import NamedTuple

from .pymalloc_table import (
    ARENA_OBJECT,
    ARENA_SIZE,
    CLASS_WORD,
    LOW_HALF,
    NEXTPOOL_WORD,
    POOL_SIZE,
    _word,
    _Words,
    never_carved,
)


class _Arena(NamedTuple):
    """An arena's entry in pymalloc's table, as the trim reads it."""

    free: int  # nfreepools: its empty pools, carved (on its list) or not
    slot: int  # its index in the table: what its pools' headers name
    address: int
    pool_address: int  # the carving frontier: pools from here up were never carved
    total: int  # ntotalpools
    first: int  # freepools: the first pool of its list of empty ones


def _listed_pools(memory: _Words, arena: _Arena) -> list[int]:
    """The arena's list of empty pools, as far as each is an empty pool of this arena."""
    listed: list[int] = []
    pool = arena.first
    while pool and len(listed) < arena.free:
        if pool % POOL_SIZE or not arena.address <= pool < arena.address + ARENA_SIZE:
            break
        at = _word(memory, pool)
        if memory[at] & LOW_HALF != 0 or memory[at + CLASS_WORD] & LOW_HALF != arena.slot:
            break
        listed.append(pool)
        pool = memory[at + NEXTPOOL_WORD]
    return listed


def _empty_pools(memory: _Words, arena: _Arena) -> list[int] | None:
    """The arena's list of empty pools, if it holds exactly the empty pools the entry counts
    (``nfreepools`` counts the listed ones and those never carved) and ends where it should."""
    uncarved = never_carved(arena.address, arena.pool_address)
    if uncarved is None or not uncarved <= arena.free:
        return None
    listed = _listed_pools(memory, arena)
    if len(listed) != arena.free - uncarved or len(set(listed)) != len(listed):
        return None
    if listed and memory[_word(memory, listed[-1]) + NEXTPOOL_WORD] != 0:
        return None
    return listed


def _trailing_run(pools: list[int], pool_address: int) -> tuple[int, ...]:
    """The empty pools that lie in one run right below the carving frontier, highest first."""
    empty = set(pools)
    run: list[int] = []
    while pool_address - (len(run) + 1) * POOL_SIZE in empty:
        run.append(pool_address - (len(run) + 1) * POOL_SIZE)
    return tuple(run)


def _arenas_with_empty_pools(table: int, raw: bytes, count: int) -> list[_Arena]:
    """Each arena on pymalloc's list of arenas with empty pools (``usable_arenas``), in its order:
    the order in which pymalloc takes pools. The list's head is its one entry with no
    predecessor; with none or several, nothing."""
    entries: dict[int, tuple[_Arena, int]] = {}
    heads = []
    for index in range(count):
        address, pool_address, free, total, first, following, previous = ARENA_OBJECT.unpack_from(
            raw, index * ARENA_OBJECT.size
        )
        if address and free:
            arena = _Arena(free, index, address, pool_address, total, first)
            entries[table + index * ARENA_OBJECT.size] = (arena, following)
            if previous == 0:
                heads.append(table + index * ARENA_OBJECT.size)
    if len(heads) != 1:  # not a list pymalloc would keep: trim nothing
        return []
    head = heads[0]
    ordered: list[_Arena] = []
    while head in entries and len(ordered) < len(entries):
        arena, head = entries[head]
        ordered.append(arena)
    return ordered
