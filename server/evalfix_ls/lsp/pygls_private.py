"""Every private name of pygls the server relies on, and only here.

pygls 2.x gives no public way to write an already-encoded answer, to rewrite an error answer, to
forget the futures it keeps for built-in handlers, or to tell whether ``shutdown`` was received;
its protocol does all of these through underscore names that may change in any release. They are
gathered here, behind names of ours, so that a pygls upgrade is checked in one place:
``tests/lsp/test_pygls_private.py`` checks each one on the installed pygls, and pyproject.toml
pins pygls to the minor version those tests pass with.

* pygls calls ``_execute_handler``, ``_send_data`` and ``_send_response``; ``HookedProtocol``
  forwards them to ``handler_started``, ``write_data`` and ``write_response``, which a subclass
  overrides (calling ``super()`` for pygls' own behaviour).
* The server reads ``_shutdown``, ``_request_futures`` and ``_include_headers`` through
  ``shutdown_requested``, ``request_future``/``forget_request`` and ``writes_headers``, and
  reports a failed write through ``report_write_error`` (the server's ``_report_server_error``).
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCResponseMessage, MsgId

if TYPE_CHECKING:  # pygls declares these for type checkers only
    from pygls.protocol.json_rpc import MessageCallback, MessageHandler


class HookedProtocol(LanguageServerProtocol):
    """pygls' protocol with the private methods pygls calls turned into hooks of ours."""

    # -- pygls calls these (private); each forwards to a hook ------------------------------------

    def _execute_handler(
        self,
        msg_id: MsgId,
        handler: MessageHandler,
        callback: MessageCallback,
        # Any: a handler's arguments, whatever its LSP method takes (pygls' own annotation)
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        self.handler_started(msg_id)

    def _send_data(self, data: object) -> None:
        self.write_data(data)

    def _send_response(
        self, msg_id: MsgId, result: object = None, error: types.ResponseError | None = None
    ) -> None:
        self.write_response(msg_id, result, error)

    # -- the hooks: pygls' own behaviour unless a subclass overrides them --------------------------

    def handler_started(self, msg_id: MsgId) -> None:
        """Called after pygls has started the handler of message ``msg_id`` (its future, if it
        keeps one, is ``request_future(msg_id)``)."""

    def write_data(self, data: object) -> None:
        """Every message the server sends passes here: pygls serialises and frames it."""
        super()._send_data(data)

    def write_response(
        self, msg_id: MsgId, result: object = None, error: types.ResponseError | None = None
    ) -> None:
        """Every answer to a request passes here before ``write_data``."""
        super()._send_response(msg_id, result, error)

    def serialize(self, message: object) -> object:
        """A message as pygls writes it (what its converter unstructures it to)."""
        return self._serialize_message(message)

    def structure_answer(self, method: str, data: dict[str, Any]) -> object:
        """The client's answer to the server's request ``method``, structured as pygls does when
        it arrives (its converter, the method's result type), without a request being pending."""
        return self._converter.structure(data, self.get_result_type(method) or JsonRPCResponseMessage)

    # -- pygls' state, read ----------------------------------------------------------------------

    @property
    def shutdown_requested(self) -> bool:
        """Whether the client sent ``shutdown`` (pygls then answers ``exit`` with code 0)."""
        return bool(self._shutdown)

    @property
    def writes_headers(self) -> bool:
        """Whether the writer set by ``set_writer`` expects ``Content-Length`` framing."""
        return bool(self._include_headers)

    def request_future(self, msg_id: MsgId) -> Future[object] | None:
        """The future pygls keeps for the running handler of ``msg_id``, if any."""
        return self._request_futures.get(msg_id)

    def forget_request(self, msg_id: MsgId, future: Future[object]) -> None:
        """Drop pygls' reference to ``future`` if it is still the one kept for ``msg_id``."""
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def pending_requests(self) -> list[MsgId]:
        """The ids of the handlers whose futures pygls still keeps."""
        return list(self._request_futures)

    def report_write_error(self, error: Exception) -> None:
        """Report a failed write as pygls reports its own (its reporter guards against recursion)."""
        self._server._report_server_error(error, JsonRpcInternalError)
