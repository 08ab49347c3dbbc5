"""Memory that is given back (issue 14): cancelled and superseded analyses release what they hold,
a closed document leaves nothing in the server's own structures, and open/close cycles do not
accumulate. Checked on the server's structures and on how many analyses are still alive (the
probe server marks each one; see ``probe_server.py``), not on RSS, which is noisy."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsp_support import TIMEOUT, RawClient, make_repo, write_json

PROBE_SERVER = [sys.executable, str(Path(__file__).with_name("probe_server.py"))]
PULL_CAPABILITIES = {
    "textDocument": {"diagnostic": {"dynamicRegistration": False}},
    # with file events, results do not expire (without them the disk is re-checked after a while)
    "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
}


def suite(cases: int, marker: str = "") -> dict[str, Any]:
    return {
        "skill_name": "demo",
        "evals": [
            {"id": f"case-{n}", "prompt": f"写一个测试 🎉 {marker} {n}", "setup": {"kind": "Empty"}}
            for n in range(cases)
        ],
    }


async def probe(root: Path, capabilities: dict[str, Any] = PULL_CAPABILITIES) -> RawClient:
    client = await RawClient.start(*PROBE_SERVER)
    params = {
        "processId": None,
        "capabilities": capabilities,
        "workspaceFolders": [{"uri": root.as_uri(), "name": "repo"}],
    }
    assert "result" in await client.request("initialize", params)
    client.notify("initialized", {})
    return client


async def state(client: RawClient) -> dict[str, Any]:
    answer = await client.request("evalfix/test/state", {})
    assert "result" in answer, f"{answer}\nthe server's log:\n{client.server_log()}"  # it says why
    return answer["result"]


async def settled(client: RawClient, alive: int) -> dict[str, Any]:
    """The server's state once nothing per document is left and ``alive`` analyses remain (or
    the last state seen when that does not happen in time)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        current = await state(client)
        empty = not any(current["per_uri"].values())
        if (empty and current["alive analyses"] <= alive) or asyncio.get_running_loop().time() > deadline:
            return current
        await asyncio.sleep(0.1)


def open_doc(client: RawClient, uri: str, text: str) -> None:
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}},
    )


def change(client: RawClient, uri: str, version: int, text: str) -> None:
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )


async def logged(client: RawClient, text: str, count: int) -> None:
    """Read until ``count`` log messages holding ``text`` have arrived."""

    def seen() -> int:
        return sum(text in n.get("params", {}).get("message", "") for n in client.notifications)

    while seen() < count:
        message = await client.receive()
        if "method" in message and "id" in message:
            client.send({"id": message["id"], "result": None})
        elif "method" in message:
            client.notifications.append(message)


async def test_cancelled_pulls_and_a_closed_document_leave_nothing_behind(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", suite(400))
    client = await probe(root)
    try:
        uri = path.as_uri()
        open_doc(client, uri, path.read_text(encoding="utf-8"))
        for version in range(2, 6):  # typing never stops: each pull is cancelled while it runs
            text = json.dumps(suite(400, marker=f"PLANTED_SLOW_ANALYSIS {version}"), ensure_ascii=False)
            change(client, uri, version, text)
            client.send(
                {
                    "id": 1000 + version,
                    "method": "textDocument/diagnostic",
                    "params": {"textDocument": {"uri": uri}},
                }
            )
            await logged(client, "slow analysis started", version - 1)
            client.notify("$/cancelRequest", {"id": 1000 + version})
        change(client, uri, 6, json.dumps(suite(400, marker="last"), ensure_ascii=False))
        final = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        assert final["result"]["items"]
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        after = await settled(client, alive=0)
        assert not any(after["per_uri"].values()), after
        assert after["alive analyses"] == 0, after
        assert after["tasks"] == 0 and not after["request futures"], after
        # the per-document tables gave their hash tables back (made while the suite was open,
        # they kept one of its pymalloc arenas after close; issue 19, point 5)
        assert after["table bytes"] == 0, after
    finally:
        await client.close()


async def test_the_sync_a_close_schedules_keeps_no_task_once_it_ran(tmp_path: Path) -> None:
    """Closing a suite of ``skills/**/evals/`` schedules its repository's sync (the file is back
    to its disk text); once the sync ran, its task (with its coroutine, context and name) is not
    kept until the next edit: kept, it pinned an arena through the idle period (issue 19, point 5)."""
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "skills" / "demo" / "evals" / "evals.json", suite(20))
    client = await probe(root)
    try:
        uri = path.as_uri()
        open_doc(client, uri, path.read_text(encoding="utf-8"))
        assert (await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}))["result"]
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        await settled(client, alive=0)
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while (current := await state(client))["tasks"] and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)  # the sync's debounce, then the sync itself
        assert current["tasks"] == 0 and current["sync tasks held"] == 0, current
    finally:
        await client.close()


