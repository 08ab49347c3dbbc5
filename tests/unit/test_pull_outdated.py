"""A pull outdated by typing keeps no analysis alive through its error (issue 19, the recorded
VS Code traffic).

A pull whose document changed under three analyses in a row is answered ``ServerCancelled``
(retrigger). The error's traceback holds the frames it went through, and the task that keeps the
error forms a reference cycle with them; the server freezes what is alive after each analysis job
(``lsp.collector``), so such a cycle stays until an idle collection. A frame that still held the
last outdated result kept that version's whole analysis (a 10 MB suite's tree and findings) alive
per outdated pull. Checked on the traceback itself: no frame it holds refers to a result."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from evalfix_ls.lsp.analyzer import Result
from evalfix_ls.lsp.diagnostics.pull import PullHandlers
from evalfix_ls.lsp.diagnostics.results import ResultCache


class _TypingRunner:
    """Every analysis ends for a text the user has already changed again."""

    def __init__(self, documents: dict[str, Any]) -> None:
        self.documents = documents
        self.cache = ResultCache()
        self.tasks = SimpleNamespace(wait_for_settings=self._ready)
        self.analyses = 0

    async def _ready(self) -> None:
        return None

    async def result_for_open(self, uri: str) -> Result:
        self.analyses += 1
        analysed = self.documents[uri]
        self.documents[uri] = SimpleNamespace(revision=analysed.revision + 1)  # a keystroke
        return Result(uri, Path("evals.json"), 1, (), "{}", "evals", [], (), revision=analysed.revision)


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
    documents: dict[str, Any] = {uri: SimpleNamespace(revision=1)}
    runner = _TypingRunner(documents)
    server = SimpleNamespace(documents=SimpleNamespace(get=documents.get))
    handlers = PullHandlers(server, runner)  # type: ignore[arg-type]
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    try:
        asyncio.run(handlers.document(params))
    except JsonRpcException as error:
        assert error.code == int(types.LSPErrorCodes.ServerCancelled)
        assert runner.analyses == 3  # it did try three times
        assert _results_held(error) == []
    else:
        raise AssertionError("an outdated pull was answered")
