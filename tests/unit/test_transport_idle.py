"""What the transport holds while it waits for the client: nothing of the last message (issue 19,
point 5). The objects of the message handled last (its bytes, the hand-over's future and task,
the framed bodies) were kept through the idle period after a close, in the pymalloc arenas the
closed document's analyses had filled, and kept those arenas from being given back."""

from __future__ import annotations

import asyncio
import concurrent.futures
import linecache
import os
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from evalfix_ls.lsp.jsonrpc.transport import StreamWriter, _read_stdin, serve_stdio

WAIT = 10.0  # bound for conditions that hold at once on a sane machine; never a pacing delay
MESSAGE = b"Content-Length: 2\r\n\r\n{}"


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def _frames(thread: threading.Thread) -> list[FrameType]:
    """The thread's frames, innermost first."""
    frame = sys._current_frames().get(thread.ident) if thread.ident is not None else None
    frames = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def _in_read(thread: threading.Thread) -> bool:
    frames = _frames(thread)
    return bool(frames) and "os.read(" in linecache.getline(frames[0].f_code.co_filename, frames[0].f_lineno)


def _message_objects(values: list[Any]) -> list[Any]:
    """What of a message a frame may hold: its bytes, the bodies framed, a hand-over in flight."""
    return [
        value
        for value in values
        if (isinstance(value, bytes) and value)
        or isinstance(value, (list, concurrent.futures.Future, asyncio.Future))
        or asyncio.iscoroutine(value)
    ]


def test_the_stdin_reader_holds_nothing_of_the_last_chunk_while_it_waits() -> None:
    loop = asyncio.new_event_loop()
    running = threading.Thread(target=loop.run_forever, daemon=True)
    running.start()
    fed: concurrent.futures.Future[bytes] = concurrent.futures.Future()
    read_end, write_end = os.pipe()
    reader = threading.Thread(target=_read_stdin, args=(read_end, loop, fed.set_result), daemon=True)
    reader.start()
    try:
        os.write(write_end, MESSAGE)
        assert fed.result(WAIT) == MESSAGE
        _until(lambda: _in_read(reader), "the reader to wait for the next chunk")
        held = [value for frame in _frames(reader) for value in frame.f_locals.values()]
        assert not _message_objects(held), held
    finally:
        os.close(write_end)  # end of input: the reader hands b"" over and returns
        reader.join(WAIT)
        loop.call_soon_threadsafe(loop.stop)
        running.join(WAIT)
        loop.close()
        os.close(read_end)


class _Protocol:
    """The protocol as the transport sees it: a writer set, bodies in, ``exit`` to stop."""

    def __init__(self) -> None:
        self.on_exit: Callable[[], None] | None = None
        self.bodies: list[bytes] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    def set_writer(self, writer: object) -> None:
        self.loop = asyncio.get_running_loop()

    def receive_body(self, body: bytes) -> None:
        self.bodies.append(body)


class _Server:
    def __init__(self) -> None:
        self.protocol = _Protocol()


def _on_the_loop(loop: asyncio.AbstractEventLoop, ask: Callable[[], Any]) -> Any:
    """``ask()`` run on ``loop`` as a plain callback (no task of its own to count)."""
    answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
    loop.call_soon_threadsafe(lambda: answer.set_result(ask()))
    return answer.result(WAIT)


def test_waiting_for_the_next_message_makes_no_task() -> None:
    """Served over stdio, once a message is handled the loop waits for the next one with the
    session's own task only: a task per read (and its context, futures, callbacks), made after the
    last message before a close, was among what pinned the closed document's arenas."""
    server = _Server()
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    with os.fdopen(read_end, "rb") as stdin, os.fdopen(out_write, "wb") as stdout:
        serving = threading.Thread(target=serve_stdio, args=(server, stdin, stdout), daemon=True)
        serving.start()
        try:
            os.write(write_end, MESSAGE)
            _until(lambda: server.protocol.bodies == [b"{}"], "the message to be handled")
            loop = server.protocol.loop
            assert loop is not None
            tasks = _on_the_loop(loop, lambda: [task.get_coro() for task in asyncio.all_tasks(loop)])
            assert len(tasks) == 1, tasks
        finally:
            os.close(write_end)  # end of input: the session ends
            serving.join(WAIT)
            os.close(out_read)


def test_the_stdout_writer_waits_without_a_condition() -> None:
    """Waiting on a ``Condition`` makes a lock, a bound method and more for every wait; made after
    the last answer before a close, they stayed through the idle period. The writer waits on a
    ``SimpleQueue``, which makes nothing."""
    read_end, write_end = os.pipe()
    writer = StreamWriter(os.fdopen(write_end, "wb"), lambda: None)
    try:
        writer.write(MESSAGE)
        assert os.read(read_end, len(MESSAGE)) == MESSAGE
        assert writer.flush()

        def waiting() -> bool:
            frames = _frames(writer._thread)
            return bool(frames) and frames[0].f_code.co_name in ("_next_message", "wait")

        _until(waiting, "the writer to wait for the next message")
        assert "wait" not in [frame.f_code.co_name for frame in _frames(writer._thread)]
    finally:
        os.close(read_end)
        writer.close()
