"""The connection: bytes in through ``framing.Framer``, bodies to the protocol, answers out.

Replaces pygls' reader loop and writer, which (besides the framing defects ``framing.py`` lists)
read stdin on pygls' thread pool (a blocked read keeps the process alive at exit), raise
``BrokenPipeError`` tracebacks when the client has gone (Neovim 0.11 exits right after sending
``shutdown``), and end the event loop with ``sys.exit`` under pending tasks.

Here stdin is read by one daemon thread handing chunks to the loop (with back-pressure); a
client that went away ends the session quietly; ``exit`` and end of input stop the reading, then
every pending task is cancelled and awaited before the loop closes. ``serve`` returns why the
input broke off, if it did, for the one line ``server.start`` prints.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import queue
import threading
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO, Protocol

from .framing import Body, Event, Framer, Rejected, Skipped


class BodyReader(Protocol):
    """What the connection needs of the protocol (``protocol.EvalfixProtocol``, which imports this
    module for its writers: typed here so the two do not import each other)."""

    on_exit: Callable[[], None]  # set here: ``exit`` stops reading

    def receive_body(self, body: bytes) -> None: ...
    def reject_unreadable(self, reason: str) -> None: ...
    def set_writer(self, writer: Any, include_headers: bool = True) -> None: ...  # Any: as pygls'


class Served(Protocol):
    """What serving needs of the server: its protocol, which reads the bodies and writes answers."""

    @property
    def protocol(self) -> BodyReader: ...


logger = logging.getLogger(__name__)

CHUNK_BYTES = 1 << 16
STALL_SECONDS = 0.5  # a body that stops arriving for this long is checked for a wrong length
LOST_GRACE_SECONDS = 1.0  # after the client stopped reading: what it already sent is still read


class Chunks(tuple[bytes, ...]):
    """One framed message in pieces, written one after the other: a 39 MB ``workspace/diagnostic``
    answer (12,000 files) is never joined into one ``bytes`` (each copy of it was another 39 MB
    at the server's peak). ``len`` is its size in bytes, as for ``bytes``."""

    size: int

    def __new__(cls, pieces: Iterable[bytes]) -> Chunks:
        chunks = super().__new__(cls, pieces)
        chunks.size = sum(map(bytes.__len__, chunks))
        return chunks

    def __len__(self) -> int:
        return self.size


Payload = bytes | Chunks
OnTake = Callable[[], bytes | None]  # see ``StreamWriter``
Queued = tuple[Payload, OnTake | None]


class StreamWriter:
    """A blocking binary stream as pygls' writer; thread-safe. Once the client is gone, writes
    are dropped and ``on_lost`` is called once (pygls would raise ``BrokenPipeError`` from
    wherever the write happened).

    The bytes are written by a thread of their own: a write blocks until the client has read
    what fills the pipe, and a diagnostic report of a 2 MB suite (900 KB) held the event loop
    40-270 ms that way while the editor's next requests waited to be read. A small answer
    (a ``response`` under ``URGENT_BYTES``, e.g. a hover) is written before the
    messages still queued, never in the middle of one: JSON-RPC responses may come in any
    order, while notifications keep theirs (a later, smaller ``publishDiagnostics`` must not
    overtake an earlier one), so only the protocol says what is a response. A message may come
    with ``on_take``, called when the writer takes it from the queue: it may return other bytes
    to write in its place (an answer that was superseded while it waited, ``supersession.Supersession``).

    The thread waits for work on a ``SimpleQueue`` of wake-ups (one per message, one for the
    close), which allocates nothing to wait: a ``Condition`` wait makes a lock and more, and the
    ones made after the last answer before a document was closed kept one of its pymalloc arenas
    through the idle period that followed."""

    URGENT_BYTES = 1 << 16
    DRAIN_SECONDS = 5.0  # at the end, how long queued messages get to reach the client

    def __init__(self, stream: BinaryIO, on_lost: Callable[[], None]) -> None:
        self._stream = stream
        self._on_lost = on_lost
        self._ready = threading.Condition()  # guards the queues and flags; ``flush`` waits on it
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._queued: collections.deque[Queued] = collections.deque()
        self._urgent: collections.deque[Queued] = collections.deque()
        self._writing = False
        self._closing = False
        self.lost = False
        # Called before a large message is taken (outside the lock): may wait a little for a
        # small answer about to come (``point_first.PointFirst``).
        self.before_large: Callable[[], object] = lambda: None
        self._thread = threading.Thread(target=self._drain, name="evalfix-stdout", daemon=True)
        self._thread.start()

    def write(self, data: Payload, *, response: bool = False, on_take: OnTake | None = None) -> None:
        with self._ready:
            if self.lost or self._closing:
                return
            urgent = response and len(data) <= self.URGENT_BYTES
            (self._urgent if urgent else self._queued).append((data, on_take))
        self._wake.put(None)

    def flush(self, timeout: float = DRAIN_SECONDS) -> bool:
        """Wait until every queued message is written (or the client is gone); False on timeout."""
        with self._ready:
            return self._ready.wait_for(
                lambda: self.lost or not (self._queued or self._urgent or self._writing), timeout
            )

    def close(self) -> None:
        self.flush()
        with self._ready:
            self._closing = True
        self._wake.put(None)
        with contextlib.suppress(OSError, ValueError):
            self._stream.close()

    def _drain(self) -> None:
        while (data := self._next_message()) is not None:
            self._write(data)
            del data  # not held while waiting for the next one (a report can be a megabyte)
            if self.lost:
                self._on_lost()
                return

    def _next_message(self) -> Payload | None:
        """The next message to write (an urgent one first); None once closing with none left."""
        taken = None
        while taken is None:
            self._wake.get()
            if self._large_next():
                self.before_large()
            with self._ready:
                if self._urgent or self._queued:
                    self._writing = True
                    taken = (self._urgent or self._queued).popleft()
                elif self._closing:
                    return None
        data, on_take = taken
        instead = on_take() if on_take is not None else None  # (outside the lock: it may encode)
        return data if instead is None else instead

    def _large_next(self) -> bool:
        """Whether the next message is a large one (read unlocked: a hint; taken under the lock)."""
        queued = self._queued
        return not self._urgent and bool(queued) and len(queued[0][0]) > self.URGENT_BYTES

    def _write(self, data: Payload) -> None:
        try:
            for piece in data if isinstance(data, Chunks) else (data,):
                self._stream.write(piece)
            self._stream.flush()
        except (OSError, ValueError):  # broken pipe, closed stream
            with self._ready:
                self.lost = True
                self._queued.clear()
                self._urgent.clear()
        with self._ready:
            self._writing = False
            self._ready.notify_all()


class SocketWriter:
    """An asyncio stream writer as pygls' writer (writes happen on the loop)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: Payload, *, response: bool = False) -> None:
        """``response`` changes nothing: asyncio buffers the bytes, the loop never blocks on them."""
        if not self._writer.is_closing():
            self._writer.writelines(data if isinstance(data, Chunks) else (data,))

    def close(self) -> None:
        self._writer.close()


Feed = Callable[[bytes], None]  # ``Connection.feed``: a chunk in, on the loop
Taken = queue.SimpleQueue[None]  # one wake-up per chunk the loop took


def _read_stdin(fd: int, loop: asyncio.AbstractEventLoop, feed: Feed) -> None:
    """The reader thread: each chunk handed to ``feed`` on the loop, until end of input (b"" is
    handed over too) or the loop is gone. The next chunk is read once the loop has taken this
    one (back-pressure on a client that floods us: one chunk ahead at most)."""
    taken: Taken = queue.SimpleQueue()
    while _hand_over(_read_chunk(fd), loop, feed, taken):
        pass


def _read_chunk(fd: int) -> bytes:
    try:
        return os.read(fd, CHUNK_BYTES)
    except OSError:
        return b""


def _hand_over(chunk: bytes, loop: asyncio.AbstractEventLoop, feed: Feed, taken: Taken) -> bool:
    """Have the loop call ``feed(chunk)`` and wait until it has begun; whether to read on. A
    function of its own so that nothing of the chunk stays referenced while the thread blocks in
    the next read; waiting on a ``SimpleQueue`` makes nothing (kept through an idle period, the
    last message's objects pinned the pymalloc arenas of the document it closed)."""
    try:
        loop.call_soon_threadsafe(_taken_and_fed, chunk, feed, taken)
    except RuntimeError:  # the loop is closed: the session is over
        return False
    taken.get()
    return bool(chunk)


def _taken_and_fed(chunk: bytes, feed: Feed, taken: Taken) -> None:
    taken.put(None)  # the reader may read the next chunk while this one is delivered
    feed(chunk)


class Connection:
    """Reads one client's messages until ``exit``, end of input, or the client going away.

    Chunks come in through ``feed``, called on the loop as they arrive; ``run`` waits for the end
    on one future made with the connection. Nothing is made per chunk that outlives it: the task,
    futures and contexts of a wait per chunk (the pending read, the wait for ``exit``), made after
    the last message before a close, were among the objects that pinned the closed document's
    pymalloc arenas through the idle period. A timer runs only while a body is incomplete (a
    stall is checked for a wrong length) or after the client stopped reading."""

    def __init__(self, protocol: BodyReader) -> None:
        self.protocol = protocol
        self._framer = Framer()
        self._loop = asyncio.get_running_loop()
        self._ended: asyncio.Future[str | None] = self._loop.create_future()
        self._timer: asyncio.TimerHandle | None = None
        self._lost = False
        protocol.on_exit = self.stop

    def stop(self) -> None:
        self._end(None)

    def output_lost(self) -> None:
        """The client no longer reads (Neovim 0.11 sends ``shutdown`` and exits): handle what it
        already sent — the ``shutdown`` decides the exit code — then end at its end of input or
        when nothing more comes."""
        self._lost = True
        self._set_timer()

    def output_lost_threadsafe(self, loop: asyncio.AbstractEventLoop) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            loop.call_soon_threadsafe(self.output_lost)

    async def run(self) -> str | None:
        """Serve; why the input broke off in the middle of a message, or None."""
        try:
            return await self._ended
        finally:
            self._cancel_timer()

    def feed(self, chunk: bytes) -> None:
        """Deliver what ``chunk`` completes; b"" is the end of input. A chunk that cannot be
        delivered (a fault of ours: handlers catch what a message causes) ends the session with
        the reason: serving on after messages were lost would leave documents out of sync, and over
        TCP nothing else would end it."""
        try:
            self._feed(chunk)
        except BaseException as exc:
            self._end(f"internal error while reading the input: {exc!r}")
            if not isinstance(exc, Exception):
                raise

    def _feed(self, chunk: bytes) -> None:
        if self._ended.done():
            return
        if not chunk:
            self._end(self._framer.eof())
            return
        self._deliver_all(self._framer.feed(chunk))

    def _deliver_all(self, events: list[Event]) -> None:
        for event in events:
            self._deliver(event)
            if self._ended.done():
                return
        self._set_timer()

    def _set_timer(self) -> None:
        """After the client stopped reading: end unless more comes within the grace period; in
        the middle of a body: look for a wrong length if it stops arriving."""
        self._cancel_timer()
        delay = LOST_GRACE_SECONDS if self._lost else STALL_SECONDS if self._framer.reading_body else None
        if delay is not None and not self._ended.done():
            self._timer = self._loop.call_later(delay, self._timed_out)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _timed_out(self) -> None:
        self._timer = None
        if self._lost:
            self._end(None)
        else:
            self._deliver_all(self._framer.stalled())

    def _end(self, why: str | None) -> None:
        self._cancel_timer()
        if not self._ended.done():
            self._ended.set_result(why)

    def _deliver(self, event: Body | Rejected | Skipped) -> None:
        if isinstance(event, Body):
            if event.warning:
                logger.warning("Framing: %s", event.warning)
            self.protocol.receive_body(event.data)
        elif isinstance(event, Rejected):
            self.protocol.reject_unreadable(f"{event.reason}; looking for the next message")
        else:
            logger.warning("Framing: skipped %d bytes outside any message", event.size)


async def _cancel_pending() -> None:
    """Cancel and await every other task, so none is destroyed pending (or logs a traceback)."""
    current = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# Any: asyncio's exception context (``message``, ``exception``, ``future`` … of any type)
def _quiet_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Late failures of callbacks go to the log, not to stderr."""
    exc = context.get("exception")
    if isinstance(exc, asyncio.CancelledError | ConnectionError):
        return
    logger.error("event loop: %s", context.get("message"), exc_info=exc)


def serve_stdio(server: Served, stdin: BinaryIO, stdout: BinaryIO) -> str | None:
    """Serve LSP over the process's stdin/stdout until the session ends."""

    async def main() -> str | None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_quiet_exception_handler)
        connection = Connection(server.protocol)
        writer = StreamWriter(stdout, lambda: connection.output_lost_threadsafe(loop))
        server.protocol.set_writer(writer)
        reading = (stdin.fileno(), loop, connection.feed)
        reader = threading.Thread(target=_read_stdin, args=reading, name="evalfix-stdin", daemon=True)
        reader.start()
        try:
            return await connection.run()
        finally:
            await _cancel_pending()
            writer.flush()  # the last answers (``shutdown``'s) reach the client before the end
            if writer.lost:
                _discard_output(stdout)

    return asyncio.run(main())


def _discard_output(stdout: BinaryIO) -> None:
    """The client closed our output: what is still buffered would fail again when Python flushes
    it at exit ("Exception ignored … BrokenPipeError" on stderr); let it go to /dev/null."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)


def serve_tcp(server: Served, host: str, port: int) -> str | None:
    """Serve one client over TCP (the first connection) until the session ends."""

    async def main() -> str | None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_quiet_exception_handler)
        connected: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = loop.create_future()

        def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if not connected.done():
                connected.set_result((reader, writer))
            else:
                writer.close()  # one client per server, as with stdio

        listener = await asyncio.start_server(on_connect, host, port)
        try:
            reader, writer = await connected
        finally:
            listener.close()
        server.protocol.set_writer(SocketWriter(writer))

        connection = Connection(server.protocol)

        async def pump() -> None:
            chunk = b"-"
            while chunk:
                try:
                    chunk = await reader.read(CHUNK_BYTES)
                except ConnectionError:
                    chunk = b""
                connection.feed(chunk)

        pumping = asyncio.ensure_future(pump())
        try:
            return await connection.run()
        finally:
            pumping.cancel()
            writer.close()
            await _cancel_pending()

    return asyncio.run(main())
