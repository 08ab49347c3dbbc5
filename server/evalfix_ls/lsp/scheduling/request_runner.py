"""Feature requests run on workers, never on the event loop.

The loop reads messages, keeps the document store and schedules analyses; a feature handler
(symbols of a 10 MB suite, fix-all, a hover) runs on a worker of its own pool against the immutable
``FeatureContext``, so one slow request never holds up the others or the typing. The loop awaits
the analysis the request needs, then hands the rest over (building the context included: the
snapshot's ``str`` may be built there).

Two lanes: requests about one point of the document (hover, completion, definition, selection,
highlights) have workers of their own, so they never queue behind document-wide ones (symbols, folding,
lenses, links, hints, code actions), which an editor sends after every keystroke.

A worker cannot be interrupted, so a request stops at checkpoints (``RequestToken.check``, called
when its worker takes it — a request outdated while it waited for a worker costs nothing — and by
every position conversion of the context, hence throughout every handler):

* the client cancelled it (``$/cancelRequest``): pygls cancels the awaiting task and answers
  ``RequestCancelled``; the token tells the worker to stop;
* the document changed meanwhile: the answer would describe a text the client no longer has, so
  the request is answered ``ContentModified``, as LSP says.

The answer is written as JSON on the worker too (``jsonrpc/encoded.py``): pygls would unstructure and
dump it on the loop, and the symbols of a 10 MB suite are thousands of nested objects.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pygls.exceptions import JsonRpcContentModified

from ...memory.collector import WorkerPool, request_done
from ...memory.gc_pause import gc_paused
from ..jsonrpc.trace import current_request, mark
from .point_first import PointFirst

T = TypeVar("T")

DOCUMENT_WORKERS = 2  # document-wide requests answered at once (analyses have workers of their own)
POINT_WORKERS = 2  # requests about one point of the document
DOCUMENT, POINT = "document", "point"  # the lanes
CHECK_EVERY = 32  # checkpoints between two looks at the document store (a checkpoint is hot)


class RequestStopped(Exception):
    """The client cancelled the request: the worker stops, nobody reads its answer."""


class RequestToken:
    """Tells a worker whether its request is still wanted. ``is_current()`` says whether the
    document is still the version the request was asked on (read from another thread: a dict
    lookup, atomic under the GIL). ``give_way()``, called at every look at the store, lets a
    document-wide request pause for requests about one point (``PointFirst``)."""

    __slots__ = ("_cancelled", "_is_current", "_countdown", "_give_way")

    def __init__(
        self, is_current: Callable[[], bool] = lambda: True, give_way: Callable[[], bool] = lambda: False
    ) -> None:
        self._cancelled = False
        self._is_current = is_current
        self._countdown = 0
        self._give_way = give_way

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
        self.check_now()

    def check_now(self) -> None:
        """``check`` looking at the document store whatever the countdown says."""
        self._check_wanted()
        if self._give_way():  # (a request no longer wanted does not wait first)
            self._check_wanted()

    def _check_wanted(self) -> None:
        if self._cancelled:
            raise RequestStopped
        if not self._is_current():
            raise JsonRpcContentModified(message="the document changed while the request ran")


NEVER_STOPPED = RequestToken()  # for contexts built outside a request (tests, batch tools)


class RequestRunner:
    """The request workers, by lane."""

    def __init__(self, point_first: PointFirst) -> None:
        self.point_first = point_first
        self._lanes = {
            DOCUMENT: ThreadPoolExecutor(max_workers=DOCUMENT_WORKERS, thread_name_prefix="evalfix-request"),
            POINT: ThreadPoolExecutor(max_workers=POINT_WORKERS, thread_name_prefix="evalfix-point"),
        }

    def pools(self) -> list[WorkerPool]:
        return [(self._lanes[DOCUMENT], DOCUMENT_WORKERS), (self._lanes[POINT], POINT_WORKERS)]

    async def run(self, token: RequestToken, fn: Callable[[], T], *, lane: str = DOCUMENT) -> T:
        """``fn()`` on a worker of ``lane``; a cancelled wait (``$/cancelRequest``) stops it at its
        next checkpoint."""

        msg_id = current_request.get()

        def started() -> T:
            mark("started", msg_id)
            cpu = time.thread_time()
            try:
                token.check_now()  # outdated or cancelled while it waited for a worker: not started
                return fn()
            finally:
                mark("done", msg_id, cpu=time.thread_time() - cpu)

        mark("queued", msg_id, lane=lane)
        work = asyncio.get_running_loop().run_in_executor(self._lanes[lane], _paused, started)
        try:
            return await work
        except asyncio.CancelledError:
            token.cancel()
            raise

    def shutdown(self) -> None:
        for executor in self._lanes.values():
            executor.shutdown(wait=False, cancel_futures=True)


def _paused(fn: Callable[[], T]) -> T:
    # The collector is paused while a handler runs: a few thousand small allocations next to a
    # million-node tree otherwise trigger full collections that walk the whole tree (document
    # symbols of a 10 MB suite: 1.25 s with the collector, 10 ms without).
    try:
        with gc_paused():
            return fn()
    finally:
        request_done()  # the idle collection waits for quiet after requests too
