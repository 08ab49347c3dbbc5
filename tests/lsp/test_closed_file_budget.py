"""Closed files' results are kept within a budget of diagnostics, not one per workspace file
(issue 33): a closed suite with more findings than the whole budget is analysed for a workspace
pull, answered in full, and not kept; a later pull from a client that has its findings is
answered "unchanged" from the two-int digest remembered of it, without analysing it again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_support import make_repo, write_json
from test_memory import probe, state, suite

from evalfix_ls.lsp.diagnostics.disk_results import DIAGNOSTICS_BUDGET


def many_keys(count: int) -> dict[str, Any]:
    """A suite whose ``count`` unknown top-level keys are a finding each."""
    return {
        "skill_name": "big",
        "evals": [{"id": "a", "prompt": "p"}],
        **{f"key{n}": n for n in range(count)},
    }


def by_uri(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["uri"]: item for item in answer["result"]["items"]}


async def test_a_closed_file_above_the_budget_is_answered_not_kept(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    big = write_json(root / "skills/big/evals/evals.json", many_keys(DIAGNOSTICS_BUDGET + 500)).as_uri()
    small = write_json(root / "skills/small/evals/evals.json", suite(3)).as_uri()
    client = await probe(root)
    try:
        first = by_uri(await client.request("workspace/diagnostic", {"previousResultIds": []}))
        assert len(first[big]["items"]) > DIAGNOSTICS_BUDGET and first[small]["kind"] == "full"
        held = await state(client)
        # Before issue 33 both were kept (2), the big one with every diagnostic.
        assert held["caches"]["disk results"] == 1
        assert held["caches"]["disk results as objects"] == 0  # kept as the JSON the reports write

        previous = [{"uri": uri, "value": item["resultId"]} for uri, item in first.items()]
        second = by_uri(await client.request("workspace/diagnostic", {"previousResultIds": previous}))
        assert {uri: item["kind"] for uri, item in second.items()} == {big: "unchanged", small: "unchanged"}
        assert second[big]["resultId"] == first[big]["resultId"]
        assert (await state(client))["jobs run"] == held["jobs run"]  # from the digest: no analysis

        # A client without those findings (no previous ids) gets them in full: analysed again.
        third = by_uri(await client.request("workspace/diagnostic", {"previousResultIds": []}))
        assert len(third[big]["items"]) == len(first[big]["items"])
        assert third[big]["resultId"] == first[big]["resultId"]  # the same findings, the same id
        assert (await state(client))["jobs run"] == held["jobs run"] + 1
    finally:
        await client.close()


async def test_a_workspace_pull_with_nothing_new_makes_no_uri_again(tmp_path: Path) -> None:
    """Each closed file's URI is made once (``documents.path_to_uri`` remembers it): a second
    ``workspace/diagnostic`` over 12,000 files made 24,000 (pygls quotes every part of a path,
    15 µs each): a third of its time when every report was unchanged."""
    root = make_repo(tmp_path / "repo")
    for n in range(6):
        write_json(root / f"skills/s{n}/evals/evals.json", suite(2))
    client = await probe(root)
    try:
        first = by_uri(await client.request("workspace/diagnostic", {"previousResultIds": []}))
        assert len(first) == 6
        made = (await state(client))["uris made"]
        previous = [{"uri": uri, "value": item["resultId"]} for uri, item in first.items()]
        second = by_uri(await client.request("workspace/diagnostic", {"previousResultIds": previous}))
        assert {item["kind"] for item in second.values()} == {"unchanged"}
        assert (await state(client))["uris made"] == made
    finally:
        await client.close()


async def test_a_large_workspace_answer_is_written_in_pieces(tmp_path: Path) -> None:
    """A ``workspace/diagnostic`` answer is written as the pieces it was encoded in
    (``jsonrpc.encoded.EncodedParts``, ``transport.Chunks``), never joined into one string and
    copied again to frame it: over 12,000 files the answer is 39 MB, and its copies took the
    server's peak from 227 to 360 MB. The client reads one well-formed message all the same."""
    root = make_repo(tmp_path / "repo")
    files = 1100  # three pieces of at most 512 reports
    for n in range(files):
        write_json(root / f"skills/s{n}/evals/evals.json", suite(2))
    client = await probe(root)
    try:
        answer = await client.request("workspace/diagnostic", {"previousResultIds": []})
        items = answer["result"]["items"]
        assert len(items) == files and {item["kind"] for item in items} == {"full"}
        assert all(item["items"] for item in items)
        size = len(json.dumps(answer))
        assert (await state(client))["largest write"] < size / 2, size
    finally:
        await client.close()


async def test_closed_files_are_not_worked_out_again_while_nothing_they_depend_on_changed(
    tmp_path: Path,
) -> None:
    """VS Code holds a ``workspace/diagnostic`` that every keystroke wakes: its closed files'
    items (12,000 in a monorepo) were worked out again each time. They are reused while nothing
    they depend on changed, and worked out again once a closed file changes on disk."""
    root = make_repo(tmp_path / "repo")
    paths = [write_json(root / f"skills/s{n}/evals/evals.json", suite(2)) for n in range(5)]
    client = await probe(root)
    try:
        first = by_uri(await client.request("workspace/diagnostic", {"previousResultIds": []}))
        previous = [{"uri": uri, "value": item["resultId"]} for uri, item in first.items()]
        again = {"previousResultIds": previous}
        assert {
            item["kind"] for item in by_uri(await client.request("workspace/diagnostic", again)).values()
        } == {"unchanged"}
        checked = (await state(client))["closed keys"]
        third = by_uri(await client.request("workspace/diagnostic", again))
        assert {item["kind"] for item in third.values()} == {"unchanged"}
        assert (await state(client))["closed keys"] == checked  # reused: no key looked up

        write_json(paths[2], suite(3))  # one more case: one more finding
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": paths[2].as_uri(), "type": 2}]})
        fourth = by_uri(await client.request("workspace/diagnostic", again))
        assert fourth[paths[2].as_uri()]["kind"] == "full"
        assert len(fourth[paths[2].as_uri()]["items"]) > len(first[paths[2].as_uri()]["items"])
        assert {item["kind"] for uri, item in fourth.items() if uri != paths[2].as_uri()} == {"unchanged"}
    finally:
        await client.close()
