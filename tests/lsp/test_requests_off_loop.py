"""Feature requests run on workers, off the event loop (issue 19, point 1): a request blocked on
purpose (``blocking_server.py``) holds up neither a hover nor the document's changes, a cancelled
one is answered ``RequestCancelled`` and stops, one whose document changed meanwhile is answered
``ContentModified``. No timing: the blocked request ends when the test releases it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from lsp_support import TIMEOUT, RawClient, make_repo, write_json

BLOCKING_SERVER = [sys.executable, str(Path(__file__).with_name("blocking_server.py"))]
CAPABILITIES = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}}
REQUEST_CANCELLED, CONTENT_MODIFIED = -32800, -32801


async def started(tmp_path: Path, marker: str = "PLANTED_BLOCK") -> tuple[RawClient, str, str]:
    """The server with a suite open whose symbols (or with ``marker="PLANTED_HOVER_BLOCK"`` its
    hovers) block; (client, its uri, its text)."""
    root = make_repo(tmp_path)
    cases = [{"id": f"case-{n}", "prompt": f"{marker} 写 {n}"} for n in range(3)]
    path = write_json(root / "evals" / "evals.json", {"skill_name": "demo", "evals": cases})
    client = await RawClient.start(*BLOCKING_SERVER)
    params = {"processId": None, "capabilities": CAPABILITIES, "rootUri": root.as_uri()}
    assert "result" in await client.request("initialize", params)
    client.notify("initialized", {})
    text = path.read_text(encoding="utf-8")
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": path.as_uri(), "languageId": "json", "version": 1, "text": text}},
    )
    return client, path.as_uri(), text


async def blocked_state(client: RawClient) -> dict[str, Any]:
    return (await client.request("evalfix/test/blocked", {}))["result"]


async def until_state(client: RawClient, check: Any, what: str) -> dict[str, Any]:
    """Ask the server's state until ``check(state)``; each answer needs the event loop, so a loop
    held by the blocked request fails here."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        state = await blocked_state(client)
        if check(state):
            return state
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {state}")
        await asyncio.sleep(0.02)


def send_symbols(client: RawClient, msg_id: int, uri: str) -> None:
    client.send(
        {"id": msg_id, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri}}}
    )


async def responses(client: RawClient, ids: set[int]) -> dict[int, dict[str, Any]]:
    """Read until the responses to ``ids`` are in (in the order the server sent them)."""
    got: dict[int, dict[str, Any]] = {}
    while not ids <= set(got):
        message = await client.next_response()
        got[message.get("id")] = message
    return got


async def test_a_blocked_request_holds_up_neither_a_hover_nor_the_loop(tmp_path: Path) -> None:
    client, uri, text = await started(tmp_path)
    try:
        send_symbols(client, 1001, uri)
        await until_state(client, lambda s: s["waiting"] == 1, "the symbols request to block")
        line = text.splitlines().index(next(ln for ln in text.splitlines() if '"case-1"' in ln))
        hover = {"textDocument": {"uri": uri}, "position": {"line": line, "character": 12}}
        client.send({"id": 1002, "method": "textDocument/hover", "params": hover})
        first = await client.next_response()
        assert first["id"] == 1002 and "result" in first
        assert (await blocked_state(client))["waiting"] == 1  # still blocked: the hover did not wait
        client.send({"id": 1003, "method": "evalfix/test/release", "params": {}})
        got = await responses(client, {1001, 1003})
        assert "case-1" in json.dumps(got[1001]["result"])
    finally:
        await client.close()


async def test_a_cancelled_request_is_answered_and_stops(tmp_path: Path) -> None:
    client, uri, _text = await started(tmp_path)
    try:
        send_symbols(client, 2001, uri)
        await until_state(client, lambda s: s["waiting"] == 1, "the symbols request to block")
        client.notify("$/cancelRequest", {"id": 2001})
        answer = await client.next_response()  # answered while its worker is still blocked
        assert answer["id"] == 2001 and answer["error"]["code"] == REQUEST_CANCELLED
        await client.request("evalfix/test/release", {})
        state = await until_state(client, lambda s: s["outcomes"], "the cancelled worker to end")
        assert state["outcomes"] == ["RequestStopped"] and state["converted"] == 0
    finally:
        await client.close()


