"""The stdout writer of the LSP transport: a write never waits for the client to read (a 900 KB
diagnostic report held the event loop while the editor's next requests waited), a small response
is written before the messages still queued, and notifications keep their order."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from evalfix_ls.lsp.jsonrpc.transport import StreamWriter
from evalfix_ls.lsp.scheduling.point_first import PointFirst

BIG = 1 << 20  # far more than a pipe holds: its write blocks until the reader reads


@contextmanager
def piped_writer() -> Iterator[tuple[StreamWriter, int]]:
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "wb")
    writer = StreamWriter(stream, lambda: None)
    try:
        yield writer, read_end
    finally:
        os.close(read_end)
        writer.close()


def read_messages(fd: int, sizes: dict[bytes, int]) -> list[bytes]:
    """The messages in the order they arrive; each is ``size`` bytes of one letter."""
    total = sum(sizes.values())
    data = bytearray()
    while len(data) < total:
        data += os.read(fd, 1 << 16)
    order, at = [], 0
    while at < total:
        letter = bytes(data[at : at + 1])
        order.append(letter)
        at += sizes[letter]
    return order


def test_writes_return_while_the_client_reads_nothing() -> None:
    with piped_writer() as (writer, read_end):
        done = threading.Event()

        def write_all() -> None:
            writer.write(b"a" * BIG)
            writer.write(b"b" * BIG)
            writer.write(b"c" * 10, response=True)
            done.set()

        thread = threading.Thread(target=write_all, daemon=True)
        thread.start()
        # Nothing was read: a write that waits for the client never returns here.
        assert done.wait(30), "a write blocked until the client read"
        read_messages(read_end, {b"a": BIG, b"b": BIG, b"c": 10})
        assert writer.flush(30)


def test_a_small_response_overtakes_queued_messages_and_notifications_keep_their_order() -> None:
    with piped_writer() as (writer, read_end):

        def write_all() -> None:  # on a thread: a writer that blocks still lets the test read
            writer.write(b"a" * BIG)  # written first (unless r comes before the thread takes it)
            writer.write(b"b" * BIG)  # queued: the pipe is full, nobody reads yet
            writer.write(b"n" * 10)  # a small notification: stays behind b
            writer.write(b"r" * 10, response=True)  # a small response (a hover): before b
            writer.write(b"s" * BIG, response=True)  # a large response: in order

        threading.Thread(target=write_all, daemon=True).start()
        order = read_messages(read_end, {b"a": BIG, b"b": BIG, b"n": 10, b"r": 10, b"s": BIG})
    assert order.index(b"r") < order.index(b"b")
    assert [letter for letter in order if letter != b"r"] == [b"a", b"b", b"n", b"s"]


def test_a_message_is_replaced_by_what_on_take_gives_when_the_writer_takes_it() -> None:
    """An answer superseded while it waited in the queue (``supersession.Supersession``) is written
    as the short error ``on_take`` gives then, not as the megabyte it was."""
    superseded = threading.Event()

    def on_take() -> bytes | None:
        return b"x" * 10 if superseded.is_set() else None

    with piped_writer() as (writer, read_end):

        def write_all() -> None:
            writer.write(b"a" * BIG)  # being written: the pipe is full, nobody reads yet
            writer.write(b"b" * BIG, response=True, on_take=on_take)  # queued behind it
            writer.write(b"c" * BIG, response=True, on_take=lambda: None)  # kept as it is
            superseded.set()  # before the test reads: b is taken only once a is read

        thread = threading.Thread(target=write_all, daemon=True)
        thread.start()
        thread.join(30)
        order = read_messages(read_end, {b"a": BIG, b"x": 10, b"c": BIG})
    assert order == [b"a", b"x", b"c"]


def test_a_large_message_waits_while_a_point_request_is_answered() -> None:
    """While a point request (a hover) is being answered, the writer does not start a large
    message: the hover's answer, queued meanwhile, goes first (the client reads in order)."""
    point_first = PointFirst()
    point_first.GIVE_WAY_SECONDS = 30.0  # only reached when the writer is broken
    asked = threading.Event()

    def before_large() -> None:
        asked.set()
        point_first.give_way()

    with piped_writer() as (writer, read_end):
        writer.before_large = before_large
        point_first.begin(7)  # the hover is read
        writer.write(b"b" * BIG, response=True)  # a document's symbols, ready first
        assert asked.wait(30), "the writer took a large message without giving way"
        writer.write(b"r" * 10, response=True)  # the hover's answer
        point_first.answered(7)
        order = read_messages(read_end, {b"b": BIG, b"r": 10})
    assert order == [b"r", b"b"]
