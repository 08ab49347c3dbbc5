"""The workspace scan (push clients): closed fixture files of the workspace are analysed once
after ``initialized`` (with ``$/progress`` when the client supports it) and again when files
change; their diagnostics are pushed, and files that left the workspace have theirs cleared.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..session.documents import path_to_uri
from .jobs import SCAN_CHUNK, JobRunner
from .progress import WorkProgress
from .push import PushScheduler

if TYPE_CHECKING:
    from ..session.host import Host

logger = logging.getLogger(__name__)

RESCAN_DELAY = 0.2  # coalesces bursts of file events (a checkout) into one rescan


class WorkspaceScan:
    """Pushes the diagnostics of the closed fixture files of the workspace."""

    def __init__(self, server: Host, runner: JobRunner, push: PushScheduler) -> None:
        self.server = server
        self.runner = runner
        self.push = push
        self._task: asyncio.Task[None] | None = None
        self._again = False

    def request(self, *, progress: bool = False, delay: float = RESCAN_DELAY) -> None:
        if self._task is not None and not self._task.done():
            self._again = True  # the running scan starts over when it finishes
            return
        self._task = self.runner.tasks.spawn(self._scan(progress, delay), "workspace scan")

    async def _scan(self, progress: bool, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        while True:
            self._again = False
            await self._scan_once(progress)
            if not self._again:
                return
            progress = False
            await asyncio.sleep(RESCAN_DELAY)

    async def _scan_once(self, progress: bool) -> None:
        await self.runner.tasks.wait_for_settings()
        started = time.perf_counter()
        paths = await self.runner.workspace_files()
        closed = [path for path in paths if self.server.documents.for_path(path) is None]
        title = "evalfix-ls: checking fixture files"
        reporter = await WorkProgress.begin(self.server, len(closed), title) if progress else None
        try:
            for start in range(0, len(closed), SCAN_CHUNK):
                await self.push.publish_disk(closed[start : start + SCAN_CHUNK])
                if reporter is not None:
                    reporter.report(min(start + SCAN_CHUNK, len(closed)))
            # Files that vanished from the workspace (deleted, configuration) lose their diagnostics.
            current = {path_to_uri(path) for path in paths}
            for uri in list(self.push.published):
                if uri not in current and self.server.documents.get(uri) is None:
                    self.push.clear(uri)
        finally:
            if reporter is not None:
                reporter.end(f"checked {len(closed)} fixture files")
        logger.info(
            "workspace scan: %d closed fixture files in %.2f s", len(closed), time.perf_counter() - started
        )

    async def publish_affected(self, paths: list[Path]) -> None:
        """Push the diagnostics of closed files another file's change may have altered."""
        workspace = set(await self.runner.workspace_files())
        await self.push.publish_disk([path for path in paths if path in workspace])
