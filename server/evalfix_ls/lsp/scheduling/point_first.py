"""Requests about one point of the document go before document-wide ones: why and how (``PointFirst``).

Its two waiters are a document-wide request's checkpoints (``request_runner.RequestToken``) and the
stdout writer (``jsonrpc/transport.py``'s ``StreamWriter.before_large``), each bounded by
``GIVE_WAY_SECONDS``.
"""

from __future__ import annotations

import threading


class PointFirst:
    """Requests about one point (hover, completion …: the point lane) go before document-wide ones.

    While the editor types into a 2 MB suite, each keystroke brings symbols, folding, lenses,
    links, hints … whose handlers take tens to hundreds of milliseconds of CPU on the
    document-lane workers, next to the keystroke's analysis, and whose answers are up to a
    megabyte and a half of JSON that the client reads and parses in order. A hover sent with them
    needs half a millisecond of CPU, but (traced, ``jsonrpc.trace``) its steps on the loop and its
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
