"""A debug trace of each request's way through the server: where its time went.

Off unless ``EVALFIX_LS_TRACE`` names a file when the server starts; then each step of a request
is one JSON line there: ``{"t": …, "id": …, "step": …, …}``, ``t`` from ``time.perf_counter()``
(``CLOCK_MONOTONIC`` on Linux: comparable with a client's own clock on the same machine). Steps:
``received`` (the body read and decoded on the loop), ``handler`` (its coroutine started),
``context`` (its feature context built; ``waited``: what it waited for first, e.g. ``analysis``),
``queued`` (handed to a lane), ``started`` / ``done`` (on the worker; ``cpu``: the thread's CPU
time of the run, so ``done - started - cpu`` is time spent waiting for the interpreter lock),
``answered`` (the answer queued for the writer). A benchmark reads it (``bench.tools.trace``).

The request being handled is ``current_request`` (set while the protocol dispatches it).
"""

from __future__ import annotations

import contextvars
import json
import os
import threading
import time
from typing import IO

ENV = "EVALFIX_LS_TRACE"

# The id of the request being handled: set by the protocol when it dispatches one, inherited by
# the task of its handler (read by the trace and by ``point_first.PointFirst``'s callers).
current_request: contextvars.ContextVar[object] = contextvars.ContextVar("evalfix_request", default=None)
_out: IO[str] | None = None
_lock = threading.Lock()


def start_from_environment() -> None:
    """Open the trace file named by ``EVALFIX_LS_TRACE``, if any (once, at start-up)."""
    global _out
    path = os.environ.get(ENV)
    if path and _out is None:
        _out = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - open for the session


def enabled() -> bool:
    return _out is not None


def mark(step: str, msg_id: object = None, **fields: object) -> None:
    """Record ``step`` of request ``msg_id`` (the current request unless given); nothing when
    tracing is off."""
    out = _out
    if out is None:
        return
    if msg_id is None:
        msg_id = current_request.get()
    line = json.dumps({"t": time.perf_counter(), "id": msg_id, "step": step, **fields}, default=str)
    with _lock:
        out.write(line + "\n")
