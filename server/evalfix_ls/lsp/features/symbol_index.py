"""The workspace's case ids read once after start-up, so that ``workspace/symbol`` answers from
memory: after ``initialized`` the background worker walks the workspace, loads each repository's
workflow index and reads the case ids of every evals suite, in slices, with work-done progress
where the client takes it, and says in the log how many suites it read and in how long.

At 10,000 skills the first ``workspace/symbol`` did all of it on demand (~3 s, part of it on the
event loop); a request asked while the pass runs now waits for it instead of reading the same
files again on another worker. Only for clients that declare ``workspace.symbol``: a client that
never asks pays nothing. Later changes need no pass: suites are read again when their stamp
changed (``services.workspace_symbols.SuiteIds``), the index follows file events. The ids read
are dropped with the other document caches when the last document closes (the arenas of issue
19): a request after that reads the suites again on demand.

The progress report waits at most ``PROGRESS_WAIT_SECONDS`` for the client to accept its token: a
client that answers server requests late (or one at a time, behind its own ``workspace/symbol``)
must not hold the pass, which that request waits for.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from ..diagnostics.progress import WorkProgress

if TYPE_CHECKING:
    from . import FeatureServer

logger = logging.getLogger(__name__)

SLICE = 256  # suites read per call on the background worker (other work interleaves between)
TITLE = "evalfix-ls: indexing case ids"
LOGGED = "workspace symbols indexed"  # the log line's start (bench.monorepo waits for it)
PROGRESS_WAIT_SECONDS = 1.0


class SymbolIndex:
    def __init__(self, server: FeatureServer) -> None:
        self.server = server
        self._pass: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin the pass (on ``initialized``), for a client that asks for workspace symbols."""
        if self.server.client_features.supports("workspace", "symbol") is None:
            return
        self._pass = self.server.diagnostics.spawn(self._read_all(), "index the case ids")

    async def ready(self) -> None:
        """Once the start-up pass (if one runs) has ended, however it ended."""
        running = self._pass
        if running is not None and not running.done():
            await asyncio.wait([running])

    async def _read_all(self) -> None:
        from ...services.workspace_symbols import read_suite_ids, repo_roots

        started = time.perf_counter()
        ctx = await self.server.prepared_workspace_context()
        suites, roots = ctx.evals_suites, repo_roots(ctx.facts)
        try:
            progress = await asyncio.wait_for(
                WorkProgress.begin(self.server, len(suites), TITLE), PROGRESS_WAIT_SECONDS
            )
        except asyncio.TimeoutError:  # (not ``TimeoutError`` before Python 3.11)  # noqa: UP041
            progress = None
        loop = asyncio.get_running_loop()
        try:
            for at in range(0, len(suites), SLICE):
                await loop.run_in_executor(
                    self.server.background, read_suite_ids, suites[at : at + SLICE], roots
                )
                if progress is not None:
                    progress.report(min(at + SLICE, len(suites)))
        finally:
            if progress is not None:
                progress.end(f"{len(suites)} suites")
        logger.info(
            "%s: %d suites and %d repositories in %.2f s",
            LOGGED,
            len(suites),
            len(ctx.facts),
            time.perf_counter() - started,
        )