async def test_an_analysis_whose_pull_was_cancelled_is_kept_not_run_again(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", suite(50, marker="PLANTED_SLOW_ANALYSIS"))
    client = await probe(root)
    try:
        uri = path.as_uri()
        open_doc(client, uri, path.read_text(encoding="utf-8"))
        client.send(
            {"id": 900, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": uri}}}
        )
        await logged(client, "slow analysis started", 1)
        client.notify("$/cancelRequest", {"id": 900})
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while uri not in (current := await state(client))["per_uri"]["results"]:
            assert asyncio.get_running_loop().time() < deadline, f"the analysis was thrown away: {current}"
            await asyncio.sleep(0.1)
        answer = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        assert answer["result"]["items"]
        assert (await state(client))["jobs run"] == current["jobs run"]  # answered from it
    finally:
        await client.close()


async def edit_close_cycles(client: RawClient, root: Path, names: range) -> None:
    for n in names:
        path = write_json(root / "skills" / f"s{n}" / "evals" / "evals.json", suite(20))
        uri = path.as_uri()
        open_doc(client, uri, path.read_text(encoding="utf-8"))
        change(client, uri, 2, json.dumps(suite(21), ensure_ascii=False))
        assert "result" in await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


async def after_idle_collection(client: RawClient, before: int) -> dict[str, Any]:
    """The state once the server has had an idle collection after the ``before``-th."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while (current := await state(client))["idle collections"] <= before:
        assert asyncio.get_running_loop().time() < deadline, "no idle collection"
        await asyncio.sleep(0.2)
    return current


async def test_open_edit_close_cycles_reach_a_plateau(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    client = await probe(root)
    try:
        # The same ten documents over and over (new files would add workspace-index entries).
        await edit_close_cycles(client, root, range(10))  # warm-up: imports, caches, the index
        first = await after_idle_collection(client, (await state(client))["idle collections"])
        for _round in range(3):
            await edit_close_cycles(client, root, range(10))
        second = await after_idle_collection(client, first["idle collections"])
        assert not any(second["per_uri"].values()), second
        assert second["alive analyses"] == 0, second
        # Objects kept for good (frozen) stay as they were; cyclic garbage that was frozen
        # grew by ~300 objects per cycle.
        growth = (second["frozen objects"] - first["frozen objects"]) / 30
        assert growth < 10, (first["frozen objects"], second["frozen objects"])
    finally:
        await client.close()


WORKER_PREFIXES = (
    "evalfix-analysis",
    "evalfix-background",
    "evalfix-request",
    "evalfix-point",
    "evalfix-encode",
    "evalfix-gc-idle",
)


async def opened_and_pulled(client: RawClient, root: Path) -> str:
    """A suite opened and its diagnostics pulled (an analysis and a request on worker threads)."""
    path = write_json(root / "evals" / "evals.json", suite(50))
    uri = path.as_uri()
    open_doc(client, uri, path.read_text(encoding="utf-8"))
    assert "result" in await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    return uri


async def test_closing_a_document_is_followed_by_a_full_collection(tmp_path: Path) -> None:
    """The idle clean-up collects the frozen heap only when it is small, so the close (after which
    it is) must bring one on even when no job or request follows it (issue 19, point 5)."""
    root = make_repo(tmp_path / "repo")
    client = await probe(root)
    try:
        uri = await opened_and_pulled(client, root)
        before = await after_idle_collection(client, (await state(client))["idle collections"])
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        after = await after_idle_collection(client, before["idle collections"])
        assert after["full collections"] > before["full collections"], after
    finally:
        await client.close()


async def test_worker_threads_share_one_malloc_arena(tmp_path: Path) -> None:
    """Analyses and requests run on worker threads; glibc gives each new thread a malloc arena of
    its own by default, whose freed memory stayed with the process after close (issue 19, point 5)."""
    root = make_repo(tmp_path / "repo")
    client = await probe(root)
    try:
        await opened_and_pulled(client, root)
        heaps = (await state(client))["malloc heaps"]
        if heaps is None:
            pytest.skip("not glibc")
        assert heaps == 1
    finally:
        await client.close()


async def test_an_editing_session_builds_nothing_once_only_after_the_warm_up(tmp_path: Path) -> None:
    """What an editing session builds once for good (cattrs' function per message type for the
    messages read and the error answers written; the worker threads) is built at start-up or
    ``initialized``, before any document: built during the first large analysis, such objects kept
    its pymalloc arenas after close (issue 19, point 5)."""
    root = make_repo(tmp_path / "repo")
    client = await probe(root)
    try:
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while not (before := await state(client))["warmed up"]:
            assert asyncio.get_running_loop().time() < deadline, "no warm-up"
            await asyncio.sleep(0.05)
        uri = await opened_and_pulled(client, root)
        change(client, uri, 2, json.dumps(suite(51), ensure_ascii=False))
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 3},
                "contentChanges": [
                    {
                        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                        "text": " ",
                    }
                ],
            },
        )
        assert "result" in await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        unknown = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        assert "error" in unknown, unknown  # an error answer: closed
        after = await settled(client, alive=0)
        assert after["converter functions"] == before["converter functions"], (before, after)
        assert after["threads"] == before["threads"]
        # no ABC met a new concrete type (``isinstance`` of finding data), no module imported
        assert set(after["abc cache entries"]) == set(before["abc cache entries"]), set(
            after["abc cache entries"]
        ) - set(before["abc cache entries"])
        assert set(after["modules"]) == set(before["modules"]), set(after["modules"]) - set(before["modules"])
    finally:
        await client.close()


async def test_every_worker_thread_is_started_with_the_server(tmp_path: Path) -> None:
    """The worker threads (and the idle collector's) are started before any document (started
    during the first large analysis, their objects kept its pymalloc arenas after close)."""
    from evalfix_ls.lsp.scheduling.request_runner import DOCUMENT_WORKERS, POINT_WORKERS
    from evalfix_ls.lsp.server import ANALYSIS_WORKERS, BACKGROUND_WORKERS

    client = await probe(make_repo(tmp_path / "repo"))
    try:
        threads = (await state(client))["threads"]
        started = {prefix: sum(name.startswith(prefix) for name in threads) for prefix in WORKER_PREFIXES}
        assert started == {
            "evalfix-analysis": ANALYSIS_WORKERS,
            "evalfix-background": BACKGROUND_WORKERS,
            "evalfix-request": DOCUMENT_WORKERS,
            "evalfix-point": POINT_WORKERS,
            "evalfix-encode": 1,
            "evalfix-gc-idle": 1,
        }
    finally:
        await client.close()


REGEX_SUITE = {
    "skill_name": "demo",
    "evals": [
        {
            "id": f"case-{n}",
            "prompt": "p",
            "setup": {"kind": "Empty"},
            "assertions": [
                {
                    "type": "regex-match",
                    "pattern": f"^v{n}\\.0",
                    "flags": "m",
                    "target": {"file": "CHANGELOG.md"},
                }
            ],
        }
        for n in range(3)
    ],
}


async def test_closing_the_last_document_empties_the_caches_of_its_contents(tmp_path: Path) -> None:
    """The regex verdicts cached while typing (keyed by the document's patterns) are emptied once
    no document is open: made during its analyses, each entry kept one of their pymalloc arenas
    after close (issue 19, point 5). While a document is open, they stay."""
    root = make_repo(tmp_path / "repo")
    first = write_json(root / "evals" / "evals.json", REGEX_SUITE)
    second = write_json(root / "skills" / "other" / "evals" / "evals.json", REGEX_SUITE)
    client = await probe(root)
    try:
        for path in (first, second):
            open_doc(client, path.as_uri(), path.read_text(encoding="utf-8"))
            assert "result" in await client.request(
                "textDocument/diagnostic", {"textDocument": {"uri": path.as_uri()}}
            )
        write_json(root / "skills" / "closed" / "evals" / "evals.json", REGEX_SUITE)
        assert "result" in await client.request("workspace/diagnostic", {"previousResultIds": []})
        client.notify("textDocument/didClose", {"textDocument": {"uri": first.as_uri()}})
        one_open = await state(client)
        assert one_open["regex verdicts"] > 0, one_open
        assert one_open["collections at close"] == 0, one_open
        client.notify("textDocument/didClose", {"textDocument": {"uri": second.as_uri()}})
        none_open = await state(client)
        assert none_open["regex verdicts"] == 0, none_open
        assert one_open["uris remembered"] > 0 and none_open["uris remembered"] == 0, none_open
        # and the closed documents' cyclic garbage was collected then, before the next message
        assert none_open["collections at close"] == 1, none_open
        # and the empty pools of pymalloc's arenas given back by the idle pass that follows
        deadline = time.monotonic() + 30  # a bound only: the idle pass runs a second after the close
        while (await state(client))["pool trims"] <= none_open["pool trims"]:
            assert time.monotonic() < deadline, "no pool trim after the last close"
            await asyncio.sleep(0.05)
    finally:
        await client.close()


async def test_the_folders_state_is_built_before_any_document(tmp_path: Path) -> None:
    """The workspace folder's configuration and repository state are built at ``initialized``, so
    a document opened in it builds none: kept for good, they were built during the first
    document's analysis and held one of its pymalloc arenas after close (issue 19, point 5)."""
    root = make_repo(tmp_path / "repo")
    client = await probe(root)
    try:
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while not (before := await state(client))["caches"]["repositories"]:
            assert asyncio.get_running_loop().time() < deadline, f"no repository state: {before}"
            await asyncio.sleep(0.05)
        await opened_and_pulled(client, root)
        after = (await state(client))["caches"]
        assert (after["configs"], after["repositories"]) == (1, 1), after
        assert before["caches"]["configs"] == 1, before
    finally:
        await client.close()
