"""The real server for ``bench.soak``, plus one read-only request, ``evalfix/bench/state``: what
only the server's own process can count — its asyncio tasks (every task of its loop but the one
answering), the diagnostics family's background tasks, its threads and the closed files whose
results it keeps. RSS and open file descriptors are read from ``/proc`` by the client.

Started as ``python -c`` from ``bench.soak`` (``serve``): nothing else is patched, so what is
measured is the server a user runs, with one more handler.
"""

from __future__ import annotations

import asyncio
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
    }


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
