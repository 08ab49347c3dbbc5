"""The JSON-RPC/LSP protocol layer: pygls' protocol with the gaps that matter for robustness closed.

* Text synchronisation goes to our ``DocumentStore`` (see ``documents.py`` for why pygls' own
  incremental sync must not be used); pygls' workspace never holds a text document.
* A request whose params do not match the LSP types is answered with ``InvalidParams`` (pygls
  drops it without a response, leaving the client waiting forever).
* Requests before ``initialize`` get ``ServerNotInitialized``; requests after ``shutdown`` get
  ``InvalidRequest`` (pygls drops them silently); so does a second ``initialize`` (pygls would
  negotiate again and forget what the first one set up).
* Bodies come from ``transport.py`` (pygls' reader is not used): a body that is not UTF-8 or not
  JSON is answered with ``-32700``, a batch or an invalid JSON-RPC message with ``-32600`` (see
  ``envelope.py``); nothing a client sends is answered with silence or raises a popup.
* An internal error (``-32603``) is answered with a plain message: pygls puts the Python
  traceback, with the install paths, in ``data``; it stays in the log.
* ``exit`` stops the transport instead of calling ``sys.exit`` inside a handler, which tore down
  the event loop under pending tasks (``CancelledError`` tracebacks on stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import lsp_method
from pygls.protocol.json_rpc import MsgId, RPCMessage

from . import envelope, trace
from .encoded import EncodedParts, InOrderResult, pre_encoded_json
from .pygls_private import HookedProtocol
from .trace import current_request
from .transport import Chunks, Payload, SocketWriter, StreamWriter

if TYPE_CHECKING:
    from concurrent.futures import Future

    from cattrs import Converter
    from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)


class AskedRequest(Protocol):
    """A request about a document, as the server remembers it (``scheduling.supersession.Asked``)."""

    @property
    def msg_id(self) -> object: ...
    @property
    def method(self) -> str: ...


A = TypeVar("A", bound=AskedRequest)


class Answers(Protocol[A]):
    """Which answers the client no longer needs (``scheduling.supersession.Supersession``)."""

    def asked(self, msg_id: object, method: str, uri: str, *, whole: bool) -> None: ...
    def answered(self, msg_id: object) -> A | None: ...
    def superseded(self, asked: A) -> bool: ...


class PointGate(Protocol):
    """Point requests first (``scheduling.point_first.PointFirst``): the writer gives way to them,
    and the protocol says when one is answered."""

    def give_way(self) -> bool: ...
    def answered(self, msg_id: object) -> None: ...


class Lanes(Protocol):
    @property
    def point_first(self) -> PointGate: ...


class ProtocolHost(Protocol[A]):
    """What the protocol needs of the server (``EvalfixServer`` hands itself over as ``host``):
    typed here, so the JSON-RPC layer imports nothing of the families above it (scheduling,
    session, diagnostics: ``tests/unit/test_architecture.py::LSP_LAYERS``)."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None: ...
    @property
    def supersession(self) -> Answers[A]: ...
    @property
    def requests(self) -> Lanes: ...

    def on_did_open(self, params: types.DidOpenTextDocumentParams) -> None: ...
    def on_did_change(self, params: types.DidChangeTextDocumentParams) -> None: ...
    def on_did_close(self, params: types.DidCloseTextDocumentParams) -> None: ...


class _MalformedMessage:
    """A message whose params could not be converted to the LSP types."""

    jsonrpc = "2.0"
    params = None

    def __init__(self, msg_id: MsgId | None, method: str, reason: str) -> None:
        self.id = msg_id
        self.method = method
        self.reason = reason


