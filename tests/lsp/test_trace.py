"""The debug trace of each request (``EVALFIX_LS_TRACE``, ``lsp/jsonrpc/trace.py``): every step of
a request's way through the server, in order, with its id, so that what a slow answer waited for
can be read afterwards (issue 19: the hover while typing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsp_support import RawClient, make_repo, write_json

# (asked right after the open: no tree yet, so it waits for the analysis)
STEPS = [
    "received",
    "handler",
    "no quick tree",
    "waits",
    "context",
    "queued",
    "started",
    "done",
    "answered",
    "writing",
]


async def test_each_step_of_a_request_is_traced_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("EVALFIX_LS_TRACE", str(trace))
    root = make_repo(tmp_path / "repo")
    path = write_json(
        root / "evals" / "evals.json", {"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]}
    )
    client = await RawClient.start()
    try:
        params = {"processId": None, "capabilities": {}, "rootUri": root.as_uri()}
        await client.request("initialize", params)
        client.notify("initialized", {})
        text = path.read_text(encoding="utf-8")
        document = {"uri": path.as_uri(), "languageId": "json", "version": 1, "text": text}
        client.notify("textDocument/didOpen", {"textDocument": document})
        symbols = await client.request(
            "textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}
        )
        assert symbols.get("result")
    finally:
        await client.close()
    steps = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    ids = [step["id"] for step in steps if step.get("method") == "textDocument/documentSymbol"]
    assert len(ids) == 1
    mine = [step for step in steps if step["id"] == ids[0]]
    assert [step["step"] for step in mine] == STEPS
    assert mine[2]["why"] == ["no tree yet"] and mine[3]["what"] == "parsed tree"
    assert [step["t"] for step in mine] == sorted(step["t"] for step in mine)
    done = next(step for step in mine if step["step"] == "done")
    assert 0 <= done["cpu"] <= done["t"] - next(s["t"] for s in mine if s["step"] == "started")
