"""Protocol noise gets answers, never silence or popups; a second initialize changes nothing; the
session ends quietly however the client leaves (issue 14, issue 12 item 7). The real server over
stdio: raw JSON-RPC where pytest-lsp would not send the message, pytest-lsp otherwise."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsp_support import FAULTY_SERVER, SERVER, TIMEOUT, RawClient, Session, make_repo, write_json
from lsprotocol import types
from pygls.exceptions import JsonRpcException

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603


def framed(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def started(*command: str) -> RawClient:
    client = await RawClient.start(*command, stderr=asyncio.subprocess.PIPE)
    assert "capabilities" in (await client.initialize())["result"]
    return client


async def finish(client: RawClient) -> str:
    """Shut down and exit normally; the server's stderr."""
    assert (await client.request("shutdown"))["result"] is None
    client.notify("exit")
    assert await client.wait() == 0
    assert client.process is not None and client.process.stderr is not None
    return (await client.process.stderr.read()).decode()


@pytest.mark.parametrize(
    ("body", "code", "answer_id"),
    [
        (b'{"jsonrpc": "2.0", "id": 5, "method": "shutdown\xff"}', PARSE_ERROR, None),
        (b'{"jsonrpc": "2.0", "id": 5, "method": ', PARSE_ERROR, None),
        (b'{"id": 5, "method": "shutdown"}', INVALID_REQUEST, 5),
        (b'{"jsonrpc": "1.0", "id": 5, "method": "shutdown"}', INVALID_REQUEST, 5),
        (b'{"jsonrpc": "2.0", "id": 5, "method": 42}', INVALID_REQUEST, 5),
        (b'{"jsonrpc": "2.0", "method": 42}', INVALID_REQUEST, None),
        (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}', INVALID_REQUEST, None),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "shutdown", "params": "x"}', INVALID_REQUEST, 5),
        (b'{"jsonrpc": "2.0", "id": 5}', INVALID_REQUEST, 5),
        (b"42", INVALID_REQUEST, None),
        (b"[]", INVALID_REQUEST, None),
        (b"[" * 100_000 + b"]" * 100_000, PARSE_ERROR, None),
        (b'{"a":' * 5_000 + b"1" + b"}" * 5_000, PARSE_ERROR, None),
        (
            b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": '
            + b'{"textDocument": '
            + b"[" * 900
            + b"]" * 900
            + b', "position": {"line": 0, "character": 0}}}',
            INVALID_PARAMS,
            5,
        ),
    ],
    ids=[
        "invalid-utf8",
        "not-json",
        "no-jsonrpc",
        "jsonrpc-1.0",
        "numeric-method",
        "numeric-method-notification",
        "object-id",
        "string-params",
        "neither-request-nor-response",
        "not-an-object",
        "empty-batch",
        "too-deep-array",
        "too-deep-object",
        "deep-params",
    ],
)
async def test_invalid_messages_are_answered(body: bytes, code: int, answer_id: Any) -> None:
    client = await started()
    try:
        client.send_raw(framed(body))
        answer = await client.next_response()
        assert answer["error"]["code"] == code and answer["id"] == answer_id, answer
        assert (await finish(client)) == ""  # and the server still serves, and said nothing on stderr
    finally:
        await client.close()


async def test_a_batch_gets_one_answer_per_request() -> None:
    client = await started()
    try:
        batch = [
            {"jsonrpc": "2.0", "id": 7, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "id": "eight", "method": "textDocument/hover"},
            17,
        ]
        client.send_raw(framed(json.dumps(batch).encode()))
        answers = await client.next_response()
        assert isinstance(answers, list)
        assert [(a["id"], a["error"]["code"]) for a in answers] == [
            (7, INVALID_REQUEST),
            ("eight", INVALID_REQUEST),
            (None, INVALID_REQUEST),
        ]
        await finish(client)  # the shutdown inside the batch was not executed
    finally:
        await client.close()


MALFORMED_NOTIFICATIONS: list[dict[str, Any]] = [
    {"method": "$/cancelRequest", "params": {"id": {"nested": 1}}},
    {"method": "$/cancelRequest", "params": {"id": 987654}},
    {"method": "$/cancelRequest", "params": {}},
    {"method": "$/cancelRequest"},
    {"method": "textDocument/didOpen", "params": {"textDocument": {"uri": 3}}},
    {"method": "textDocument/didOpen", "params": {}},
    {
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": "file:///nope.json", "version": 2}},
    },
    {
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": "file:///open.json", "version": 2},
            "contentChanges": [
                {
                    "range": {"start": {"line": 99, "character": 0}, "end": {"line": 99, "character": 1}},
                    "text": "x",
                }
            ],
        },
    },
    {"method": "textDocument/didClose", "params": {"textDocument": {"uri": "file:///nope.json"}}},
    {"method": "workspace/didChangeConfiguration", "params": {"settings": 5}},
    {"method": "workspace/didChangeWatchedFiles", "params": {"changes": [{"uri": "not a uri", "type": 9}]}},
    {"method": "workspace/didChangeWorkspaceFolders", "params": {"event": {"added": 1, "removed": []}}},
    {"method": "$/setTrace", "params": {"value": "loud"}},
    {"method": "initialized", "params": {}},
    {"method": "evalfix/unknownNotification", "params": {}},
]
MALFORMED_RESPONSES: list[dict[str, Any]] = [
    {"id": "never-sent", "result": None},
    {"id": "never-sent", "error": {"code": "x"}},
    {"id": None, "error": {"code": -1, "message": "m"}},
]


