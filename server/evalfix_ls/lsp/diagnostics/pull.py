"""Pull diagnostics: ``textDocument/diagnostic`` and ``workspace/diagnostic``.

Both answer from the result store, with result ids so that unchanged reports are possible;
``workspace/diagnostic`` is ``workspace_pull``'s (streamed, long-polled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ..jsonrpc.encoded import EncodedResult
from .encoded import EncodedDocuments, EncodedReport, joined
from .worker import Result
from .workspace_pull import WorkspacePull

if TYPE_CHECKING:
    from ..session.host import Host
    from .jobs import JobRunner


class PullHandlers:
    """Builds the reports of the two pull requests."""

    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        self.cache = runner.cache
        self._workspace = WorkspacePull(server, runner)
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

    async def workspace(self, params: types.WorkspaceDiagnosticParams) -> EncodedResult:
        return await self._workspace.answer(params)
