"""Where CPython's pymalloc keeps its table of arenas, found from inside the process
(``memory/pool_trim``'s first step): its layouts, the process's mappings, and the one word of the
interpreter's static data that, read as the table's address, places every probe block right.

The table is static in CPython (a pointer in .data/.bss, or in the interpreter state embedded
there); nothing public gives its address. Small ``bytes`` objects kept for the process's life
(``_Probes``) are pymalloc blocks whose pool and size class are known: a candidate word is the
table only if each probe's pool header names an arena whose entry in the candidate table
contains that pool. Reads go through ``ctypes.string_at`` (a PYFUNCTYPE: it keeps the interpreter
lock) and only of addresses a writable mapping holds.
"""

from __future__ import annotations

import array
import ctypes
import os
import struct
import sys
from bisect import bisect_right
from dataclasses import dataclass

POOL_SIZE = 1 << 14  # POOL_BITS 14: CPython 3.10+ on 64-bit platforms (USE_LARGE_POOLS)
ARENA_SIZE = 1 << 20  # ARENA_BITS 20 (USE_LARGE_ARENAS)
# union {block *_padding; uint count} ref, freeblock, nextpool, prevpool, arenaindex, szidx,
# nextoffset, maxnextoffset
POOL_HEADER = struct.Struct("<I4xQQQIIII")
# address, pool_address, nfreepools, ntotalpools, freepools, nextarena, prevarena
ARENA_OBJECT = struct.Struct("<QQIIQQQ")
PROBE_SIZES = tuple(range(1, 480, 7))  # bytes lengths: every pymalloc size class, several pools
# an arena object's words: nfreepools | ntotalpools << 32 share COUNTS
ENTRY_WORDS = ARENA_OBJECT.size // 8
ADDRESS, POOL_ADDRESS, COUNTS, FREEPOOLS, NEXT, PREVIOUS = range(ENTRY_WORDS)
# a pool header's words: arenaindex | szidx << 32 share CLASS_WORD, nextoffset | maxnextoffset << 32
# OFFSET_WORD
COUNT_WORD, FREEBLOCK_WORD, NEXTPOOL_WORD, PREVPOOL_WORD, CLASS_WORD, OFFSET_WORD = range(6)
LOW_HALF = 0xFFFFFFFF  # the first of the two 32-bit fields a word holds
MADV_DONTNEED = 4
MAX_ARENAS = 1 << 22  # 4 TiB of arenas: a larger table is a misread
CHUNK_SLACK = 4096 + 32  # glibc's usable size past the bytes asked: a heap chunk's 8-24, a page

_Words = ctypes.Array[ctypes.c_uint64]


def _words(address: int, count: int) -> _Words:
    """A view of ``count`` 64-bit words at ``address``: reading or writing through it makes no
    ctypes object (no audit event, no Python code run) and reads only the words asked for."""
    return (ctypes.c_uint64 * count).from_address(address)


def _word(memory: _Words, address: int) -> int:
    """The index in ``memory`` (a view made by ``_words``) of the word at ``address``."""
    return (address - ctypes.addressof(memory)) // 8


def never_carved(address: int, pool_address: int) -> int | None:
    """How many pools of the arena at ``address`` lie above its carving frontier: never carved,
    counted in ``nfreepools`` (not in ``ntotalpools`` alone: retired pools leave that, see
    ``memory/pool_retire``). pymalloc aligns the first pool: an unaligned arena holds one fewer.
    None where the frontier is not a pool's start inside the arena."""
    first_pool = -(-address // POOL_SIZE) * POOL_SIZE
    capacity = (address + ARENA_SIZE - first_pool) // POOL_SIZE
    carved, rest = divmod(pool_address - first_pool, POOL_SIZE)
    return capacity - carved if not rest and 0 <= carved <= capacity else None


@dataclass(frozen=True)
class _Mapping:
    start: int
    end: int
    writable: bool
    path: str


def _mappings() -> list[_Mapping]:
    found = []
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            start, end = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5].strip() if len(parts) == 6 else ""
            found.append(_Mapping(start, end, parts[1].startswith("rw"), path))
    return found


class _Readable:
    """The writable mappings of the process, to check an address before it is read through."""

    def __init__(self, mappings: list[_Mapping]) -> None:
        spans = sorted((m.start, m.end) for m in mappings if m.writable)
        self._starts = [start for start, _ in spans]
        self._ends = [end for _, end in spans]

    def megabytes(self) -> set[int]:
        """Every MiB (address >> 20) a writable mapping touches."""
        spans = zip(self._starts, self._ends, strict=True)
        return {mb for start, end in spans for mb in range(start >> 20, ((end - 1) >> 20) + 1)}

    def holds(self, address: int, length: int) -> bool:
        index = bisect_right(self._starts, address) - 1
        return index >= 0 and address + length <= self._ends[index]

    def around(self, address: int, reach: int) -> tuple[int, int]:
        """The span of ``reach`` bytes each side of ``address`` that its mapping holds (empty if
        none holds it)."""
        index = bisect_right(self._starts, address) - 1
        if index < 0 or address >= self._ends[index]:
            return address, address
        return max(self._starts[index], address - reach), min(self._ends[index], address + reach)