async def test_malformed_input_is_logged_never_a_popup() -> None:
    client = await started()
    try:
        opened = {"uri": "file:///open.json", "languageId": "json", "version": 1, "text": "{}\n"}
        client.notify("textDocument/didOpen", {"textDocument": opened})
        for message in MALFORMED_NOTIFICATIONS + MALFORMED_RESPONSES:
            client.send(message)
        # Still serving: a request after all of them is answered (messages are handled in order).
        answer = await client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": "file:///none.json"}}
        )
        assert "error" in answer
        await finish(client)
        methods = [n["method"] for n in client.notifications]
        assert "window/showMessage" not in methods
        assert any(n["method"] == "window/logMessage" for n in client.notifications)  # logged instead
    finally:
        await client.close()


async def test_an_internal_error_answer_carries_no_traceback(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    boom = write_json(root / "skills" / "demo" / "evals" / "boom.json", {"cases": []})
    client = await started(*FAULTY_SERVER)
    try:
        item = {"uri": boom.as_uri(), "languageId": "json", "version": 1, "text": boom.read_text()}
        client.notify("textDocument/didOpen", {"textDocument": item})
        answer = await client.request("textDocument/diagnostic", {"textDocument": {"uri": boom.as_uri()}})
        error = answer["error"]
        assert error["code"] == INTERNAL_ERROR
        assert "data" not in error or error["data"] is None
        assert "Traceback" not in error["message"] and "site-packages" not in error["message"]
        assert "/" not in error["message"]  # no paths at all
        await finish(client)
    finally:
        await client.close()


async def test_a_second_initialize_is_refused_and_changes_nothing(
    pull_session: Session, tmp_path: Path
) -> None:
    session = pull_session
    root = make_repo(tmp_path / "repo")
    suite = {"skill_name": "demo", "evals": [{"id": "twice", "prompt": "a"}, {"id": "twice", "prompt": "b"}]}
    path = write_json(root / "evals" / "evals.json", suite)
    await session.initialize([root])
    with pytest.raises(JsonRpcException) as refused:
        await session.client.protocol.send_request_async(
            types.INITIALIZE,
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=root.as_uri()),
        )
    assert refused.value.code == INVALID_REQUEST
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: any(x.related_information for x in d))
    assert items  # relatedInformation is still sent, as the first initialize negotiated


async def pending_configuration_client() -> RawClient:
    """A client that lets the server's ``workspace/configuration`` request hang."""
    client = await RawClient.start(stderr=asyncio.subprocess.PIPE)
    caps = {"workspace": {"configuration": True}}
    assert "result" in await client.request("initialize", {"processId": None, "capabilities": caps})
    client.notify("initialized", {})
    while (await client.receive()).get("method") != "workspace/configuration":
        pass
    return client


@pytest.mark.parametrize("ending", ["exit", "eof"])
async def test_ending_while_configuration_is_pending_is_quiet(ending: str) -> None:
    client = await pending_configuration_client()
    try:
        if ending == "exit":
            client.notify("exit")
        else:
            client.writer.close()
        assert await client.wait() == 1  # no shutdown: the protocol's error exit
        assert client.process is not None and client.process.stderr is not None
        stderr = (await client.process.stderr.read()).decode()
        assert stderr == "", stderr
    finally:
        await client.close()


def _message(payload: dict[str, Any]) -> bytes:
    return framed(json.dumps({"jsonrpc": "2.0", **payload}).encode())


def _read_message(stream: Any) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


@pytest.mark.parametrize("pending_output", [False, True])
def test_a_client_that_leaves_after_shutdown_ends_the_server_quietly(pending_output: bool) -> None:
    """Neovim 0.11 sends shutdown and exits without reading the reply (issue 12 item 7)."""
    process = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(_message({"id": 1, "method": "initialize", "params": {"capabilities": {}}}))
        process.stdin.flush()
        while "result" not in _read_message(process.stdout):
            pass  # log messages before the answer
        process.stdin.write(_message({"method": "initialized", "params": {}}))
        if pending_output:  # more answers are on their way when the pipes close
            for n in range(20):
                process.stdin.write(_message({"id": 10 + n, "method": "evalfix/none", "params": {}}))
        process.stdin.flush()
        process.stdout.close()  # gone: the reply to shutdown (and any other) cannot be written
        process.stdin.write(_message({"id": 2, "method": "shutdown"}))
        process.stdin.close()
        assert process.wait(timeout=TIMEOUT) == 0  # shutdown was received: a clean exit
        assert process.stderr is not None
        stderr = process.stderr.read().decode()
        assert stderr == "", stderr  # no BrokenPipeError traceback, nothing at all
    finally:
        process.kill()
        process.wait()
