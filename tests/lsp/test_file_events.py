"""File events re-check only what they can change (issue 19, the recorded VS Code traffic): VS Code
sends ``workspace/didChangeWatchedFiles`` (Changed) for the open suite itself each time it is
saved, and that used to move the generation every per-case result is keyed by, so the next pull
re-checked every case of a 10 MB suite. Counted, not timed: the probe server counts the eval
cases checked afresh (``probe_server.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_support import RawClient, make_repo, write_json
from test_memory import open_doc, probe, state

CHANGED, CREATED, DELETED = 2, 1, 3


def suite_naming(source: str, cases: int) -> dict[str, Any]:
    """A suite whose first case seeds ``source`` (relative to ``evals/``), the others nothing."""
    seeded, empty = {"kind": "seeded", "sources": [source]}, {"kind": "empty"}
    return {
        "skill_name": "demo",
        "evals": [
            {"id": f"case-{n}", "prompt": f"写一个测试 🎉 {n}", "setup": seeded if n == 0 else empty}
            for n in range(cases)
        ],
    }


def file_events(client: RawClient, *changes: tuple[Path, int]) -> None:
    client.notify(
        "workspace/didChangeWatchedFiles",
        {"changes": [{"uri": path.as_uri(), "type": kind} for path, kind in changes]},
    )


async def pulled_codes(client: RawClient, uri: str) -> list[str]:
    answer = await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    return [item["code"] for item in answer["result"]["items"]]


async def cases_checked(client: RawClient) -> int:
    checked: int = (await state(client))["cases checked"]
    return checked


async def opened(client: RawClient, suite: Path) -> tuple[str, list[str]]:
    """Open ``suite``; its uri and the codes of its first pull."""
    uri = suite.as_uri()
    open_doc(client, uri, suite.read_text(encoding="utf-8"))
    return uri, await pulled_codes(client, uri)


def demo_repo(tmp_path: Path, cases: int) -> tuple[Path, Path]:
    root = make_repo(tmp_path / "repo")
    skill = root / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: d\n---\n# Demo\n", encoding="utf-8")
    (root / "README.md").write_text("# repo\n", encoding="utf-8")
    suite = write_json(skill / "evals" / "evals.json", suite_naming("files/input.txt", cases))
    return root, suite


async def test_saving_the_open_suite_or_an_unrelated_file_rechecks_no_case(tmp_path: Path) -> None:
    root, suite = demo_repo(tmp_path, cases=20)
    client = await probe(root)
    try:
        uri, codes = await opened(client, suite)
        assert "path-not-found" in codes
        checked = await cases_checked(client)
        assert checked >= 20

        suite.write_text(json.dumps(suite_naming("files/input.txt", 20)), encoding="utf-8")  # saved
        file_events(client, (suite, CHANGED))
        (root / "README.md").write_text("# repo, edited\n", encoding="utf-8")
        file_events(client, (root / "README.md", CHANGED))
        assert "path-not-found" in await pulled_codes(client, uri)
        assert await cases_checked(client) == checked  # every case answered from its cache
    finally:
        await client.close()


async def test_creating_and_deleting_a_named_file_updates_only_what_it_can(tmp_path: Path) -> None:
    root, suite = demo_repo(tmp_path, cases=5)
    named = suite.parent / "files" / "input.txt"
    client = await probe(root)
    try:
        uri, codes = await opened(client, suite)
        assert "path-not-found" in codes

        named.parent.mkdir()
        named.write_text("input\n", encoding="utf-8")
        file_events(client, (named, CREATED))
        assert "path-not-found" not in await pulled_codes(client, uri)

        named.write_text("input, edited\n", encoding="utf-8")  # its content is no fact of any rule
        checked = await cases_checked(client)
        file_events(client, (named, CHANGED))
        assert "path-not-found" not in await pulled_codes(client, uri)
        assert await cases_checked(client) == checked

        named.unlink()
        file_events(client, (named, DELETED))
        assert "path-not-found" in await pulled_codes(client, uri)
        assert await cases_checked(client) > checked
    finally:
        await client.close()


async def test_a_changed_skill_md_that_a_rule_read_is_read_again(tmp_path: Path) -> None:
    """SKILL.md's front matter is read (not only asked about): its change is a changed fact."""
    root, suite = demo_repo(tmp_path, cases=3)
    client = await probe(root)
    try:
        uri, before = await opened(client, suite)
        skill_md = root / "skills" / "demo" / "SKILL.md"
        skill_md.write_text("---\nname: other\ndescription: d\n---\n# Other\n", encoding="utf-8")
        file_events(client, (skill_md, CHANGED))
        after = await pulled_codes(client, uri)
        assert set(after) - set(before), (before, after)  # skill_name no longer matches
    finally:
        await client.close()


async def workspace_codes(client: RawClient, path: Path) -> list[str]:
    answer = await client.request("workspace/diagnostic", {"previousResultIds": []})
    reports = [r for r in answer["result"]["items"] if r["uri"] == path.as_uri()]
    return [item["code"] for report in reports for item in report.get("items", [])]


async def test_a_closed_suite_saved_on_disk_gets_the_findings_of_its_new_text(tmp_path: Path) -> None:
    """A closed file's result is computed from its text on disk: its own change event (no fact of
    any rule) still makes the workspace report read it again."""
    root = make_repo(tmp_path / "repo")
    suite = write_json(root / "evals" / "evals.json", suite_naming("files/input.txt", 2))
    client = await probe(root)
    try:
        assert "path-not-found" in await workspace_codes(client, suite)
        write_json(suite, {"skill_name": "demo", "evals": [{"id": "only", "prompt": "p"}]})
        file_events(client, (suite, CHANGED))
        assert "path-not-found" not in await workspace_codes(client, suite)
    finally:
        await client.close()
