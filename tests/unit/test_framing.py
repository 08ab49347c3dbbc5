"""The framer: every broken header gets an event, and the next valid message is always found."""

from __future__ import annotations

import json

import pytest

from evalfix_ls.lsp.jsonrpc.framing import Body, Framer, Rejected, Skipped


def body(msg_id: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "x", "params": {"t": "ü 🎉"}}).encode()


def frame(data: bytes, length: int | None = None, header: bytes = b"Content-Length") -> bytes:
    return header + b": %d\r\n\r\n" % (len(data) if length is None else length) + data


def bodies(events: list) -> list[bytes]:
    return [event.data for event in events if isinstance(event, Body)]


def test_well_formed_messages_in_any_chunking() -> None:
    stream = frame(body(1)) + b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(body(2))
    for size in (1, 3, 7, len(stream)):
        framer = Framer()
        events = [
            e for start in range(0, len(stream), size) for e in framer.feed(stream[start : start + size])
        ]
        assert bodies(events) == [body(1), body(2)], size
        assert framer.eof() is None


@pytest.mark.parametrize(
    "broken",
    [
        frame(body(1), header=b"content-length"),  # header names are case-insensitive
        b"Content-Length: %d\n\n" % len(body(1)) + body(1),  # LF-only line ends
        b"\r\n" + frame(body(1)),  # a stray blank line before the headers
    ],
    ids=["lower-case", "lf-only", "blank-line"],
)
def test_lenient_headers_are_read(broken: bytes) -> None:
    assert bodies(Framer().feed(broken + frame(body(2)))) == [body(1), body(2)]


@pytest.mark.parametrize(
    ("broken", "reason"),
    [
        (b"Content-Length: abc\r\n\r\n" + body(1), "not a byte count"),
        (b"Content-Length: -5\r\n\r\n" + body(1), "not a byte count"),
        (b"Content-Length: \r\n\r\n" + body(1), "not a byte count"),
        (b"Content-Type: x\r\n\r\n" + body(1), "no Content-Length"),
        (b"Content-Length: 1000000000000\r\n\r\n" + body(1), "above the limit"),
    ],
    ids=["non-numeric", "negative", "empty", "missing", "huge"],
)
def test_untrustworthy_lengths_are_rejected_and_the_next_message_found(broken: bytes, reason: str) -> None:
    events = Framer().feed(broken + frame(body(2)))
    rejected = [e for e in events if isinstance(e, Rejected)]
    assert len(rejected) == 1 and reason in rejected[0].reason
    assert bodies(events) == [body(2)]


def test_a_short_length_cuts_the_body_and_the_rest_is_skipped() -> None:
    events = Framer().feed(frame(body(1), len(body(1)) - 5) + frame(body(2)))
    assert bodies(events) == [body(1)[:-5], body(2)]  # the cut one is answered as unreadable
    assert [e.size for e in events if isinstance(e, Skipped)] == [5]


def test_zero_length_is_an_empty_body_and_the_real_body_is_skipped() -> None:
    events = Framer().feed(frame(body(1), 0) + frame(body(2)))
    assert bodies(events) == [b"", body(2)]


def test_a_long_length_gives_back_the_next_message() -> None:
    events = Framer().feed(frame(body(1), len(body(1)) + 10) + frame(body(2)) + frame(body(3)))
    assert bodies(events) == [body(1), body(2), body(3)]
    assert "Content-Length was" in (events[0].warning or "")


def test_a_long_length_with_nothing_after_is_delivered_when_the_input_stalls() -> None:
    framer = Framer()
    assert framer.feed(frame(body(1), len(body(1)) + 10)) == []
    assert framer.reading_body
    assert bodies(framer.stalled()) == [body(1)]
    assert bodies(framer.feed(frame(body(2)))) == [body(2)]


def test_a_slow_body_is_not_cut_by_a_stall() -> None:
    framer = Framer()
    framer.feed(frame(body(1))[:-4])
    assert framer.stalled() == []
    assert bodies(framer.feed(body(1)[-4:])) == [body(1)]


def test_garbage_without_line_breaks_is_bounded_and_skipped() -> None:
    framer = Framer()
    for _ in range(100):
        assert framer.feed(b"x" * 100_000) == []
    assert len(framer._buffer) < 100_000  # never holds the garbage
    events = framer.feed(frame(body(2)))
    assert bodies(events) == [body(2)]
    assert sum(e.size for e in events if isinstance(e, Skipped)) == 100 * 100_000


def test_a_body_without_header_is_skipped() -> None:
    events = Framer().feed(body(1) + frame(body(2)))
    assert bodies(events) == [body(2)]


def test_huge_length_does_not_wait_for_its_body() -> None:
    framer = Framer()
    events = framer.feed(b"Content-Length: 1000000000000\r\n\r\n")
    assert isinstance(events[0], Rejected) and not framer.reading_body


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        (frame(body(1))[:-3], "inside a message"),
        (b"Content-Length: 12\r\n", "inside a message header"),
        (b"Content-Length: x\r\n\r\n{}", "looking for a message header"),
        (b"", None),
    ],
)
def test_end_of_input_says_what_was_cut(tail: bytes, reason: str | None) -> None:
    framer = Framer()
    framer.feed(frame(body(1)) + tail)
    said = framer.eof()
    assert (said is None) if reason is None else (reason in (said or ""))


def test_a_body_nested_too_deeply_is_delivered_and_the_next_message_read() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000  # json.loads raises RecursionError, not ValueError
    stream = frame(deep) + frame(body(2))
    assert bodies(Framer().feed(stream)) == [deep, body(2)]  # the protocol answers it with -32700
    framer = Framer()  # too long a length over it: nothing to give back, and no exception
    assert bodies(framer.feed(frame(deep, length=len(deep) + 5))) == []
    assert bodies(framer.stalled()) == []
