"""How findings reach the client: two strategies behind one interface, chosen once by what the
client said in ``initialize``.

* ``PushStrategy`` (clients without ``textDocument.diagnostic``): every change schedules an
  analysis whose result is published; closed workspace files are scanned and published.
* ``PullStrategy``: the client asks (``textDocument/diagnostic``, ``workspace/diagnostic``); a
  change only wakes parked workspace pulls, and a change that alters other files' findings asks
  the client to pull again (``workspace/diagnostic/refresh``, coalesced).

The manager tells a strategy what happened; the strategy decides what the client is told.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..session.documents import Snapshot
from .jobs import JobRunner
from .pull import PullHandlers
from .push import PushScheduler
from .scan import WorkspaceScan

if TYPE_CHECKING:
    from ..session.host import Host

logger = logging.getLogger(__name__)

REFRESH_DELAY = 0.03  # coalesces refresh requests to pull clients


class Strategy(Protocol):
    def opened(self, snapshot: Snapshot) -> None: ...
    def changed(self, snapshot: Snapshot) -> None: ...
    def closed(self, snapshot: Snapshot) -> None: ...
    def affected(self, open_uris: list[str], closed: list[Path]) -> None:
        """Another file's change may have altered these files' findings."""

    def recheck_open(self) -> None:
        """Every open document's findings may differ (settings, project files)."""

    def recheck_workspace(self) -> None:
        """Closed files' findings may differ too (files appeared, vanished, changed)."""

    def files_changed(self, open_uris: list[str], touched: bool) -> None:
        """File events changed existence facts of these open documents' repositories."""

    def initialized(self) -> None:
        """The first settings are in: the session's diagnostics begin."""


class PushStrategy:
    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        self.publisher = PushScheduler(server, runner)
        self.scan = WorkspaceScan(server, runner, self.publisher)

    def opened(self, snapshot: Snapshot) -> None:
        self.publisher.schedule(snapshot.uri, delay=0.0)

    def changed(self, snapshot: Snapshot) -> None:
        self.publisher.schedule(snapshot.uri)

    def closed(self, snapshot: Snapshot) -> None:
        self.publisher.forget(snapshot.uri)
        self.runner.tasks.spawn(self.publisher.after_close(snapshot), f"close {snapshot.uri}")

    def affected(self, open_uris: list[str], closed: list[Path]) -> None:
        for uri in open_uris:
            self.publisher.schedule(uri)
        if closed:
            self.runner.tasks.spawn(self.scan.publish_affected(closed), "publish affected")

    def recheck_open(self) -> None:
        for snapshot in self.server.documents:
            self.publisher.schedule(snapshot.uri)

    def recheck_workspace(self) -> None:
        self.scan.request()

    def initialized(self) -> None:
        self.scan.request(progress=True, delay=0.0)

    def files_changed(self, open_uris: list[str], touched: bool) -> None:
        for uri in open_uris:
            self.publisher.schedule(uri)
        self.recheck_workspace()


class PullStrategy:
    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        self.handlers = PullHandlers(server, runner)
        self._refresh_handle: asyncio.TimerHandle | None = None

    def opened(self, snapshot: Snapshot) -> None:
        self.runner.cache.notify_changed()

    def changed(self, snapshot: Snapshot) -> None:
        self.runner.cache.notify_changed()

    def closed(self, snapshot: Snapshot) -> None:
        self.handlers.forget(snapshot.uri)
        self.runner.cache.notify_changed()

    def affected(self, open_uris: list[str], closed: list[Path]) -> None:
        if open_uris or closed:
            self.request_refresh()

    def recheck_open(self) -> None:
        if len(self.server.documents):
            self.request_refresh()
        self.runner.cache.notify_changed()

    def recheck_workspace(self) -> None:
        self.request_refresh()

    def initialized(self) -> None:
        pass  # the client pulls

    def files_changed(self, open_uris: list[str], touched: bool) -> None:
        if touched:  # nothing known lies below the changed paths: no need to pull again
            self.request_refresh()
        self.runner.cache.notify_changed()

    def request_refresh(self) -> None:
        """Ask the client to pull again (``workspace/diagnostic/refresh``), coalesced."""
        if not self.server.client_features.diagnostic_refresh or self._refresh_handle is not None:
            return

        def send() -> None:
            self._refresh_handle = None
            try:
                self.server.workspace_diagnostic_refresh(None)
            except Exception:
                logger.exception("workspace/diagnostic/refresh failed")

        self._refresh_handle = asyncio.get_running_loop().call_later(REFRESH_DELAY, send)

    def cancel(self) -> None:
        if self._refresh_handle is not None:
            self._refresh_handle.cancel()
            self._refresh_handle = None
