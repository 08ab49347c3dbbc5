"""The real server for ``bench.soak``, plus one read-only request, ``evalfix/bench/state``: what
only the server's own process can count — its asyncio tasks (every task of its loop but the one
answering), the diagnostics family's background tasks, its threads and the closed files whose
results it keeps. RSS and open file descriptors are read from ``/proc`` by the client.

Started as ``python -c`` from ``bench.soak`` (``serve``): nothing else is patched, so what is
measured is the server a user runs, with one more handler.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import sys
import threading
from typing import Any

STATE_METHOD = "evalfix/bench/state"


def _state(ls: Any) -> dict[str, int]:
    diagnostics = ls.diagnostics
    return {
        "asyncio tasks": len(asyncio.all_tasks()) - 1,  # not the task answering this request
        "background tasks": len(diagnostics.tasks),
        "threads": threading.active_count(),
        "closed-file results": len(diagnostics.cache.disk),
        "frozen objects": gc.get_freeze_count(),
        # Live Python objects' blocks (pymalloc), and what glibc's heap has in use and free: RSS
        # that grows while these stay flat is memory kept by the allocators, not by the server.
        "allocated blocks": sys.getallocatedblocks(),
        **_mallinfo(),
        **_pools(),
    }


def _pools() -> dict[str, int]:
    """pymalloc's arenas and their pools, used and empty (carved, on an arena's list of empty
    pools): after a trim an empty pool keeps one resident page (its header), a used one up to
    four. Read from the table ``memory/pool_trim`` finds, while no other thread runs."""
    from evalfix_ls.memory import arena_lists, pool_trim
    from evalfix_ls.memory.pymalloc_table import never_carved

    found = pool_trim.trimmer()
    if found is None:
        return {}
    readable = pool_trim._Readable(pool_trim._mappings())
    with pool_trim._exclusive():
        table = found._table(readable)
        if table is None:
            return {}
        raw = pool_trim._read(table[0], table[1] * pool_trim.ARENA_OBJECT.size)
        arenas = used = empty = trailing = 0
        for index in range(table[1]):
            entry = pool_trim.ARENA_OBJECT.unpack_from(raw, index * pool_trim.ARENA_OBJECT.size)
            address, pool_address, free, total, first_empty = entry[:5]
            if not address:
                continue
            uncarved = never_carved(address, pool_address) or 0
            arenas += 1
            used += total - free
            empty += free - uncarved  # listed: retired pools are in neither count
            arena = arena_lists._Arena(free, index, address, pool_address, total, first_empty)
            listed = arena_lists._listed_pools(pool_trim._words(address, pool_trim.ARENA_SIZE // 8), arena)
            trailing += len(arena_lists._trailing_run(listed, pool_address))
    return {"pymalloc arenas": arenas, "used pools": used, "empty pools": empty, "trailing empty": trailing}


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks")
        + ("uordblks", "fordblks", "keepcost")
    ]


def _mallinfo() -> dict[str, int]:
    """glibc's ``mallinfo2`` (bytes in use by malloc, free in its heap, in mmapped blocks)."""
    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return {}
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return {"malloc in use": info.uordblks, "malloc free": info.fordblks, "malloc mmapped": info.hblkhd}


def serve() -> None:
    from evalfix_ls.cli import main
    from evalfix_ls.lsp import server as server_module

    create = server_module.create_server

    def create_server() -> Any:
        server = create()

        @server.feature(STATE_METHOD)
        async def state(ls: Any, params: Any) -> dict[str, int]:
            return _state(ls)

        return server

    server_module.create_server = create_server
    sys.exit(main([]))