def _static_data(mappings: list[_Mapping]) -> list[_Mapping]:
    """The interpreter's writable data (.data, and .bss: the anonymous mapping right after it),
    where pymalloc keeps its pointer to the table of arenas."""
    images = {os.path.realpath(sys.executable)}
    images.update(m.path for m in mappings if "libpython" in os.path.basename(m.path))
    found: list[_Mapping] = []
    for before, mapping in zip([None, *mappings], mappings, strict=False):
        if not mapping.writable:
            continue
        follows_image = before is not None and before.path in images and before.end == mapping.start
        bss = not mapping.path and follows_image
        if mapping.path in images or bss:
            found.append(mapping)
    return found


def _read(address: int, length: int) -> bytes:
    return ctypes.string_at(address, length)  # PYFUNCTYPE: keeps the interpreter lock


class _Probes:
    """Small bytes objects kept for the process's life: pymalloc blocks whose pool and size class
    are known, to recognise pymalloc's table of arenas and to check it again before each trim."""

    def __init__(self) -> None:
        self._objects = [os.urandom(size) for size in PROBE_SIZES]
        self.expected: list[tuple[int, int]] = []  # (pool address, arena index)

    def read_pools(self, readable: _Readable) -> None:
        """Each probe's pool and arena, from its pool's header (which must name the probe's size)."""
        expected = []
        for probe in self._objects:
            pool = id(probe) & ~(POOL_SIZE - 1)
            if not readable.holds(pool, POOL_HEADER.size):
                raise LookupError("a probe's pool is not in a writable mapping")
            header = POOL_HEADER.unpack(_read(pool, POOL_HEADER.size))
            count, arena_index, size_class = header[0], header[4], header[5]
            if count == 0 or size_class != (sys.getsizeof(probe) - 1) >> 4:
                raise LookupError("a probe's pool header does not match its size")
            expected.append((pool, arena_index))
        self.expected = expected

    def placed_by(self, table: int, readable: _Readable) -> bool:
        for pool, arena_index in self.expected:
            entry = table + arena_index * ARENA_OBJECT.size
            if not readable.holds(entry, ARENA_OBJECT.size):
                return False
            address, _, free, total, _, _, _ = ARENA_OBJECT.unpack(_read(entry, ARENA_OBJECT.size))
            if not (address <= pool < address + ARENA_SIZE and address % 4096 == 0):
                return False
            if total not in (ARENA_SIZE // POOL_SIZE, ARENA_SIZE // POOL_SIZE - 1) or free > total:
                return False
        return True


def _table_pointer(probes: _Probes, mappings: list[_Mapping], readable: _Readable) -> int:
    """The address of pymalloc's static pointer to its table of arenas: the one word of the
    interpreter's static data that, read as the table, places every probe right."""
    found = []
    static = _static_data(mappings)
    # the table is malloc'd: not in a file's mapping nor in the static data scanned (a set
    # lookup per word: the scan reads ~200,000 words, most of them pointers into the latter)
    heap = _Readable([m for m in mappings if not m.path.startswith("/") and m not in static])
    megabytes = heap.megabytes()
    for mapping in static:
        words = array.array("Q", _read(mapping.start, mapping.end - mapping.start))
        for index, word in enumerate(words):
            if word & 15 or word >> 20 not in megabytes:
                continue
            if readable.holds(word, ARENA_OBJECT.size) and probes.placed_by(word, readable):
                found.append(mapping.start + index * 8)
    if len(found) != 1:
        raise LookupError(f"{len(found)} candidates for pymalloc's table of arenas")
    return found[0]


def _table_length(usable: int) -> int | None:
    """How many entries pymalloc's table holds, from glibc's usable size of its chunk: a power of
    two, 16 or more (pymalloc doubles it from 16), and the chunk at most ``CHUNK_SLACK`` larger
    (an mmapped chunk, as the table becomes past ~2,700 arenas, is rounded up to a page).
    Retired pools keep arenas that would otherwise have been filled again, so a long session
    can pass that size."""
    entries = usable // ARENA_OBJECT.size
    if entries < 16:
        return None
    length = 1 << (entries.bit_length() - 1)
    fits = usable - length * ARENA_OBJECT.size < CHUNK_SLACK
    return length if fits and length <= MAX_ARENAS else None
