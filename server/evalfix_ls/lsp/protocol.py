"""The JSON-RPC/LSP protocol layer: pygls' protocol with the gaps that matter for robustness closed.

* Text synchronisation goes to our ``DocumentStore`` (see ``documents.py`` for why pygls' own
  incremental sync must not be used), and pygls' workspace only receives the resulting text.
* A request whose params do not match the LSP types is answered with ``InvalidParams`` (pygls
  drops it without a response, leaving the client waiting forever).
* Requests before ``initialize`` get ``ServerNotInitialized``; requests after ``shutdown`` get
  ``InvalidRequest`` (pygls drops them silently).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method

if TYPE_CHECKING:
    from .host import Host

logger = logging.getLogger(__name__)


class _MalformedMessage:
    """A message whose params could not be converted to the LSP types."""

    jsonrpc = "2.0"

    def __init__(self, msg_id: Any, method: str, reason: str) -> None:
        self.id = msg_id
        self.method = method
        self.reason = reason


def _describe_structure_error(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    try:
        from cattrs import transform_error

        details = transform_error(cause)  # type: ignore[arg-type]
        if details:
            return "; ".join(details)
    except Exception:  # noqa: BLE001 - a description is best effort
        pass
    return str(cause) or type(cause).__name__


class EvalfixProtocol(LanguageServerProtocol):
    _server: Host

    def __init__(self, server: Host, converter: Any) -> None:
        super().__init__(server, converter)
        self.initialize_received = False

    # -- message intake --------------------------------------------------------------------------

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method") if isinstance(data, dict) else None
            if not isinstance(method, str):
                raise
            return _MalformedMessage(data.get("id"), method, _describe_structure_error(exc))

    def handle_message(self, message: Any) -> None:
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
        if method == types.INITIALIZE:
            self.initialize_received = True
        elif method != types.EXIT:
            if self._shutdown:
                if is_request:
                    self._send_error(msg_id, types.ErrorCodes.InvalidRequest, "server is shutting down")
                return
            if not self.initialize_received:
                if is_request:
                    self._send_error(msg_id, types.ErrorCodes.ServerNotInitialized, "server not initialized")
                return
        super().handle_message(message)

    def _send_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_response(msg_id, error=types.ResponseError(code=int(code), message=message))

    # -- text synchronisation --------------------------------------------------------------------

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        self._server.on_did_open(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self._server.on_did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        self._server.on_did_close(params)
