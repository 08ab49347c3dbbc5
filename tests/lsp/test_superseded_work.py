"""Work for versions a newer keystroke superseded is not done (issue 19, the recorded VS Code
traffic): an editor pulls diagnostics after every keystroke, and on a large suite an analysis
outlasts several keystrokes. Counted, not timed: the probe server counts analysis jobs and makes
an analysis of a text holding ``PLANTED_SLOW_ANALYSIS`` last a second (``probe_server.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_support import RawClient, make_repo, write_json
from test_memory import change, logged, open_doc, probe, state, suite

SERVER_CANCELLED = -32802


def pull(client: RawClient, request_id: int, uri: str) -> None:
    params = {"textDocument": {"uri": uri}}
    client.send({"id": request_id, "method": "textDocument/diagnostic", "params": params})


async def responses(client: RawClient, ids: set[int]) -> dict[int, dict[str, Any]]:
    """The responses to the requests ``ids``, in whatever order they come."""
    found: dict[int, dict[str, Any]] = {}
    while len(found) < len(ids):
        message = await client.receive()
        if "method" in message and "id" in message:
            client.send({"id": message["id"], "result": None})
        elif "method" in message:
            client.notifications.append(message)
        elif message.get("id") in ids:
            found[message["id"]] = message
    return found


async def slow_suite_opened(tmp_path: Path) -> tuple[RawClient, str]:
    """A probe server with a suite open whose analysis lasts a second (``PLANTED_SLOW_ANALYSIS``)."""
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", suite(50, marker="PLANTED_SLOW_ANALYSIS"))
    client = await probe(root)
    open_doc(client, path.as_uri(), path.read_text(encoding="utf-8"))
    return client, path.as_uri()


async def test_pulls_sent_while_an_analysis_runs_share_one_analysis_of_the_last_text(tmp_path: Path) -> None:
    """Each keystroke's pull used to start an analysis of its own text at once: they queued
    behind the running one and every one of them ran, for texts already outdated (at 10 MB the
    pulls were answered a minute late). Now they wait for the running analysis, then share one of
    the text current by then; and since the client asked again on a newer text, only the last
    pull gets the report, the earlier ones ``ServerCancelled`` without ``retriggerRequest``
    (``supersession.Supersession``: at 2 MB each report is 900 KB of JSON the client parses in order)."""
    client, uri = await slow_suite_opened(tmp_path)
    try:
        before = (await state(client))["jobs run"]
        pull(client, 1001, uri)
        await logged(client, "slow analysis started", 1)  # version 1 is being analysed
        for version in range(2, 6):  # keystrokes, each followed by its pull, while it runs
            text = json.dumps(suite(50, marker=f"PLANTED_SLOW_ANALYSIS {version}"), ensure_ascii=False)
            change(client, uri, version, text)
            pull(client, 1000 + version, uri)
            await state(client)  # a round trip: the pull has asked for its analysis meanwhile
        answers = await responses(client, {1001, 1002, 1003, 1004, 1005})
        # the last pull answered with the findings of the last text
        assert answers[1005]["result"]["items"], answers[1005]  # a suite with findings: a full report
        # the earlier ones, superseded, with no report of their own and no call to pull again
        for request_id in (1001, 1002, 1003, 1004):
            error = answers[request_id].get("error")
            assert error is not None, answers[request_id]
            assert error["code"] == SERVER_CANCELLED and error["data"] == {"retriggerRequest": False}
        assert (await state(client))["jobs run"] == before + 2  # version 1, then version 5 only
    finally:
        await client.close()


async def test_an_analysis_typed_over_is_the_base_of_the_next(tmp_path: Path) -> None:
    """Work counted: an analysis that ends after its text changed is no answer, but the next
    analysis re-parses from its tree (and reuses its cases) instead of parsing the whole text
    again. At 10 MB under load every analysis outlasted the keystrokes; dropped, none was ever
    stored, and each one after was a full parse and a re-check of every case (the recorded
    replay: 13-40 s each, 2 GB)."""
    client, uri = await slow_suite_opened(tmp_path)
    try:
        before = await state(client)
        pull(client, 2001, uri)
        await logged(client, "slow analysis started", 1)  # version 1 is being analysed
        text = json.dumps(suite(50, marker="PLANTED_SLOW_ANALYSIS 2"), ensure_ascii=False)
        change(client, uri, 2, text)  # typed over while it runs
        pull(client, 2002, uri)
        answers = await responses(client, {2001, 2002})
        assert answers[2002]["result"]["items"]
        after = await state(client)
        assert after["jobs run"] == before["jobs run"] + 2
        assert after["jobs re-parsing"] == before["jobs re-parsing"] + 1  # version 2 from version 1
    finally:
        await client.close()


async def test_symbols_are_answered_from_an_analysis_typed_over_without_waiting(tmp_path: Path) -> None:
    """A document-wide feature reads a quick tree (a local re-parse of the newest analysed tree);
    typing into a 10 MB suite every analysis ended after the next keystroke, so none was current
    and, with only current results as bases, every symbols request waited for a whole analysis
    (the recorded replay's p95s). The analysis typed over is a base too: while the next one runs,
    the symbols of the current text are answered at once."""
    client, uri = await slow_suite_opened(tmp_path)
    try:
        pull(client, 3001, uri)
        await logged(client, "slow analysis started", 1)  # version 1 is being analysed
        text = (tmp_path / "repo" / "evals" / "evals.json").read_text(encoding="utf-8")
        change(client, uri, 2, text.replace('"case-3"', '"case-three"'))  # typed over while it runs
        await logged(client, "slow analysis started", 2)  # version 1 ended late; version 2 runs
        client.send(
            {"id": 3002, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri}}}
        )
        symbols = (await responses(client, {3002}))[3002]
        assert "case-three" in json.dumps(symbols["result"])  # the current text's
        assert uri in (await state(client))["per_uri"]["inflight"]  # answered while version 2 ran
        assert "result" in (await responses(client, {3001}))[3001]
    finally:
        await client.close()
