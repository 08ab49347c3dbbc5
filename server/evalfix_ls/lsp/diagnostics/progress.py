"""Work-done progress (``$/progress`` begin / report with a percentage / end) of the passes over
the workspace's closed files: the push scan and a ``workspace/diagnostic`` that has files to
analyse. A monorepo's first pass reads 12,000 files (10-30 s); without progress the editor shows
nothing while a core is busy.

The token is the client's when the request carries a ``workDoneToken``, else one the server
creates (``window/workDoneProgress/create``) when the client supports it; a client that refuses
gets no progress, never an error.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types

if TYPE_CHECKING:
    from pygls.progress import Progress

    from ..session.client_features import ClientFeatures


class ProgressHost(Protocol):
    """What a progress report needs of the server (the diagnostics' passes and the features'
    start-up pass report through it)."""

    @property
    def client_features(self) -> ClientFeatures: ...
    @property
    def work_done_progress(self) -> Progress: ...


logger = logging.getLogger(__name__)


class WorkProgress:
    """One pass's progress, reported as files are done."""

    def __init__(self, server: ProgressHost, token: types.ProgressToken, total: int) -> None:
        self.server = server
        self.token = token
        self.total = total

    @classmethod
    async def begin(
        cls, server: ProgressHost, total: int, title: str, client_token: types.ProgressToken | None = None
    ) -> WorkProgress | None:
        """Progress for ``total`` files (None: the client takes none)."""
        token = client_token
        if token is None:
            if not server.client_features.work_done_progress:
                return None
            token = f"evalfix-{uuid.uuid4()}"
            try:
                await server.work_done_progress.create_async(token)
            except Exception as exc:  # the client refused: the pass goes on without progress
                logger.info("no progress report for %r: %s", title, exc)
                return None
        begin = types.WorkDoneProgressBegin(title=title, message=f"0/{total} files", percentage=0)
        server.work_done_progress.begin(token, begin)
        return cls(server, token, total)

    def report(self, done: int) -> None:
        percentage = done * 100 // max(1, self.total)
        report = types.WorkDoneProgressReport(message=f"{done}/{self.total} files", percentage=percentage)
        self.server.work_done_progress.report(self.token, report)

    def end(self, message: str) -> None:
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
