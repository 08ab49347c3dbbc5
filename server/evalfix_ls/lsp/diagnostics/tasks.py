"""Background tasks of the diagnostics family and the settings gate they wait behind."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

SETTINGS_WAIT_SECONDS = 2.0  # a pull waits this long at most for the first workspace/configuration


class BackgroundTasks:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()
        self.closed = False  # shutting down: worker calls that end now change nothing
        self.settings_ready = asyncio.Event()

    # Any: what a coroutine yields to the event loop and is sent back (asyncio's own annotation)
    def spawn(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """A background task whose failure is logged, never lost and never fatal."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[object]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            logger.error("background task %s failed", task.get_name(), exc_info=exc)

    def __len__(self) -> int:
        return len(self._tasks)

    def cancel_all(self) -> None:
        self.closed = True
        for task in list(self._tasks):
            task.cancel()

    async def wait_for_settings(self) -> None:
        if not self.settings_ready.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.settings_ready.wait(), SETTINGS_WAIT_SECONDS)
