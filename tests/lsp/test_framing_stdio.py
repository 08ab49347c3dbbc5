"""Broken framing on the server's real stdin: the server answers (or recovers the message), keeps
serving the messages after it, never runs out of memory, and when the input ends inside a
message it says why in one line on stderr and exits with status 1 (issue 14)."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsp_support import RawClient

PARSE_ERROR, METHOD_NOT_FOUND = -32700, -32601


def probe(msg_id: int) -> bytes:
    """A request every server answers (an unknown method), so its answer can be checked."""
    return json.dumps(
        {"jsonrpc": "2.0", "id": msg_id, "method": "evalfix/probe", "params": {"t": "ü 🎉"}}
    ).encode()


def framed(
    body: bytes, length: int | None = None, header: bytes = b"Content-Length", eol: bytes = b"\r\n"
) -> bytes:
    return header + b": %d" % (len(body) if length is None else length) + eol + eol + body


BROKEN = {
    # name: (bytes holding request 100, what request 100 gets: "answered" | "parse-error" | None)
    "short": (framed(probe(100), len(probe(100)) - 6), "parse-error"),
    "long": (framed(probe(100), len(probe(100)) + 9), "answered"),
    "zero": (framed(probe(100), 0), "parse-error"),
    "non-numeric": (b"Content-Length: many\r\n\r\n" + probe(100), "parse-error"),
    "negative": (b"Content-Length: -20\r\n\r\n" + probe(100), "parse-error"),
    "missing": (b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + probe(100), "parse-error"),
    "lower-case": (framed(probe(100), header=b"content-length"), "answered"),
    "lf-only": (framed(probe(100), eol=b"\n"), "answered"),
    "huge": (b"Content-Length: 1000000000000\r\n\r\n" + probe(100), "parse-error"),
    "no-header": (probe(100), None),
}


async def started() -> RawClient:
    client = await RawClient.start(stderr=asyncio.subprocess.PIPE)
    assert "capabilities" in (await client.initialize())["result"]
    return client


async def answers(client: RawClient, count: int) -> list[dict]:
    return [await client.next_response() for _ in range(count)]


@pytest.mark.parametrize("name", list(BROKEN))
async def test_the_server_keeps_serving_after_broken_framing(name: str) -> None:
    broken, fate = BROKEN[name]
    client = await started()
    try:
        client.send_raw(broken + b"".join(framed(probe(n)) for n in (1, 2, 3)))
        got = await answers(client, 3 + (fate is not None))
        ids = [a["id"] for a in got]
        assert [i for i in ids if i in (1, 2, 3)] == [1, 2, 3], got  # every later request answered
        if fate == "answered":
            assert any(a["id"] == 100 and a["error"]["code"] == METHOD_NOT_FOUND for a in got), got
        elif fate == "parse-error":
            assert any(a["id"] is None and a["error"]["code"] == PARSE_ERROR for a in got), got
        assert (await client.request("shutdown"))["result"] is None
        client.notify("exit")
        assert await client.wait() == 0
        assert client.process is not None and client.process.stderr is not None
        stderr = (await client.process.stderr.read()).decode()
        assert "Traceback" not in stderr and "MemoryError" not in stderr, stderr
    finally:
        await client.close()


async def test_a_long_length_at_the_end_of_what_was_sent_is_still_answered() -> None:
    client = await started()
    try:
        client.send_raw(framed(probe(100), len(probe(100)) + 50))  # nothing follows: the body stalls
        answer = await client.next_response()
        assert answer["id"] == 100 and answer["error"]["code"] == METHOD_NOT_FOUND
    finally:
        await client.close()


@pytest.mark.parametrize(
    "tail",
    [
        framed(probe(9))[:-10],
        b"Content-Length: 12\r\n",
        b"Content-Length: 1000000000000\r\n\r\n" + b"x" * 100_000,
    ],
    ids=["inside-a-body", "inside-the-headers", "skipping-a-rejected-body"],
)
async def test_input_ending_inside_a_message_is_one_line_and_status_1(tail: bytes) -> None:
    client = await started()
    try:
        assert (await client.request("shutdown"))["result"] is None  # even after shutdown
        client.send_raw(tail)
        client.writer.close()
        assert await client.wait() == 1
        assert client.process is not None and client.process.stderr is not None
        stderr = (await client.process.stderr.read()).decode()
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("evalfix-ls: input ended"), stderr
    finally:
        await client.close()
