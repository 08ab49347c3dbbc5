"""``workspace/symbol`` from what the start-up pass read (issue 30 point 3,
``lsp/features/symbol_index.py``): a client that declares workspace symbols has every suite's
case ids read once after ``initialized``, on the background worker; a request after that reads no
suite again, and the walk and index load a request needs never run on the event loop. Counted
(the probe server counts the suites read), never timed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_support import RawClient, make_repo, write_json
from test_index_deferred import BLOCKING_SERVER
from test_memory import PROBE_SERVER, PULL_CAPABILITIES, logged, probe, state

SYMBOL_CLIENT = {**PULL_CAPABILITIES, "workspace": {**PULL_CAPABILITIES["workspace"], "symbol": {}}}
SUITES = 12


def skills(root: Path, count: int = SUITES) -> Path:
    for n in range(count):
        suite = {
            "skill_name": f"skill-{n}",
            "evals": [{"id": f"case-{n}-{k}", "prompt": "p"} for k in range(3)],
        }
        write_json(root / "skills" / f"skill-{n}" / "evals" / "evals.json", suite)
        (root / "skills" / f"skill-{n}" / "SKILL.md").write_text("# skill\n", encoding="utf-8")
    return root


async def symbols(client: RawClient, query: str) -> list[dict[str, Any]]:
    answer = await client.request("workspace/symbol", {"query": query})
    assert "result" in answer, answer
    return answer["result"]


async def test_the_start_up_pass_reads_every_suite_once_and_a_request_reads_none(tmp_path: Path) -> None:
    client = await probe(skills(make_repo(tmp_path / "repo")), SYMBOL_CLIENT)
    try:
        await logged(client, "workspace symbols indexed: 12 suites", 1)
        assert (await state(client))["suites read for symbols"] == SUITES
        found = await symbols(client, "case-7-2")
        assert [symbol["name"] for symbol in found] == ["case-7-2"]
        assert found[0]["location"]["uri"].endswith("skills/skill-7/evals/evals.json")
        assert (await state(client))["suites read for symbols"] == SUITES  # answered from memory
    finally:
        await client.close()


async def test_a_suite_changed_on_disk_is_read_again_for_the_next_request(tmp_path: Path) -> None:
    root = skills(make_repo(tmp_path / "repo"))
    client = await probe(root, SYMBOL_CLIENT)
    try:
        await logged(client, "workspace symbols indexed", 1)
        path = root / "skills" / "skill-3" / "evals" / "evals.json"
        write_json(
            path, {"skill_name": "skill-3", "evals": [{"id": "renamed-case", "prompt": "a longer prompt"}]}
        )
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": path.as_uri(), "type": 2}]})
        assert [symbol["name"] for symbol in await symbols(client, "renamed")] == ["renamed-case"]
        assert (await state(client))["suites read for symbols"] == SUITES + 1
    finally:
        await client.close()


async def test_a_client_that_asks_for_no_workspace_symbols_gets_no_pass(tmp_path: Path) -> None:
    client = await probe(skills(make_repo(tmp_path / "repo")), PULL_CAPABILITIES)
    try:
        # (a round trip after ``initialized``: its listeners ran, a pass would have been started)
        await client.request("workspace/diagnostic", {"previousResultIds": []})
        assert (await state(client))["suites read for symbols"] == 0
        found = await symbols(client, "case-7-2")  # asked anyway: read on demand
        assert [symbol["name"] for symbol in found] == ["case-7-2"]
    finally:
        await client.close()


async def test_the_walk_a_request_needs_keeps_the_event_loop_free(tmp_path: Path) -> None:
    """The walk (held by ``blocking_server.py``'s ``PLANTED_WALK_BLOCK``) ran on the event loop for
    ``workspace/symbol``: every message waited behind it (~1 s at 12,000 files)."""
    root = skills(make_repo(tmp_path / "repo"))
    (root / "PLANTED_WALK_BLOCK").touch()
    client = await RawClient.start(*BLOCKING_SERVER)
    try:
        params = {"processId": None, "capabilities": {}, "rootUri": root.as_uri()}
        assert "result" in await client.request("initialize", params)
        client.notify("initialized", {})
        client.send({"id": "symbols", "method": "workspace/symbol", "params": {"query": "case"}})
        blocked = await client.request("evalfix/test/blocked", {})  # answered: the loop is free
        assert blocked["result"]["walks done"] == 0, blocked
        await client.request("evalfix/test/release", {})
        answer = await client.next_response()
        assert answer["id"] == "symbols" and len(answer["result"]) == SUITES * 3, json.dumps(answer)[:300]
    finally:
        await client.close()


async def test_a_client_that_never_accepts_the_progress_token_still_gets_its_symbols(tmp_path: Path) -> None:
    """The pass asks the client to create a progress token first; a client that never answers that
    request (or answers its server's requests one at a time, after its own) held the pass, and
    with it every ``workspace/symbol``, for good."""
    root = skills(make_repo(tmp_path / "repo"))
    capabilities = {**SYMBOL_CLIENT, "window": {"workDoneProgress": True}}
    client = await RawClient.start(*PROBE_SERVER)
    try:
        params = {"processId": None, "capabilities": capabilities, "rootUri": root.as_uri()}
        assert "result" in await client.request("initialize", params)
        client.notify("initialized", {})
        while True:  # until the pass asks for its token (never answered)
            message = await client.receive()
            if message.get("method") == "window/workDoneProgress/create":
                break
            if "method" in message and "id" in message:
                client.send({"id": message["id"], "result": None})
        client.send({"id": "symbols", "method": "workspace/symbol", "params": {"query": "case-7-2"}})
        answer = await client.next_response()
        assert answer["id"] == "symbols", answer
        assert [symbol["name"] for symbol in answer["result"]] == ["case-7-2"]
    finally:
        await client.close()
