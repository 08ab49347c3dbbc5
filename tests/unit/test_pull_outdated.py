"""A pull outdated by typing keeps no analysis alive through its error (issue 19, the recorded
VS Code traffic).

A pull whose document changed under three analyses in a row is answered ``ServerCancelled``
(retrigger). The error's traceback holds the frames it went through, and the task that keeps the
error forms a reference cycle with them; the server freezes what is alive after each analysis job
(``memory.collector``), so such a cycle stays until an idle collection. A frame that still held the
last outdated result kept that version's whole analysis (a 10 MB suite's tree and findings) alive
per outdated pull. Checked on the traceback itself: no frame it holds refers to a result."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from evalfix_ls.lsp.diagnostics.edit_log import EditLog
from evalfix_ls.lsp.diagnostics.jobs import JobRunner
from evalfix_ls.lsp.diagnostics.pull import PullHandlers
from evalfix_ls.lsp.diagnostics.results import ResultCache
from evalfix_ls.lsp.diagnostics.tasks import BackgroundTasks
from evalfix_ls.lsp.diagnostics.worker import Result
from evalfix_ls.lsp.jsonrpc.pygls_private import HookedProtocol
from evalfix_ls.lsp.session.documents import DocumentStore
from evalfix_ls.lsp.session.host import Host
from evalfix_ls.text.line_index import Encoding


class _Server(Host):
    """A ``Host`` with no client: its open documents are all a pull reads of it."""

    def __init__(self) -> None:
        super().__init__("evalfix-ls-test", "0", protocol_cls=HookedProtocol)
        self.documents = DocumentStore()


class _TypingRunner(JobRunner):
    """Every analysis ends for a text the user has already changed again."""

    def __init__(self, server: Host) -> None:
        super().__init__(server, EditLog(), ResultCache(), BackgroundTasks(), lambda paths: None)
        self.tasks.settings_ready.set()
        self.analyses = 0

    async def result_for_open(self, uri: str) -> Result | None:
        self.analyses += 1
        analyzed = self.server.documents.require(uri)
        keystroke = types.TextDocumentContentChangeWholeDocument(text=analyzed.text + " ")
        self.server.documents.change(uri, analyzed.version + 1, [keystroke], Encoding.UTF16)
        return Result(
            uri, Path("evals.json"), analyzed.version, (), analyzed.text, "evals", [], (),
            revision=analyzed.revision,
        )  # fmt: skip


def _results_held(error: BaseException) -> list[str]:
    held = []
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        names = [name for name, value in frame.f_locals.items() if isinstance(value, Result)]
        held += [f"{frame.f_code.co_name}.{name}" for name in names]
        tb = tb.tb_next
    return held


def test_an_outdated_pull_error_holds_no_result() -> None:
    uri = "file:///repo/evals/evals.json"
    server = _Server()
    server.documents.open(uri, 1, "{}")
    runner = _TypingRunner(server)
    handlers = PullHandlers(server, runner)
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    try:
        asyncio.run(handlers.document(params))
    except JsonRpcException as error:
        assert error.code == int(types.LSPErrorCodes.ServerCancelled)
        assert runner.analyses == 3  # it did try three times
        assert _results_held(error) == []
    else:
        raise AssertionError("an outdated pull was answered")
