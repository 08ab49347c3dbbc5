"""Which live blocks keep CPython's pymalloc arenas (1 MiB each) from being given back: a scan of
every pool of every anonymous mapping of the process it runs in (CPython 3.10+ on 64-bit Linux).

An arena returns to the system only when every one of its pools is empty, so after a large
document is closed a few small objects made during its analysis (a cache entry, a task, a
string) can keep megabytes resident while the live heap is back to its size before the open.
``tracemalloc`` sees no difference then; this scan sees where the remaining blocks are.

Used from a server (``bench/tools/census_server.py`` answers ``evalfix/bench/census``): the
first call remembers every allocated block; later calls list the arenas with few used pools and,
for each block allocated since the first call, its type (when it is an object) and a short repr.
Reads go through ``/proc/self/mem``, so a mapping that disappears meanwhile fails the read
instead of the process. Diagnostic only: nothing of the server imports it.
"""

from __future__ import annotations

import array
import ctypes
import gc
import os
import struct
import sys
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

POOL_SIZE = 16 * 1024  # POOL_BITS 14 (the radix tree build of 3.10+)
POOL_OVERHEAD = 48  # sizeof(struct pool_header), rounded up to ALIGNMENT (16)
GC_HEAD = 16  # PyGC_Head before a tracked object (two words)
# count (padded to a word), freeblock, nextpool, prevpool, arenaindex, szidx, nextoffset, maxnextoffset
_HEADER = struct.Struct("<QQQQIIII")


@dataclass
class Census:
    """Every allocated block of every used pool, in arrays (a Python int per address would be a
    new object in the very arenas being looked at)."""

    blocks: array.array[int] = field(default_factory=lambda: array.array("Q"))
    sizes: array.array[int] = field(default_factory=lambda: array.array("I"))
    arenas: array.array[int] = field(default_factory=lambda: array.array("I"))
    pools_per_arena: dict[int, int] = field(default_factory=dict)


def _anonymous_mappings() -> list[tuple[int, int]]:
    found = []
    with open("/proc/self/maps", encoding="ascii") as maps:
        for line in maps:
            parts = line.split()
            if len(parts) == 5 and parts[1].startswith("rw"):
                start, end = (int(x, 16) for x in parts[0].split("-"))
                found.append((start, end))
    return found


def _pool(memory: int, address: int, census: Census) -> None:
    try:
        raw = os.pread(memory, POOL_SIZE, address)
    except OSError:
        return
    if len(raw) < POOL_SIZE:
        return
    count_word, freeblock, _next, _prev, arena, szidx, nextoffset, maxnext = _HEADER.unpack_from(raw)
    count = count_word & 0xFFFFFFFF
    if szidx >= 32 or count == 0:
        return
    size = (szidx + 1) << 4
    if maxnext != POOL_SIZE - size or not POOL_OVERHEAD <= nextoffset <= maxnext + size:
        return
    carved = range(POOL_OVERHEAD, nextoffset, size)
    if count > len(carved):
        return
    free: set[int] = set()
    pointer = freeblock
    while pointer and address <= pointer < address + POOL_SIZE and pointer not in free:
        free.add(pointer)
        pointer = struct.unpack_from("<Q", raw, pointer - address)[0]
    blocks = [address + offset for offset in carved if address + offset not in free]
    if len(blocks) != count:
        return  # not a pool header after all (or one changing under the scan)
    census.blocks.extend(blocks)
    census.sizes.extend([size] * count)
    census.arenas.extend([arena] * count)
    census.pools_per_arena[arena] = census.pools_per_arena.get(arena, 0) + 1


def scan() -> Census:
    census = Census()
    memory = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        for start, end in _anonymous_mappings():
            first = (start + POOL_SIZE - 1) & ~(POOL_SIZE - 1)
            for address in range(first, end - POOL_SIZE + 1, POOL_SIZE):
                _pool(memory, address, census)
    finally:
        os.close(memory)
    return census


def _types() -> dict[int, type]:
    seen: dict[int, type] = {}
    for obj in gc.get_objects():
        for candidate in (obj, *gc.get_referents(obj)):
            kind = type(candidate)
            seen.setdefault(id(kind), kind)
            if isinstance(candidate, type):
                seen.setdefault(id(candidate), candidate)
    return seen


def _object_at(block: int, types: dict[int, type]) -> tuple[int, type] | None:
    for offset in (0, GC_HEAD):
        address = block + offset
        type_address = ctypes.c_uint64.from_address(address + 8).value
        refcount = ctypes.c_int64.from_address(address).value
        if type_address in types and 0 < refcount < 1 << 40:
            return address, types[type_address]
    return None


def _describe(block: int, size: int, types: dict[int, type]) -> str:
    found = _object_at(block, types)
    if found is None:
        return f"raw {size} B: {ctypes.string_at(block, min(size, 32))!r}"
    address, kind = found
    obj: Any = ctypes.cast(address, ctypes.py_object).value
    text = repr(obj) if isinstance(obj, (str, bytes, int, float)) else _short(obj)
    referrers = ""
    if gc.is_tracked(obj) or isinstance(obj, str):
        owners = [type(r).__name__ for r in gc.get_referrers(obj)][:4]
        referrers = f" <- {owners}"
    return f"{kind.__module__}.{kind.__qualname__}: {text[:100]}{referrers}"


def _short(obj: object) -> str:
    try:
        text = repr(obj)
    except Exception as exc:  # noqa: BLE001 - a diagnostic: any repr may fail
        text = f"<repr failed: {exc!r}>"
    return text.replace("\n", " ")


_baseline = array.array("Q")  # sorted addresses of the blocks allocated at the first call


def _known(block: int) -> bool:
    index = bisect_left(_baseline, block)
    return index < len(_baseline) and _baseline[index] == block


def report(*, sparse_pools: int = 8, limit: int = 40) -> list[str]:
    """First call: remember the allocated blocks. Later calls: the arenas with at most
    ``sparse_pools`` used pools, with their blocks allocated since the first call."""
    census = scan()
    if not _baseline:
        _baseline.extend(sorted(census.blocks))
        return [f"baseline: {len(census.pools_per_arena)} arenas, {len(_baseline)} blocks"]
    types = _types()
    lines = [f"{len(census.pools_per_arena)} arenas, {len(census.blocks)} blocks"]
    sparse = {arena for arena, pools in census.pools_per_arena.items() if pools <= sparse_pools}
    by_arena: dict[int, list[tuple[int, int]]] = {}
    for block, size, arena in zip(census.blocks, census.sizes, census.arenas, strict=True):
        if arena in sparse and not _known(block):
            by_arena.setdefault(arena, []).append((block, size))
    for arena, new in sorted(by_arena.items(), key=lambda item: census.pools_per_arena[item[0]]):
        pools = census.pools_per_arena[arena]
        lines.append(f"arena {arena}: {pools} pools, {len(new)} new blocks")
        lines.extend("    " + _describe(block, size, types) for block, size in new[:limit])
    sys.stdout.flush()
    return lines
