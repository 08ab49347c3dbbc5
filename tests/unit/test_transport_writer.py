"""The stdout writer of the LSP transport: a write never waits for the client to read (a 900 KB
diagnostic report held the event loop while the editor's next requests waited), a small response
is written before the messages still queued, and notifications keep their order."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from evalfix_ls.lsp.transport import StreamWriter

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
