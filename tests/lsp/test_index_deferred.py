"""The opened file first (issue 30 point 1): while the repository's workflow index is still being
read from disk (held on purpose by ``blocking_server.py`` until the test releases it), an opened
fixture gets its own findings at once, without the cross-file ones; when the index is in, the
server has them checked again — a refresh for a pull client, a new publish for a push client —
and the duplicate id across files appears. No timing: the test decides when the load ends."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lsp_support import RawClient, two_fixtures, workflow_fixture, write_json

BLOCKING_SERVER = [sys.executable, str(Path(__file__).with_name("blocking_server.py"))]
PULL = {
    "textDocument": {"diagnostic": {"dynamicRegistration": False}},
    "workspace": {"diagnostics": {"refreshSupport": True}},
}


async def opened(
    tmp_path: Path, capabilities: dict[str, Any], *, plants: tuple[str, ...] = ()
) -> tuple[RawClient, str]:
    """The server on a repository whose index load blocks (and what ``plants`` name), with
    ``b.json`` open: it repeats ``a.json``'s id, a duplicate only the index can see."""
    root, _a, b = two_fixtures(tmp_path)
    for plant in ("PLANTED_INDEX_BLOCK", *plants):
        (root / plant).touch()
    write_json(b, workflow_fixture("demo", ["one", "two"]))
    client = await RawClient.start(*BLOCKING_SERVER)
    params = {"processId": None, "capabilities": capabilities, "rootUri": root.as_uri()}
    assert "result" in await client.request("initialize", params)
    client.notify("initialized", {})
    text = b.read_text(encoding="utf-8")
    document = {"uri": b.as_uri(), "languageId": "json", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": document})
    return client, b.as_uri()


async def pulled_codes(client: RawClient, uri: str) -> list[str]:
    answer = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    return [item["code"] for item in answer["result"]["items"]]


async def next_refresh(client: RawClient) -> None:
    """Until the server asks for a ``workspace/diagnostic/refresh`` (answered, as every request)."""
    while True:
        message = await client.receive()
        if "id" in message and "method" in message:
            client.send({"id": message["id"], "result": None})
            if message["method"] == "workspace/diagnostic/refresh":
                return


async def load_is_held(client: RawClient) -> bool:
    """The index load has started and waits for the release (asked until it has: the load is
    queued behind the first analysis, on a worker)."""
    for _ in range(1000):
        if (await client.request("evalfix/test/blocked", {}))["result"]["index waiting"] == 1:
            return True
    return False


async def test_a_pull_client_gets_the_own_findings_first_then_a_refresh_with_the_cross_file_ones(
    tmp_path: Path,
) -> None:
    client, uri = await opened(tmp_path, PULL)
    try:
        assert "duplicate_case_id" not in await pulled_codes(client, uri)
        assert await load_is_held(client)  # the answer above came before the index
        await client.request("evalfix/test/release", {})
        # The server asks for a refresh once the index is in. A refresh asked for earlier (the
        # open's) may reach the client first, while the index still loads: pull after each.
        for _ in range(10):
            await next_refresh(client)
            if "duplicate_case_id" in await pulled_codes(client, uri):
                break
        else:
            raise AssertionError("no refresh brought the cross-file finding")
    finally:
        await client.close()


async def test_a_push_client_gets_a_publish_without_then_one_with_the_cross_file_findings(
    tmp_path: Path,
) -> None:
    client, uri = await opened(tmp_path, {})
    try:
        published: list[list[str]] = []
        while not published:
            message = await client.receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                published.append([item["code"] for item in message["params"]["diagnostics"]])
            elif "id" in message and "method" in message:
                client.send({"id": message["id"], "result": None})
        assert "duplicate_case_id" not in published[0]
        assert await load_is_held(client)
        await client.request("evalfix/test/release", {})
        while "duplicate_case_id" not in published[-1]:
            message = await client.receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                published.append([item["code"] for item in message["params"]["diagnostics"]])
            elif "id" in message and "method" in message:
                client.send({"id": message["id"], "result": None})
        assert len(published) >= 2
    finally:
        await client.close()


async def test_a_suite_opened_while_the_workspace_walk_and_index_load_hold_is_published(
    tmp_path: Path,
) -> None:
    """The workspace's own work (the scan's walk, the workflow index's load) runs on a worker of
    its own: when it shared the two analysis workers, a 12,000-file repository held both at
    start-up (the walk, then the index load opened fixture ``b.json`` asked for), and a suite
    opened then was published only when they ended (0.95 s; its own analysis took 30 ms)."""
    client, _uri = await opened(tmp_path, {}, plants=("PLANTED_WALK_BLOCK",))  # the scan's walk waits
    try:
        root = tmp_path / "repo"
        suite = write_json(root / "evals" / "evals.json", UNKNOWN_SETUP_SUITE)
        text = suite.read_text("utf-8")
        document = {"uri": suite.as_uri(), "languageId": "json", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": document})
        codes = await published_codes(client, suite.as_uri())
        assert "setup-kind-invalid" in codes, codes
        held = (await client.request("evalfix/test/blocked", {}))["result"]
        assert held["walks done"] == 0, held  # published before the walk could end
        await client.request("evalfix/test/release", {})
    finally:
        await client.close()


UNKNOWN_SETUP_SUITE = {
    "skill_name": "demo",
    "evals": [{"id": "c1", "prompt": "p", "setup": {"kind": "planted"}, "assertions": ["it works"]}],
}


async def published_codes(client: RawClient, uri: str) -> list[str]:
    """The codes of the first diagnostics published for ``uri`` (requests from the server answered)."""
    while True:
        message = await client.receive()
        if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
            return [item["code"] for item in message["params"]["diagnostics"]]
        if "id" in message and "method" in message:
            client.send({"id": message["id"], "result": None})