def _describe_structure_error(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    try:
        from cattrs import transform_error

        details = transform_error(cause) if isinstance(cause, Exception) else None
        if details:
            return "; ".join(details)
    except Exception:  # noqa: BLE001 - a description is best effort
        pass
    return str(cause) or type(cause).__name__


_INTERNAL_ERROR_MESSAGE = "evalfix-ls hit an internal error handling this request; details are in its log"


class EvalfixProtocol(HookedProtocol, Generic[A]):
    host: ProtocolHost[A]  # set by the server right after pygls built this protocol with it

    def __init__(self, server: LanguageServer, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self.exit_received = False
        self.on_exit: Callable[[], None] = lambda: None  # set by the transport: stop reading
        self._answering: A | None = None  # the request whose answer is being written

    # -- bodies from the transport ---------------------------------------------------------------

    def receive_body(self, body: bytes) -> None:
        """Decode, check and dispatch one framed message; every failure is answered or logged."""
        try:
            data = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError as exc:
            self.reject_unreadable(f"the message is not UTF-8 (byte {exc.start}: {exc.reason})")
            return
        except ValueError as exc:
            self.reject_unreadable(f"the message is not JSON ({exc})")
            return
        except RecursionError:
            self.reject_unreadable("the message is nested too deeply to be read")
            return
        if isinstance(data, list):
            self._reject_batch(data)
            return
        invalid = envelope.check(data)
        if invalid is not None:
            self._reject_invalid(invalid)
            return
        self._dispatch(data)

    def reject_unreadable(self, reason: str) -> None:
        logger.warning("Unreadable message: %s", reason)
        self._send_error(None, types.ErrorCodes.ParseError, f"Parse error: {reason}")

    def _reject_invalid(self, invalid: envelope.Invalid) -> None:
        if invalid.is_response:
            logger.warning("Ignoring an invalid response: %s", invalid.reason)
            return
        logger.warning("Invalid message: %s", invalid.reason)
        self._send_error(
            invalid.answer_id, types.ErrorCodes.InvalidRequest, f"Invalid request: {invalid.reason}"
        )

    def _reject_batch(self, batch: list[object]) -> None:
        """LSP has no batches: each request in one gets an ``InvalidRequest`` answer with its id,
        in one array as JSON-RPC answers a batch (an empty or id-less batch: one answer, id null)."""
        logger.warning("Rejected a JSON-RPC batch of %d messages (LSP has no batches)", len(batch))
        message = "Invalid request: the Language Server Protocol has no JSON-RPC batches"
        error = {"code": int(types.ErrorCodes.InvalidRequest), "message": message}
        ids: list[object] = [item.get("id") if isinstance(item, dict) else None for item in batch]
        answers = [
            {"jsonrpc": "2.0", "id": msg_id if envelope.valid_id(msg_id) else None, "error": error}
            for msg_id, item in zip(ids, batch, strict=True)
            if not (isinstance(item, dict) and "id" not in item and "method" in item)  # notifications
        ]
        self.write_data(answers or {"jsonrpc": "2.0", "id": None, "error": error})

    # Any: a message as ``json.loads`` read it, the type pygls' ``structure_message`` takes
    def _dispatch(self, data: dict[str, Any]) -> None:
        method = data.get("method")
        try:
            message = self.structure_message(data)
        except Exception as exc:  # noqa: BLE001 - a response we cannot read
            logger.warning("Ignoring an unreadable message (%s): %s", method or "response", exc)
            return
        try:
            self.handle_message(message)
        except Exception:  # noqa: BLE001 - logged, and a request still gets an answer
            logger.exception("Failed to handle %s", method or "a response")
            if method is not None and "id" in data:
                self._send_error(data["id"], types.ErrorCodes.InternalError, _INTERNAL_ERROR_MESSAGE)

    # -- message intake --------------------------------------------------------------------------

    # ``data`` as for ``_dispatch``; pygls' own ``structure_message`` declares no return type
    def structure_message(self, data: dict[str, Any]) -> RPCMessage | _MalformedMessage:
        try:
            message: RPCMessage = super().structure_message(data)
            return message
        except JsonRpcException as exc:
            method = data.get("method")
            if not isinstance(method, str):
                raise
            return _MalformedMessage(data.get("id"), method, _describe_structure_error(exc))

    def handle_message(self, message: RPCMessage | _MalformedMessage) -> None:
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        is_request = method is not None and msg_id is not None
        if isinstance(message, _MalformedMessage):
            logger.warning("Invalid params for %s: %s", method, message.reason)
            if is_request:
                self._send_error(msg_id, types.ErrorCodes.InvalidParams, f"Invalid params: {message.reason}")
            return
        if method is None:  # a response to one of our requests
            super().handle_message(message)
            return
        if msg_id is not None:
            self._note_request(msg_id, method, message)
        if method != types.EXIT and self.shutdown_requested:
            if is_request:
                self._send_error(msg_id, types.ErrorCodes.InvalidRequest, "server is shutting down")
            return
        if method == types.INITIALIZE:
            if self.initialize_received:
                logger.warning("A second initialize was refused (the first negotiation stays)")
                if is_request:
                    self._send_error(
                        msg_id, types.ErrorCodes.InvalidRequest, "initialize was already received"
                    )
                return
            self.initialize_received = True
        elif method != types.EXIT and not self.initialize_received:
            if is_request:
                self._send_error(msg_id, types.ErrorCodes.ServerNotInitialized, "server not initialized")
            return
        super().handle_message(message)

    def _note_request(self, msg_id: MsgId, method: str, message: RPCMessage) -> None:
        """A request is read: the text it is about is the current one (``Supersession``)."""
        params = getattr(message, "params", None)
        uri = getattr(getattr(params, "text_document", None), "uri", None)
        if isinstance(uri, str):
            # (one position's answers are small and not asked again with each keystroke)
            whole = getattr(params, "position", None) is None
            self.host.supersession.asked(msg_id, method, uri, whole=whole)
        current_request.set(msg_id)  # the handler's task inherits it
        trace.mark("received", msg_id, method=method)

    def set_writer(self, writer: Any, include_headers: bool = True) -> None:  # Any: as pygls'
        """pygls' ``set_writer``; our stdout writer holds large messages back while a point
        request is answered (``point_first.PointFirst``)."""
        if isinstance(writer, StreamWriter):
            writer.before_large = self.host.requests.point_first.give_way
        super().set_writer(writer, include_headers)

    def handler_started(self, msg_id: MsgId) -> None:
        """pygls keeps the future of every coroutine or thread handler that a built-in method
        delegates to (``initialized``, configuration changes …) under a generated id, forever;
        forget each one when it is done, with the task, frames and results it holds."""
        future = self.request_future(msg_id)
        if future is not None:
            future.add_done_callback(lambda done: self._forget_future(msg_id, done))

    def _forget_future(self, msg_id: MsgId, done: Future[object]) -> None:
        # Later, on the loop: a cancellation (``shutdown`` cancels them all while iterating the
        # table) runs this callback at once, and other threads may finish a future too.
        loop = self.host.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self.forget_request, msg_id, done)

    def write_data(self, data: object) -> None:
        """A response whose result is already JSON (a large diagnostic report, see
        ``diagnostics/encoded.py``; a feature's answer, see ``scheduling/request_runner.py``) and a
        ``publishDiagnostics`` whose diagnostics are (``EncodedPublishParams``) are written as
        they are; everything else as pygls writes it."""
        params = pre_encoded_json(getattr(data, "params", None)) if self.writer is not None else None
        if params is not None:
            method = json.dumps(getattr(data, "method", None))
            self._write_text(f'{{"method": {method}, "jsonrpc": "2.0", "params": {params}}}', False)
            return
        if trace.enabled() and hasattr(data, "id"):
            trace.mark("answered", getattr(data, "id", None), error=getattr(data, "error", None) is not None)
        parts = getattr(data, "result", None)
        if isinstance(parts, EncodedParts) and self.writer is not None:
            msg_id = json.dumps(getattr(data, "id", None))
            prefix = f'{{"id": {msg_id}, "jsonrpc": "2.0", "result": '.encode()
            self._write_payload(
                self._framed_parts([prefix, *parts.parts, b"}"]), True, self._unless_superseded()
            )
            parts.parts = []  # written: the pieces live on in the writer's queue only
            return
        result = _encoded_result(data)
        if result is None or self.writer is None:
            super().write_data(data)
            return
        msg_id = json.dumps(getattr(data, "id", None))
        overtakes = not isinstance(getattr(data, "result", None), InOrderResult)
        self._write_text(
            f'{{"id": {msg_id}, "jsonrpc": "2.0", "result": {result}}}', overtakes, self._unless_superseded()
        )

    def _unless_superseded(self) -> Callable[[], bytes | None] | None:
        """For the writer: the error to write instead of the answer being written, if by then the
        same was asked about a newer text (``supersession.Supersession``)."""
        asked, supersession = self._answering, self.host.supersession
        if asked is None:
            return None

        def instead() -> bytes | None:
            trace.mark("writing", asked.msg_id)
            if not supersession.superseded(asked):
                return None
            trace.mark("superseded", asked.msg_id, at="writer")
            return self._framed(_error_text(asked.msg_id, _superseded_error(asked.method)))

        return instead

    def _framed(self, text: str) -> bytes:
        body = text.encode(self.CHARSET)
        content_type = f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}"
        header = f"Content-Length: {len(body)}\r\n{content_type}\r\n\r\n".encode("ascii")
        return header + body if self.writes_headers else body

    def _framed_parts(self, parts: list[bytes]) -> Payload:
        """``_framed`` for a body in UTF-8 pieces, left in pieces (``transport.Chunks``)."""
        length = sum(map(len, parts))
        content_type = f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}"
        header = f"Content-Length: {length}\r\n{content_type}\r\n\r\n".encode("ascii")
        pieces = [header, *parts] if self.writes_headers else parts
        return Chunks(pieces) if isinstance(self.writer, StreamWriter | SocketWriter) else b"".join(pieces)

    def _write_text(
        self, text: str, response: bool, instead: Callable[[], bytes | None] | None = None
    ) -> None:
        """One message already written as JSON, framed (``response``: it may overtake queued
        notifications, see ``transport.StreamWriter``; ``instead``: asked by the writer when it
        takes the message, what to write in its place, if anything)."""
        self._write_payload(self._framed(text), response, instead)

    def _write_payload(
        self, payload: Payload, response: bool, instead: Callable[[], bytes | None] | None = None
    ) -> None:
        try:
            if isinstance(self.writer, StreamWriter):
                self.writer.write(payload, response=response, on_take=instead)
            elif isinstance(self.writer, SocketWriter):
                self.writer.write(payload, response=response)
            elif self.writer is not None:  # pygls' writers: one ``bytes``
                self.writer.write(b"".join(payload) if isinstance(payload, Chunks) else payload)
        except Exception as error:  # noqa: BLE001 - as pygls: logged and reported, never raised
            logger.exception("Error sending data")
            self.report_write_error(error)

    def _send_error(self, msg_id: MsgId | None, code: int, message: str) -> None:
        if msg_id is None:  # pygls' converter would drop ``"id": null``
            self.write_data({"jsonrpc": "2.0", "id": None, "error": {"code": int(code), "message": message}})
            return
        self.write_response(msg_id, error=types.ResponseError(code=int(code), message=message))

    def write_response(
        self, msg_id: MsgId, result: object = None, error: types.ResponseError | None = None
    ) -> None:
        asked = self.host.supersession.answered(msg_id)
        if error is None and asked is not None and self.host.supersession.superseded(asked):
            error = _superseded_error(asked.method)
            trace.mark("superseded", msg_id)
        if error is not None and error.code == int(types.ErrorCodes.InternalError):
            # pygls' message is the exception's text and its data the traceback: both stay in
            # the log (pygls logged them); the client gets a plain sentence.
            error = types.ResponseError(code=error.code, message=_INTERNAL_ERROR_MESSAGE)
        # pygls calls ``write_data`` from here: an answer written as it is may still be
        # superseded while it waits for the writer (``_write_text``)
        self._answering = asked if error is None else None
        try:
            super().write_response(msg_id, result, error)
        finally:
            self._answering = None
            self.host.requests.point_first.answered(msg_id)

    # pygls' own ``exit`` handler is a generator (it runs the user's handler, then ``sys.exit``);
    # its dispatch runs plain functions as well, and this one replaces it: the override's return
    # type differs from pygls' by design.
    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: object) -> None:  # type: ignore[override]
        """Stop reading; ``server.start`` returns the exit code (0 after ``shutdown``, else 1)."""
        self.exit_received = True
        self.on_exit()

    # -- text synchronisation --------------------------------------------------------------------

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        self.host.on_did_open(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self.host.on_did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        self.host.on_did_close(params)


def _superseded_error(method: str) -> types.ResponseError:
    """The answer to a request asked again on a newer text (``supersession.Supersession``)."""
    if method == types.TEXT_DOCUMENT_DIAGNOSTIC:  # the newer pull answers; no need to pull again
        return types.ResponseError(
            code=int(types.LSPErrorCodes.ServerCancelled),
            message="superseded by a newer pull on a newer text",
            data={"retriggerRequest": False},
        )
    return types.ResponseError(
        code=int(types.LSPErrorCodes.ContentModified),
        message="the document changed and the request was asked again",
    )


def _error_text(msg_id: object, error: types.ResponseError) -> str:
    """An error answer as JSON (written by the writer thread: no converter there)."""
    fields = {"code": error.code, "message": error.message, "data": error.data}
    answer = {"id": msg_id, "jsonrpc": "2.0", "error": {k: v for k, v in fields.items() if v is not None}}
    return json.dumps(answer)


def _encoded_result(data: object) -> str | None:
    """The JSON text of a response's result when it was encoded already (``PreEncoded``: a
    feature's ``EncodedResult``, a diagnostic report without related documents), else None."""
    result = getattr(data, "result", None)
    return None if getattr(result, "related_documents", None) else pre_encoded_json(result)
