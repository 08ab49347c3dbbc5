"""Feature requests run on workers, never on the event loop.

The loop reads messages, keeps the document store and schedules analyses; a feature handler
(symbols of a 10 MB suite, fix-all, a hover) runs on a worker of its own pool against the immutable
``FeatureContext``, so one slow request never holds up the others or the typing. The loop awaits
the analysis the request needs, then hands the rest over (building the context included: the
snapshot's ``str`` may be built there).

A worker cannot be interrupted, so a request stops at checkpoints (``RequestToken.check``, called
by every position conversion of the context, hence throughout every handler):

* the client cancelled it (``$/cancelRequest``): pygls cancels the awaiting task and answers
  ``RequestCancelled``; the token tells the worker to stop;
* the document changed meanwhile: the answer would describe a text the client no longer has, so
  the request is answered ``ContentModified``, as LSP says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcContentModified

from ..parser.gcpause import gc_paused

T = TypeVar("T")

REQUEST_WORKERS = 4  # requests answered at once; more wait for a worker (analyses have their own)
CHECK_EVERY = 32  # checkpoints between two looks at the document store (a checkpoint is hot)


class RequestStopped(Exception):
    """The client cancelled the request: the worker stops, nobody reads its answer."""


class RequestToken:
    """Tells a worker whether its request is still wanted. ``is_current()`` says whether the
    document is still the version the request was asked on (read from another thread: a dict
    lookup, atomic under the GIL)."""

    __slots__ = ("_cancelled", "_is_current", "_countdown")

    def __init__(self, is_current: Callable[[], bool] = lambda: True) -> None:
        self._cancelled = False
        self._is_current = is_current
        self._countdown = 0

    def cancel(self) -> None:
        self._cancelled = True

    def check(self) -> None:
        """Raise when the request should stop; cheap enough to call per item of an answer."""
        if self._cancelled:
            raise RequestStopped
        self._countdown -= 1
        if self._countdown > 0:
            return
        self._countdown = CHECK_EVERY
        if not self._is_current():
            raise JsonRpcContentModified(message="the document changed while the request ran")


NEVER_STOPPED = RequestToken()  # for contexts built outside a request (tests, batch tools)


class RequestRunner:
    """The request workers."""

    def __init__(self, workers: int = REQUEST_WORKERS) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="evalfix-request")

    async def run(self, token: RequestToken, fn: Callable[[], T]) -> T:
        """``fn()`` on a worker; a cancelled wait (``$/cancelRequest``) stops it at its next
        checkpoint."""
        work = asyncio.get_running_loop().run_in_executor(self._executor, _paused, fn)
        try:
            return await work
        except asyncio.CancelledError:
            token.cancel()
            raise

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def _paused(fn: Callable[[], Any]) -> Any:
    # The collector is paused while a handler runs: a few thousand small allocations next to a
    # million-node tree otherwise trigger full collections that walk the whole tree (document
    # symbols of a 10 MB suite: 1.25 s with the collector, 10 ms without).
    with gc_paused():
        return fn()
