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

The answer is written as JSON on the worker too (``EncodedResult``): pygls would unstructure and
dump it on the loop, and the symbols of a 10 MB suite are thousands of nested objects.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from pygls.exceptions import JsonRpcContentModified

from ..parser.gcpause import gc_paused
from .collector import WorkerPool, request_done
from .request_trace import current_request, mark

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


class PointFirst:
    """Requests about one point (hover, completion …: the point lane) go before document-wide ones.

    While the editor types into a 2 MB suite, each keystroke brings symbols, folding, lenses,
    links, hints … whose handlers take tens to hundreds of milliseconds of CPU on the
    document-lane workers, next to the keystroke's analysis, and whose answers are up to a
    megabyte and a half of JSON that the client reads and parses in order. A hover sent with them
    needs half a millisecond of CPU, but (traced, ``request_trace``) its steps on the loop and its
    worker took 10-40 ms for 1-5 ms of CPU, taking the interpreter lock in turn with all of them,
    and its answer then reached the client behind a symbols answer it had to parse first (40 ms
    of the client's CPU at 2 MB). So from the moment a point request's context is ready (not while
    it waits for an analysis: ``evalfix/documentInfo`` during the open of a 10 MB suite held every
    document-wide request for seconds) until its answer is queued for the writer:

    * a document-wide handler waits at its next checkpoint (``RequestToken.check_now``);
    * the writer does not start writing a large message (``transport.StreamWriter``);

    each at most ``GIVE_WAY_SECONDS`` at a time: a client hovering without pause must not starve
    the outline. ``begin``/``answered`` run on the event loop; the others only wait."""

    GIVE_WAY_SECONDS = 0.05  # (a point request waiting for an analysis has not begun)

    def __init__(self) -> None:
        self._running: set[object] = set()  # ids of the point requests not answered yet
        self._none_running = threading.Event()
        self._none_running.set()

    def begin(self, msg_id: object) -> None:
        if msg_id is None:  # (not a request the protocol read: never answered through it)
            return
        self._running.add(msg_id)
        self._none_running.clear()

    def answered(self, msg_id: object) -> None:
        """The answer to ``msg_id`` is queued for the writer (any request may be passed)."""
        self._running.discard(msg_id)
        if not self._running:
            self._none_running.set()

    def give_way(self) -> bool:
        """On a worker or the writer: wait while a point request is being answered; whether it
        waited."""
        if self._none_running.is_set():
            return False
        self._none_running.wait(self.GIVE_WAY_SECONDS)
        return True


NEVER_STOPPED = RequestToken()  # for contexts built outside a request (tests, batch tools)


class EncodedResult:
    """A request's answer already written as JSON; ``EvalfixProtocol`` sends it as it is."""

    __slots__ = ("json",)

    def __init__(self, text: str) -> None:
        self.json = text

    def to_json(self) -> str:
        return self.json


def encoded(value: object) -> EncodedResult:
    """``value`` (LSP types, lists, plain data) as pygls would write it; an answer the handler
    already wrote as JSON (``EncodedResult``) as it is."""
    if isinstance(value, EncodedResult):
        return value
    from .diagnostics.encoded import lsp_converter

    return EncodedResult(json.dumps(lsp_converter().unstructure(value)))


@dataclass(frozen=True, slots=True)
class Asked:
    """A request about a document: its id, method, document and that document's revision then."""

    msg_id: object
    method: str
    uri: str
    revision: int | None
    whole: bool  # about the whole document, not one position: may be superseded


class Supersession:
    """Which answers the client no longer needs: it asked the same method about the same document
    again, on a newer text.

    An editor asks for symbols, folding, lenses, links, hints, diagnostics … after every keystroke
    and, typing faster than a 2 MB suite is answered, gets the answers of the earlier keystrokes
    too: a megabyte of symbols or of diagnostics each, written one after the other into the pipe,
    which the client reads and parses in order, so a hover answered meanwhile waited behind
    all of them (traced: 150-350 ms of a hover's 200-400 ms under load). Such an answer describes
    a text the client no longer has and a newer request of the same kind is already on its way,
    so it is replaced by a short error: ``ContentModified``, for a diagnostic pull
    ``ServerCancelled`` without ``retriggerRequest`` (the newer pull answers). That is looked at
    twice: when the answer is ready (on the loop), and when the writer takes it from its queue
    (``transport.StreamWriter``: it may have waited there behind other large answers while the
    client typed on). An answer asked again on the same text is still right and is sent.

    ``asked`` runs on the loop when a request is read (the text it is about is the current one
    then), ``answered`` when its answer is ready."""

    def __init__(self, revision_of: Callable[[str], int | None]) -> None:
        self._revision_of = revision_of  # the current revision of an open document
        self._asked: dict[object, Asked] = {}  # by request id, until answered
        # (method, uri) -> the latest such request
        self._latest: dict[tuple[str, str], Asked] = {}

    def asked(self, msg_id: object, method: str, uri: str, *, whole: bool) -> None:
        asked = Asked(msg_id, method, uri, self._revision_of(uri), whole)
        self._asked[msg_id] = asked
        if whole:
            self._latest[(method, uri)] = asked

    def answered(self, msg_id: object) -> Asked | None:
        """The request ``msg_id`` was about, forgotten here (None: not one about a document)."""
        return self._asked.pop(msg_id, None)

    def superseded(self, asked: Asked) -> bool:
        """Whether the same method was asked about the same document again, on another text
        (revisions are never reused: another one means the text changed in between). Read by
        the writer thread too: one dict lookup."""
        latest = self._latest.get((asked.method, asked.uri)) if asked.whole else None
        return latest is not None and latest.msg_id != asked.msg_id and latest.revision != asked.revision

    def forget(self, uri: str) -> None:
        """The document was closed: its latest requests are no longer compared with."""
        for key in [key for key in self._latest if key[1] == uri]:
            del self._latest[key]


async def encoded_off_loop(value: object) -> EncodedResult:
    """``encoded(value)`` on the encoding worker: an answer a handler on the loop built as LSP
    types (``workspace/diagnostic``: at 10 MB, 12,555 diagnostics that pygls unstructured on the
    loop, 170-290 ms of CPU, up to a second under load, per answer, while every other request
    waited)."""
    from .diagnostics.encoded import encoder_pool

    executor, _workers = encoder_pool()
    return await asyncio.get_running_loop().run_in_executor(executor, encoded, value)


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
