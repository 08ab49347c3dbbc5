"""Logging plumbing: our log records (and pygls' errors) reach the client as ``window/logMessage``.

Records may come from worker threads; they are sent from the event loop. pygls' own tracebacks for
expected error answers (invalid params, cancellations) are folded into one line.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Protocol

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol


class LogClient(Protocol):
    """What the handler needs of the server: its loop, its protocol's writer, the notification."""

    loop: asyncio.AbstractEventLoop | None

    @property
    def protocol(self) -> JsonRPCProtocol: ...

    def window_log_message(self, params: types.LogMessageParams) -> None: ...


class LspLogHandler(logging.Handler):
    """Forwards log records to the client as ``window/logMessage`` (thread-safe: records from
    worker threads are sent from the event loop)."""

    def __init__(self, server: LogClient) -> None:
        super().__init__()
        self.server = server
        self._local = threading.local()
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        loop = self.server.loop
        if loop is None or loop.is_closed() or self.server.protocol.writer is None:
            return
        try:
            message = self.format(record)
        except Exception:  # noqa: BLE001
            return
        level = record.levelno
        kind = (
            types.MessageType.Error
            if level >= logging.ERROR
            else types.MessageType.Warning
            if level >= logging.WARNING
            else types.MessageType.Info
            if level >= logging.INFO
            else types.MessageType.Log
        )
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._send(message, kind)
        else:
            loop.call_soon_threadsafe(self._send, message, kind)

    def _send(self, message: str, kind: types.MessageType) -> None:
        if getattr(self._local, "busy", False):  # an error while logging an error: stop here
            return
        self._local.busy = True
        try:
            if self.server.protocol.writer is not None:
                self.server.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001
            pass
        finally:
            self._local.busy = False


# Errors that are answers, not failures: the client gets them as error responses (invalid params,
# the cancellations, and RequestFailed: a refusal whose message tells the user why, e.g. a rename).
_EXPECTED_ERROR_CODES = frozenset({-32602, -32800, -32801, -32802, -32803})


class _PyglsNoiseFilter(logging.Filter):
    """pygls logs a full traceback for every error response and for params it cannot convert.
    Expected answers (invalid params, cancellations, refusals) become one line; the conversion failure is
    logged by ``EvalfixProtocol`` itself, with the offending field."""

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Unable to deserialize message"):
            return False
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and getattr(exc, "code", None) in _EXPECTED_ERROR_CODES:
            record.msg, record.args, record.exc_info, record.exc_text = (
                f"request failed: {exc}",
                (),
                None,
                None,
            )
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def forward_logs_to_client(server: LogClient) -> None:
    """Send the ``evalfix_ls`` logger's records (INFO and up) and pygls' errors to the client."""
    ours = logging.getLogger("evalfix_ls")
    ours.setLevel(logging.INFO)
    ours.addHandler(LspLogHandler(server))
    ours.propagate = False
    handler_for_pygls = LspLogHandler(server)
    handler_for_pygls.setLevel(logging.ERROR)
    handler_for_pygls.addFilter(_PyglsNoiseFilter())
    logging.getLogger("pygls").addHandler(handler_for_pygls)
