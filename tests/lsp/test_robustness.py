"""Failures never kill the server; protocol errors get the right answers; shutdown/exit as the
protocol says; the TCP transport."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from pathlib import Path
from unittest.mock import patch

import pytest
from lsp_support import (
    SERVER,
    TIMEOUT,
    RawClient,
    Session,
    codes,
    make_repo,
    wait_until,
    workflow_fixture,
    write_json,
)
from pygls.exceptions import JsonRpcException

INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR, NOT_INITIALIZED = (
    -32600,
    -32601,
    -32602,
    -32603,
    -32002,
)


async def test_handler_errors_are_answered_and_logged(faulty_session: Session, tmp_path: Path) -> None:
    session = faulty_session
    root = make_repo(tmp_path / "repo")
    fixture = workflow_fixture("demo", ["one"])
    good = write_json(root / "skills" / "demo" / "evals" / "good.json", fixture)
    boom = write_json(root / "skills" / "demo" / "evals" / "boom.json", fixture)
    await session.initialize([root])
    good_uri, boom_uri = session.open(good), session.open(boom)

    with pytest.raises(JsonRpcException) as failure:  # a request handler fails: an error response
        await session.pull_document(boom_uri)
    assert failure.value.code == INTERNAL_ERROR
    assert "source_ref_missing" in codes(await session.diagnostics(good_uri))  # still serving

    for _ in range(3):  # a notification handler fails, three times
        session.edit(boom_uri, 0, 0, " ")
    await wait_until(
        lambda: sum("planted notification failure" in m.message for m in session.client.log_messages) >= 3,
        "the notification failures in the log",
    )
    assert len(session.client.messages) <= 1  # at most one popup per session, not one per failure
    logged = "\n".join(m.message for m in session.client.log_messages)
    assert "planted request failure" in logged

    # The analysis itself fails: the document shows one internal-error diagnostic, not stale ones.
    text = session.texts[good_uri]
    session.edit(good_uri, len(text), len(text), '"PLANTED_ANALYSIS_FAILURE"')
    items = await session.diagnostics(good_uri, lambda d: "internal-error" in codes(d))
    assert codes(items) == ["internal-error"]
    session.edit(good_uri, len(text), len(session.texts[good_uri]), "")
    await session.diagnostics(good_uri, lambda d: "source_ref_missing" in codes(d))


async def test_protocol_errors(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    client = await RawClient.start()
    try:
        early = await client.request("textDocument/diagnostic", {"textDocument": {"uri": "file:///x.json"}})
        assert early["error"]["code"] == NOT_INITIALIZED
        assert "capabilities" in (await client.initialize(root))["result"]

        malformed = await client.request("textDocument/diagnostic", {"textDocument": {"url": "file:///x"}})
        assert malformed["error"]["code"] == INVALID_PARAMS
        assert "text_document" in malformed["error"]["message"] or "uri" in malformed["error"]["message"]

        unknown_doc = await client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": "file:///nope.json"}}
        )
        assert unknown_doc["error"]["code"] == INVALID_PARAMS
        assert "not open" in unknown_doc["error"]["message"]

        assert (await client.request("evalfix/noSuchMethod", {}))["error"]["code"] == METHOD_NOT_FOUND

        # A change for a document that is not open, and a malformed notification: logged, no crash.
        client.notify("textDocument/didChange", {"textDocument": {"uri": "file:///nope.json", "version": 2}})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": 3}})
        assert (await client.request("shutdown"))["result"] is None
        after = await client.request("textDocument/diagnostic", {"textDocument": {"uri": "file:///x.json"}})
        assert after["error"]["code"] == INVALID_REQUEST
        client.notify("exit")
        assert await client.wait() == 0
    finally:
        if client.process.returncode is None:
            client.process.kill()


async def test_exit_without_shutdown_is_an_error_exit() -> None:
    client = await RawClient.start()
    await client.initialize()
    client.notify("exit")
    assert await client.wait() == 1


async def test_closing_the_input_stops_the_server() -> None:
    client = await RawClient.start()
    await client.initialize()
    client.writer.close()
    assert await client.wait() == 1


async def test_shutdown_session_exits_cleanly(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    await session.initialize([make_repo(tmp_path / "repo")])
    exit_code: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
    client_hook = session.client.server_exit

    async def server_exit(server: asyncio.subprocess.Process) -> None:
        """pygls' public hook, called with the server process once it has exited."""
        await client_hook(server)
        if not exit_code.done():
            exit_code.set_result(server.returncode)

    with patch.object(session.client, "server_exit", server_exit):
        await session.client.shutdown_session()
        assert await asyncio.wait_for(exit_code, TIMEOUT) == 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_tcp_transport() -> None:
    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        *SERVER, "--tcp", f"127.0.0.1:{port}", stderr=asyncio.subprocess.DEVNULL
    )
    try:
        for _ in range(100):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the TCP server did not start")
        client = RawClient(reader, writer)
        response = await client.initialize()
        assert response["result"]["serverInfo"]["name"] == "evalfix-ls"
        assert (await client.request("shutdown"))["result"] is None
        client.notify("exit")
        assert await asyncio.wait_for(process.wait(), 10) == 0
    finally:
        if process.returncode is None:
            process.kill()


def test_bad_tcp_address_is_a_usage_error() -> None:
    done = subprocess.run([*SERVER, "--tcp", "localhost"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "HOST:PORT" in done.stderr