async def test_a_request_whose_document_changed_is_answered_content_modified(tmp_path: Path) -> None:
    client, uri, text = await started(tmp_path)
    try:
        send_symbols(client, 3001, uri)
        await until_state(client, lambda s: s["waiting"] == 1, "the symbols request to block")
        edited = text.replace("case-2", "case-two")
        change = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}
        client.notify("textDocument/didChange", change)
        client.send({"id": 3002, "method": "evalfix/test/release", "params": {}})
        got = await responses(client, {3001, 3002})
        assert got[3001]["error"]["code"] == CONTENT_MODIFIED
        assert (await blocked_state(client))["converted"] == 0
        send_symbols(client, 3003, uri)  # asked again on the new text: answered from it
        again = (await responses(client, {3003}))[3003]
        assert "case-two" in json.dumps(again["result"])
    finally:
        await client.close()


async def test_a_document_wide_request_gives_way_while_a_hover_is_answered(tmp_path: Path) -> None:
    """Typing into a large suite, each keystroke's symbols, folding, lenses … took the
    interpreter in turn with the hover sent with them (``point_first.PointFirst``): while a point
    request is being answered, a document-wide handler waits at its checkpoints."""
    client, uri, text = await started(tmp_path, marker="PLANTED_HOVER_BLOCK")
    try:
        line = text.splitlines().index(next(ln for ln in text.splitlines() if '"case-1"' in ln))
        hover = {"textDocument": {"uri": uri}, "position": {"line": line, "character": 12}}
        client.send({"id": 4001, "method": "textDocument/hover", "params": hover})
        await until_state(client, lambda s: s["waiting"] == 1, "the hover to block")
        send_symbols(client, 4002, uri)
        state = await until_state(client, lambda s: s["gave way"] >= 1, "the symbols to give way")
        assert state["converted"] == 0  # nothing of the symbols was done while the hover ran
        client.send({"id": 4003, "method": "evalfix/test/release", "params": {}})
        got = await responses(client, {4001, 4002, 4003})
        assert "result" in got[4001]
        assert "case-1" in json.dumps(got[4002]["result"])  # then answered in full
    finally:
        await client.close()


async def test_the_workspace_report_is_written_off_the_loop(tmp_path: Path) -> None:
    """pygls unstructured a ``workspace/diagnostic`` answer on the event loop: at 10 MB, 12,555
    diagnostics held it up to a second per answer (traced on the recorded VS Code replay) while
    every other request waited. Its JSON is written on a worker: a hover is answered while that
    writing is held on purpose."""
    client, uri, text = await started(tmp_path, marker="no block")
    try:
        client.send({"id": 5001, "method": "workspace/diagnostic", "params": {"previousResultIds": []}})
        await until_state(client, lambda s: s["waiting"] == 1, "the report's writing to block")
        line = text.splitlines().index(next(ln for ln in text.splitlines() if '"case-1"' in ln))
        hover = {"textDocument": {"uri": uri}, "position": {"line": line, "character": 12}}
        client.send({"id": 5002, "method": "textDocument/hover", "params": hover})
        first = await client.next_response()
        assert first["id"] == 5002 and "result" in first  # before the report
        client.send({"id": 5003, "method": "evalfix/test/release", "params": {}})
        got = await responses(client, {5001, 5003})
        assert any(item["uri"] == uri for item in got[5001]["result"]["items"])
    finally:
        await client.close()


async def rules_held(client: RawClient) -> bool:
    for _ in range(1000):
        if (await blocked_state(client))["rules waiting"] == 1:
            return True
    return False


async def test_symbols_of_a_just_opened_suite_wait_for_its_parse_not_its_rules(tmp_path: Path) -> None:
    """Opening a 10 MB suite, VS Code's symbols, folding, links … waited for the open's whole
    analysis (every rule, ~2 s) though they read only its tree: they are answered from the
    running analysis' tree as soon as it is parsed, while its rules are held here on purpose."""
    client, uri, _text = await started(tmp_path, marker="PLANTED_RULES_BLOCK")
    try:
        send_symbols(client, 6001, uri)
        folding = {"textDocument": {"uri": uri}}
        client.send({"id": 6002, "method": "textDocument/foldingRange", "params": folding})
        got = await responses(client, {6001, 6002})  # a server that waits for the rules hangs here
        assert "case-1" in json.dumps(got[6001]["result"])
        assert len(got[6002]["result"]) >= 3  # the root, the cases' array and its cases
        # the rules still run: the worker counts itself waiting just after it handed the tree
        # over, so the symbols' answer may come first (asked until it has counted)
        assert await rules_held(client)
        await client.request("evalfix/test/release", {})
        send_symbols(client, 6003, uri)  # the same answer once the analysis is done
        again = (await responses(client, {6003}))[6003]
        assert again["result"] == got[6001]["result"]
    finally:
        await client.close()
