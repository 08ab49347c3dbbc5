"""The messages of an editing session, structured (and an error answer serialized) once at
``initialized`` (``lifecycle.warm_up``); and the data of findings converted once.

cattrs builds the function that structures a message type on its first use and keeps it for good,
with its generated source (``linecache``). Built while the first large analysis runs, those objects
land in the pymalloc arenas that analysis filled and keep them after the document is closed (an
arena is given back only when all of it is free): of the arenas still held after closing a 2.4 MB
suite, most held such once-only objects. Built before any document, they share the start-up arenas.
"""

from __future__ import annotations

import asyncio
import codecs
from collections.abc import Callable, Coroutine
from pathlib import PurePosixPath
from typing import Any

from lsprotocol import types
from pygls.protocol.json_rpc import RPCNotification, RPCRequest, RPCResponse

from ..json_value import is_json_value

_URI = "file:///warm-up/evals/evals.json"
_POSITION = {"line": 0, "character": 0}
_RANGE = {"start": _POSITION, "end": _POSITION}
_DOCUMENT = {"uri": _URI}


def _notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def _request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": method, "params": params}


EDITING_MESSAGES = (
    _notification(
        "textDocument/didOpen",
        {"textDocument": {"uri": _URI, "languageId": "json", "version": 1, "text": ""}},
    ),
    _notification(
        "textDocument/didChange",
        {
            "textDocument": {"uri": _URI, "version": 2},
            "contentChanges": [{"range": _RANGE, "text": ""}, {"text": ""}],
        },
    ),
    _notification("textDocument/didClose", {"textDocument": _DOCUMENT}),
    _notification("$/cancelRequest", {"id": 0}),
    _request("textDocument/diagnostic", {"textDocument": _DOCUMENT}),
)


# The server's requests whose answers may arrive after the first document (a registration the
# client answers late, the progress of a scan, refreshes once the workflow index is loaded or
# results changed): their answers are structured once here (``structure_answer``).
SERVER_REQUESTS = (
    "client/registerCapability",
    "window/workDoneProgress/create",
    "workspace/diagnostic/refresh",
    "workspace/codeLens/refresh",
    "workspace/inlayHint/refresh",
)

# The answer to a cancelled or outdated pull (``RequestCancelled``, ``ContentModified``)
ERROR_ANSWER = types.ResponseErrorMessage(
    id=0, error=types.ResponseError(code=int(types.LSPErrorCodes.RequestCancelled), message="")
)


_START = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1))
_DIAGNOSTIC = types.Diagnostic(
    range=_START,
    message="",
    severity=types.DiagnosticSeverity.Error,
    code="c",
    code_description=types.CodeDescription(href="file:///warm-up"),
    source="evalfix-ls",
    tags=[types.DiagnosticTag.Unnecessary],
    related_information=[
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=_URI, range=_START),
            message="",
        )
    ],
    data={"a": [1]},
)

# What the server sends on its own, whenever it happens to (a warning logged, a scan's progress, a
# refresh, a push client's diagnostics): serialized once here, so cattrs builds their hooks now
# and not during the analysis that first sends one (the census found the log message's and the
# refresh's hooks in a closed document's arenas).
SERVER_MESSAGES = (
    types.LogMessageNotification(params=types.LogMessageParams(type=types.MessageType.Warning, message="")),
    types.ShowMessageNotification(params=types.ShowMessageParams(type=types.MessageType.Error, message="")),
    types.WorkDoneProgressCreateRequest(id=0, params=types.WorkDoneProgressCreateParams(token="t")),
    *(
        types.ProgressNotification(params=types.ProgressParams(token="t", value=value))
        for value in (
            types.WorkDoneProgressBegin(title="", cancellable=False, message="", percentage=0),
            types.WorkDoneProgressReport(message="", percentage=0),
            types.WorkDoneProgressEnd(message=""),
        )
    ),
    types.DiagnosticRefreshRequest(id=0),
    types.CodeLensRefreshRequest(id=0),
    types.InlayHintRefreshRequest(id=0),
    types.PublishDiagnosticsNotification(
        params=types.PublishDiagnosticsParams(uri=_URI, diagnostics=[_DIAGNOSTIC], version=1)
    ),
)


def prepare_editing_messages(
    structure: Callable[[dict[str, Any]], object],
    serialize: Callable[[object], object],
    structure_answer: Callable[[str, dict[str, Any]], object],
) -> None:
    """Structure each editing message and each answer to a server request once; serialize an
    error answer and each message the server sends on its own once (``structure``, ``serialize``
    and ``structure_answer``: the protocol's); nothing is dispatched or written."""
    for message in EDITING_MESSAGES:
        _classify(structure(message))
    for method in SERVER_REQUESTS:
        _classify(structure_answer(method, {"jsonrpc": "2.0", "id": 0, "result": None}))
    serialize(ERROR_ANSWER)
    for sent in SERVER_MESSAGES:
        serialize(sent)


def _classify(message: object) -> None:
    """Tell the message's kind as pygls does (``JsonRPCProtocol.handle_message``): ``isinstance``
    against its runtime-checkable protocols, in its order, which records the message type in the
    protocols' ABC caches for good (see ``prepare_type_checks``)."""
    for kind in (RPCRequest, RPCNotification, RPCResponse):
        if isinstance(message, kind):
            return


# Finding data of each kind the checks hand the editor (``Finding.data``): lists, tuples, nested
# mappings, paths, enums, sets, scalars.
_FINDING_DATA = {
    "list": ["a"],
    "tuple": ("a", 1),
    "mapping": {"a": {"b": [1.5, True, None]}},
    "path": PurePosixPath("skills/a"),
    "enum": types.DiagnosticSeverity.Hint,
    "set": frozenset({"a"}),
}


def prepare_type_checks() -> None:
    """Convert finding data of every kind once, and read absent client settings once.
    ``isinstance(value, Mapping)`` and the other ABC checks of the conversion (and of
    ``section_of``) record each concrete type they meet in the ABCs' caches (a weak reference and
    its callback per ABC and subclass, ten for a ``list``), for good; recorded during the first
    large analysis, those kept one of its arenas after close."""
    from ..json_value import jsonable
    from .session.settings import section_of

    jsonable(_FINDING_DATA)
    is_json_value(_FINDING_DATA)
    section_of(None)
    # ``asyncio.wait([running analysis])`` (a pull while another keystroke's analysis runs,
    # ``DiagnosticsRunner.result_for_open``) asks ``iscoroutine`` of the list and of each future
    # or task: ``isinstance(…, Coroutine)``, recorded in the ABC's negative cache at the first
    # such pull.
    for waited in (list, asyncio.Future, asyncio.Task):
        issubclass(waited, Coroutine)


# The codecs positions and sort keys encode with (``parser.line_index``, ``contracts.workflow``):
# looked up at the first non-ASCII line or the first workflow file, their modules were imported
# during a large analysis.
_CODECS = ("utf-16-le", "utf-16-be", "utf-16")


def prepare_codecs() -> None:
    for name in _CODECS:
        codecs.lookup(name)


def prepare_hashing() -> None:
    """Digest a text as the workflow index does: the first ``blake2b`` call with keywords
    interns the names of all its parameters for good (ten strings), and made while the index of
    the first document's repository loaded, they held one of its arenas after close."""
    from ..contracts.workflow.index import text_digest

    text_digest("")
