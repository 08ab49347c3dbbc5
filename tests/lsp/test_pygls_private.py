"""The private names of pygls that ``lsp/pygls_private.py`` wraps, checked on the installed pygls.

Each test drives a real pygls ``LanguageServer`` (in-process, messages handed to its protocol as
the transport does) whose protocol is the adapter, and fails when pygls renames a private name,
changes its signature or stops routing messages through it. pyproject.toml pins pygls to the
minor version these pass with; a new pygls is accepted by making them pass again."""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import Future
from typing import Any

import pytest
from lsp_support import Capture
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from evalfix_ls.lsp.protocol import EvalfixProtocol
from evalfix_ls.lsp.pygls_private import HookedProtocol


class RecordingProtocol(HookedProtocol):
    """The adapter's hooks, recorded; pygls' behaviour kept (each calls ``super()``)."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.started: list[tuple[Any, Future[Any] | None]] = []
        self.written: list[Any] = []
        self.responses: list[tuple[Any, Any, types.ResponseError | None]] = []

    def handler_started(self, msg_id: Any) -> None:
        self.started.append((msg_id, self.request_future(msg_id)))

    def write_data(self, data: Any) -> None:
        self.written.append(data)
        super().write_data(data)

    def write_response(
        self, msg_id: Any, result: Any = None, error: types.ResponseError | None = None
    ) -> None:
        self.responses.append((msg_id, result, error))
        super().write_response(msg_id, result, error)


class RecordingServer(LanguageServer):
    protocol: RecordingProtocol

    def __init__(self) -> None:
        super().__init__("probe", "0", protocol_cls=RecordingProtocol)
        self.reported: list[tuple[Exception, Any]] = []

    def report_server_error(self, error: Exception, source: Any) -> None:
        self.reported.append((error, source))


def serve() -> tuple[RecordingServer, Capture]:
    server = RecordingServer()
    capture = Capture()
    server.protocol.set_writer(capture, include_headers=False)
    return server, capture


def receive(server: RecordingServer, message: dict[str, Any]) -> None:
    protocol = server.protocol
    protocol.handle_message(protocol.structure_message({"jsonrpc": "2.0", **message}))


def initialize(server: RecordingServer) -> None:
    receive(server, {"id": 0, "method": "initialize", "params": {"capabilities": {}}})


@pytest.mark.parametrize(
    ("name", "parameters"),
    [
        ("_execute_handler", ["self", "msg_id", "handler", "callback", "args", "kwargs"]),
        ("_send_data", ["self", "data"]),
        ("_send_response", ["self", "msg_id", "result", "error"]),
    ],
)
def test_the_overridden_methods_keep_their_signature(name: str, parameters: list[str]) -> None:
    """The adapter overrides these and calls pygls' own with the same arguments."""
    assert list(inspect.signature(getattr(LanguageServerProtocol, name)).parameters) == parameters


async def test_a_coroutine_handler_is_started_through_execute_handler_with_its_future_kept() -> None:
    server, _ = serve()
    release = asyncio.Event()

    @server.feature("probe/slow")
    async def slow(params: Any) -> str:
        await release.wait()
        return "done"

    initialize(server)
    receive(server, {"id": 7, "method": "probe/slow", "params": {}})
    started = dict(server.protocol.started)
    assert isinstance(started[7], asyncio.Future)  # kept in pygls' table while it runs
    assert 7 in server.protocol.pending_requests()
    server.protocol.forget_request(7, Future())  # another future: kept
    assert server.protocol.request_future(7) is started[7]
    server.protocol.forget_request(7, started[7])
    assert server.protocol.request_future(7) is None and 7 not in server.protocol.pending_requests()
    release.set()
    await started[7]


async def test_every_answer_passes_through_send_response_and_send_data() -> None:
    server, capture = serve()

    @server.feature("probe/echo")
    def echo(params: Any) -> str:
        return "中🎉"

    @server.feature("probe/fail")
    def fail(params: Any) -> str:
        raise ValueError("broken")

    initialize(server)
    receive(server, {"id": 8, "method": "probe/echo", "params": {}})
    receive(server, {"id": 9, "method": "probe/fail", "params": {}})
    server.protocol.notify("window/logMessage", types.LogMessageParams(types.MessageType.Log, "x"))
    answers = {msg_id: (result, error) for msg_id, result, error in server.protocol.responses}
    assert answers[8] == ("中🎉", None)
    assert answers[9][1] is not None and answers[9][1].code == int(types.ErrorCodes.InternalError)
    # the answers and the notification were all written through the data hook, by pygls
    assert len(server.protocol.written) == 4  # initialize, echo, fail, logMessage
    assert capture.data.count(b'"jsonrpc"') == 4


@pytest.mark.parametrize("include_headers", [True, False])
def test_writes_headers_is_what_set_writer_chose_and_pygls_frames_by(include_headers: bool) -> None:
    server = RecordingServer()
    capture = Capture()
    server.protocol.set_writer(capture, include_headers=include_headers)
    assert server.protocol.writes_headers is include_headers
    server.protocol.notify("window/logMessage", types.LogMessageParams(types.MessageType.Log, "x"))
    assert capture.data.startswith(b"Content-Length: ") is include_headers


def test_shutdown_requested_once_the_client_sent_shutdown() -> None:
    server, _ = serve()
    initialize(server)
    assert server.protocol.shutdown_requested is False
    receive(server, {"id": 1, "method": "shutdown"})
    assert server.protocol.shutdown_requested is True


def test_a_write_error_reaches_the_servers_reporter() -> None:
    server, _ = serve()
    error = OSError("pipe closed")
    server.protocol.report_write_error(error)
    assert server.reported == [(error, JsonRpcInternalError)]


# What EvalfixProtocol and the adapter override on purpose: pygls' three private hooks, and its
# public intake, writer set-up and text-synchronisation handlers.
OVERRIDDEN = {
    "set_writer",
    "_execute_handler",
    "_send_data",
    "_send_response",
    "structure_message",
    "handle_message",
    "lsp_exit",
    "lsp_text_document__did_open",
    "lsp_text_document__did_change",
    "lsp_text_document__did_close",
}


def test_no_name_of_ours_overrides_one_pygls_has() -> None:
    """A pygls release that adds a method under a name our protocol already uses (``_send_error``,
    ``write_data`` …) would silently call ours, or ours would replace its own."""
    ours = {
        name for cls in (EvalfixProtocol, HookedProtocol) for name in vars(cls) if not name.startswith("__")
    }
    assert {name for name in ours if hasattr(LanguageServerProtocol, name)} == OVERRIDDEN


def test_structure_answer_builds_an_answer_as_pygls_structures_it_on_arrival() -> None:
    """The warm-up structures the answers to the server's own requests once (``warm_messages``):
    the same type pygls gives the answer when it arrives for a pending request."""
    server, capture = serve()
    initialize(server)
    answer = {"jsonrpc": "2.0", "id": 7, "result": None}
    warmed = server.protocol.structure_answer("workspace/diagnostic/refresh", answer)
    server.protocol.send_request("workspace/diagnostic/refresh", None, msg_id=7)
    arrived = server.protocol.structure_message(answer)
    assert type(warmed) is type(arrived)
    assert type(arrived).__name__ == "DiagnosticRefreshResponse"
