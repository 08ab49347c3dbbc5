"""A chunk the connection fails to deliver ends the session instead of being dropped."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evalfix_ls.lsp.jsonrpc.transport import Connection


class _Protocol:
    """What ``Connection`` uses of ``EvalfixProtocol``: the bodies it is handed."""

    def __init__(self) -> None:
        self.on_exit: Any = None
        self.bodies: list[bytes] = []

    def receive_body(self, data: bytes) -> None:
        self.bodies.append(data)

    def reject_unreadable(self, reason: str) -> None:
        raise AssertionError(reason)


def _message(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_chunk_that_cannot_be_delivered_ends_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[str | None, list[bytes]]:
        protocol = _Protocol()
        connection = Connection(protocol)  # type: ignore[arg-type]  # the part of the protocol it uses
        connection.feed(_message(b'{"a": 1}'))

        def broken(chunk: bytes) -> list[Any]:
            raise ValueError("framer fault")

        monkeypatch.setattr(connection._framer, "feed", broken)
        connection.feed(_message(b'{"b": 2}'))  # lost: the session must not go on without it
        connection.feed(_message(b'{"c": 3}'))
        return await connection.run(), protocol.bodies

    why, bodies = asyncio.run(scenario())
    assert bodies == [b'{"a": 1}']
    assert why is not None and "framer fault" in why
