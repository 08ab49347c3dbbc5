"""Pull diagnostics: ``textDocument/diagnostic`` and ``workspace/diagnostic``.

Both answer from the result store, with result ids so that unchanged reports are possible. A
``workspace/diagnostic`` request that carries a ``partialResultToken`` (VS Code re-sends it two
seconds after every answer) is held open while nothing changed ("long polling").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ...contracts.detection import UNKNOWN
from ..session.documents import path_to_uri
from .encoded import EncodedDocuments, EncodedReport, joined
from .worker import Result

if TYPE_CHECKING:
    from ..session.host import Host
    from .jobs import JobRunner


class PullHandlers:
    """Builds the reports of the two pull requests."""

    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        self.cache = runner.cache
        self._workspace_reported: set[str] = set()  # uris in the last workspace/diagnostic answer
        self._last_workspace_answer: dict[str, str | None] | None = None
        # Per open document: the diagnostics last answered and their JSON (see encoded.py).
        self._encoded = EncodedDocuments()

    async def document(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        await self.runner.tasks.wait_for_settings()
        uri = params.text_document.uri
        if self.server.documents.get(uri) is None:
            raise JsonRpcInvalidParams(message=f"document is not open: {uri}")
        result = await self._current_result(uri)
        if result is None:  # edited faster than we can analyse: let the client ask again
            raise JsonRpcException(
                code=int(types.LSPErrorCodes.ServerCancelled),
                message="document changed during analysis",
                data={"retriggerRequest": True},
            )
        extra_key, extra = await self.server.diagnostics.extra_for(uri, result)
        result_id = self.cache.result_id(uri, result.fingerprint) + (f"~{extra_key}" if extra_key else "")
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items_json = joined(await self._items_json(uri, result), extra)
        return EncodedReport(items=result.diagnostics, result_id=result_id, items_json=items_json)

    async def _current_result(self, uri: str) -> Result | None:
        """The result of the document's current text, or None when the text changed under three
        analyses in a row. None, not the outdated result: the error the caller then raises keeps
        the caller's frame in a reference cycle (task, error, traceback), which the server
        freezes after the next job (``memory.collector``); a frame holding the outdated result kept
        that version's whole analysis alive while typing went on."""
        for _attempt in range(3):
            result = await self.runner.result_for_open(uri)
            if result is None:
                raise JsonRpcInvalidParams(message=f"document was closed: {uri}")
            if result.is_for(self.server.documents.get(uri)):
                return result
        return None

    def forget(self, uri: str) -> None:
        """The document was closed: its last report goes too (kept, the diagnostics of a 2 MB
        suite, thousands of objects, stayed alive after every document was closed)."""
        self._encoded.forget(uri)

    def encoded_uris(self) -> list[str]:
        return self._encoded.uris()

    async def _items_json(self, uri: str, result: Result) -> str:
        """The result's diagnostics as JSON, encoded once (off the loop when large), each
        diagnostic the previous report shares with it not encoded again."""
        return await self._encoded.items(uri, result.diagnostics, result.parts).text_off_loop()

    async def workspace(self, params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
        await self.runner.tasks.wait_for_settings()
        previous = {entry.uri: entry.value for entry in params.previous_result_ids or ()}
        long_poll = params.partial_result_token is not None
        while True:
            changed = self.cache.changed
            items = await self._workspace_items(previous)
            answer = {item.uri: item.result_id for item in items}
            if not long_poll or answer != self._last_workspace_answer:
                self._last_workspace_answer = answer
                return types.WorkspaceDiagnosticReport(items=items)
            await changed.wait()  # nothing new: hold the request until something changes

    async def _workspace_items(
        self, previous: dict[str, str]
    ) -> list[types.WorkspaceDocumentDiagnosticReport]:
        paths = await self.runner.workspace_files()
        path_set = set(paths)
        items: list[types.WorkspaceDocumentDiagnosticReport] = []
        seen: set[str] = set()
        closed = []
        for path in paths:
            snapshot = self.server.documents.for_path(path)
            if snapshot is None:
                closed.append(path)
        open_results = []
        for snapshot in self.server.documents:
            result = await self.runner.result_for_open(snapshot.uri)
            if result is not None and (result.kind != UNKNOWN or result.path in path_set):
                open_results.append(result)
        unchanged, closed = self._unchanged_closed(closed, previous)
        for result in open_results + await self.runner.disk_results_for(closed):
            if result.uri in seen:
                continue
            seen.add(result.uri)
            items.append(self._workspace_item(result, previous))
        for item in unchanged:
            if item.uri not in seen:
                seen.add(item.uri)
                items.append(item)
        # Files reported before that are gone (deleted, excluded) are reported once, empty.
        for uri in self._workspace_reported - seen:
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, items=[], version=None, result_id=self.cache.result_id(uri, ())
                )
            )
        self._workspace_reported = seen
        return items

    def _unchanged_closed(
        self, closed: list[Path], previous: dict[str, str]
    ) -> tuple[list[types.WorkspaceUnchangedDocumentDiagnosticReport], list[Path]]:
        """The closed files whose findings the client has (its previous result id is the id of
        their valid digest), answered "unchanged" without their diagnostics, which may not be
        kept (``disk_results``); and the others, to analyse or read from the cache."""
        unchanged, rest = [], []
        known = self.runner.known_disk_digests([path for path in closed if path_to_uri(path) in previous])
        for path in closed:
            uri = path_to_uri(path)
            findings = known.get(path)
            if findings is not None and previous[uri] == self.cache.result_id_of(uri, findings):
                report = types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, result_id=previous[uri], version=None
                )
                unchanged.append(report)
            else:
                rest.append(path)
        return unchanged, rest

    def _workspace_item(
        self, result: Result, previous: dict[str, str]
    ) -> types.WorkspaceDocumentDiagnosticReport:
        result_id = self.cache.result_id(result.uri, result.fingerprint)
        if previous.get(result.uri) == result_id:
            return types.WorkspaceUnchangedDocumentDiagnosticReport(
                uri=result.uri, result_id=result_id, version=result.version
            )
        return types.WorkspaceFullDocumentDiagnosticReport(
            uri=result.uri, items=result.diagnostics, version=result.version, result_id=result_id
        )
