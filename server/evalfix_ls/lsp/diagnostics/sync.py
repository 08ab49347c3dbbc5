"""Cross-file facts: a buffer's text can change other files' findings (a sibling's ids, a skill's
readiness), so a repository's queued facts are applied soon after an edit, even when nobody asks
for the changed file itself; the job runner re-checks whatever the sync affects."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from ...memory.tables import pop_and_shrink
from .jobs import JobRunner
from .worker import sync_repo

if TYPE_CHECKING:
    from ..session.host import Host


class RepoSync:
    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        self._tasks: dict[Path, asyncio.Task[None]] = {}

    def schedule(self, root: Path) -> None:
        """Apply the queued facts of the repository at ``root`` after the debounce."""
        task = self._tasks.get(root)
        if task is not None and not task.done():
            task.cancel()
        self._tasks[root] = self.runner.tasks.spawn(self._sync(root), f"sync {root}")

    def ensure(self, root: Path) -> None:
        """Apply the queued facts of ``root`` unless a sync of it is already on its way (the
        index just loaded: texts queued meanwhile wait for it)."""
        task = self._tasks.get(root)
        if task is None or task.done():
            self.schedule(root)

    async def _sync(self, root: Path) -> None:
        await asyncio.sleep(self.server.settings.folder_config(root).debounce_ms / 1000)
        repo = self.server.workspace_index.repo(root)
        # The next edit cancels this task, maybe while the worker already syncs: the runner
        # re-checks what the sync affects all the same.
        try:
            # One slice of the queued texts per call (``RepoState.sync``): a call is one entry of
            # the analysis queue, so the analysis of a keystroke queued meanwhile runs between
            # two slices instead of after all 5,000 texts of a checkout.
            await self.runner.syncing_call(lambda affected: affected, sync_repo, repo)
            while repo.texts_pending():
                await self.runner.syncing_call(lambda affected: affected, sync_repo, repo)
            if repo.take_partial():
                # An analysis ran between two slices: its result, keyed with the generation of
                # the whole burst, saw part of it. A new generation has it computed again.
                self.runner.index_outdated(repo)
        finally:
            self._forget(root)

    def _forget(self, root: Path) -> None:
        """The sync of ``root`` ended: its task (with its coroutine, context and name) is not kept
        until the next edit; kept, the last one outlived a close and pinned one of the closed
        document's pymalloc arenas (issue 19, point 5)."""
        if self._tasks.get(root) is asyncio.current_task():
            pop_and_shrink(self._tasks, root)
