"""Push diagnostics (clients without ``textDocument.diagnostic``): debounce and publish.

Every edit (re)starts a short per-document debounce; then at most one analysis per document runs
at a time, and a result is published only if its version is still the document's version — a user
typing steadily sees the latest version, never a backlog. Closed workspace files are published
from their disk results, and only when their diagnostics changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ...memory.tables import pop_and_shrink
from ..session.documents import Snapshot, path_to_uri
from .convert import Digest, digest
from .encoded import EncodedDocuments, EncodedPublishParams, joined

if TYPE_CHECKING:
    from ..session.host import Host
    from .encoded import ReportPart
    from .jobs import JobRunner


class _PushState:
    """The per-document push pipeline: a debounce task and whether an analysis is running."""

    __slots__ = ("task", "computing", "again", "changed_at")

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.computing = False
        self.again = False
        self.changed_at = 0.0  # event-loop time of the last change scheduled


class PushScheduler:
    """Schedules analyses of open documents and publishes ``textDocument/publishDiagnostics``."""

    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        # Each published diagnostic's JSON, reused by the next notification (see encoded.py).
        self._encoded = EncodedDocuments()
        self._push: dict[str, _PushState] = {}
        self.published: dict[str, Digest] = {}  # uri -> digest of the findings last pushed

    def _debounce_seconds(self, path: Path | None) -> float:
        return self.server.settings.config_for(path).debounce_ms / 1000

    def schedule(self, uri: str, delay: float | None = None) -> None:
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return
        state = self._push.setdefault(uri, _PushState())
        state.changed_at = asyncio.get_running_loop().time()
        if state.computing:
            state.again = True  # the running loop re-analyses the latest text when it finishes
            return
        if state.task is not None and not state.task.done():
            state.task.cancel()  # still debouncing: restart the wait
        if delay is None:
            delay = self._debounce_seconds(snapshot.path)
        state.task = self.runner.tasks.spawn(self._push_loop(uri, state, delay), f"push {uri}")

    async def _push_loop(self, uri: str, state: _PushState, delay: float) -> None:
        await self.runner.tasks.wait_for_settings()
        while True:
            if delay:
                await asyncio.sleep(delay)
            state.computing, state.again = True, False
            try:
                result = await self.runner.result_for_open(uri)
            finally:
                state.computing = False
            extra: Sequence[str] = ()
            if result is not None:
                _key, extra = await self.server.diagnostics.extra_for(uri, result)
            current = self.server.documents.get(uri)
            if result is None or current is None:
                return
            if result.is_for(current):
                self.publish(
                    uri,
                    result.diagnostics,
                    result.version,
                    findings=result.findings_digest(),
                    parts=result.parts,
                    extra=extra,
                )
            elif not state.again:  # defensive: a change always sets ``again``
                state.again = True
            if not state.again:
                return
            # The debounce runs from the last keystroke, not from the end of the analysis: typing
            # went on while it ran, and waiting a whole debounce again after it only adds latency
            # (on a 2 MB suite typed at ten keystrokes a second, one analysis outlasts a debounce).
            quiet_for = asyncio.get_running_loop().time() - state.changed_at
            delay = max(0.0, self._debounce_seconds(current.path) - quiet_for)

    def forget(self, uri: str) -> None:
        """The document was closed: stop its pipeline."""
        state = pop_and_shrink(self._push, uri)
        if state is not None and state.task is not None:
            state.task.cancel()

    async def after_close(self, snapshot: Snapshot) -> None:
        """A closed workspace fixture file keeps its (disk) diagnostics; any other closed document
        has its diagnostics cleared."""
        uri = snapshot.uri
        path = snapshot.path
        if path is not None and path in set(await self.runner.workspace_files()):
            if self.server.documents.get(uri) is None:
                await self.publish_disk([path])
            return
        if self.server.documents.get(uri) is None and uri in self.published:
            self.clear(uri)

    def publish(
        self,
        uri: str,
        diagnostics: Sequence[types.Diagnostic],
        version: int | None,
        *,
        findings: Digest,
        parts: list[ReportPart] | None = None,
        extra: Sequence[str] = (),
    ) -> None:
        items = joined(self._encoded.items(uri, diagnostics, parts).text(), extra)
        self.server.text_document_publish_diagnostics(
            EncodedPublishParams(uri=uri, diagnostics=diagnostics, version=version, diagnostics_json=items)
        )
        self.published[uri] = findings

    def clear(self, uri: str) -> None:
        """Publish no diagnostics for ``uri`` and forget that it had any."""
        self.publish(uri, [], None, findings=digest(()))
        del self.published[uri]
        self._encoded.forget(uri)

    async def publish_disk(self, paths: list[Path]) -> None:
        known = self.runner.known_disk_digests(paths)
        # What was pushed is still what the file says: nothing to analyse (its diagnostics may
        # not be kept: ``disk_results``).
        paths = [
            path for path in paths if path not in known or not self._pushed(path_to_uri(path), known[path])
        ]
        for result in await self.runner.disk_results_for(paths):
            if self.server.documents.get(result.uri) is not None:
                continue  # opened meanwhile: the buffer's pipeline owns it
            if not self._pushed(result.uri, result.findings_digest()):
                self.publish(result.uri, result.diagnostics, None, findings=result.findings_digest())
                self._encoded.forget(result.uri)  # a closed file's JSON is not reused often enough

    def _pushed(self, uri: str, findings: Digest) -> bool:
        previous = self.published.get(uri)
        return previous == findings or (previous is None and findings[0] == 0)
