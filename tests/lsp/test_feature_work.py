"""Features that read no findings cost the same whatever the findings (issue 19, point 3): after an
edit, symbols, folding, selection, hover, links, definition, inlay hints and code lenses are
answered for the new text without an analysis running for it. Work is counted (the probe server
counts analysis jobs, see ``probe_server.py``), not timed; the diagnostic pull at the end shows the
count moves when an analysis does run."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsp_support import RawClient, make_repo, noisy_suite, write_json
from test_memory import PULL_CAPABILITIES, open_doc, probe, state

FEATURES = [
    ("textDocument/documentSymbol", {}),
    ("textDocument/foldingRange", {}),
    ("textDocument/documentLink", {}),
    ("textDocument/codeLens", {}),
    (
        "textDocument/inlayHint",
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}},
    ),
]


async def answer(client: RawClient, method: str, params: dict[str, Any]) -> Any:
    response = await client.request(method, params)
    assert "result" in response, (method, response)
    return response["result"]


@asynccontextmanager
async def analyzed_suite(
    tmp_path: Path, suite: dict[str, Any] | None = None, capabilities: dict[str, Any] = PULL_CAPABILITIES
) -> AsyncIterator[tuple[RawClient, str, str]]:
    """The probe server with a noisy suite open and pulled once: ``(client, uri, text)``."""
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", suite or noisy_suite(30))
    text = path.read_text(encoding="utf-8")
    client = await probe(root, capabilities)
    try:
        open_doc(client, path.as_uri(), text)
        pulled = await answer(client, "textDocument/diagnostic", {"textDocument": {"uri": path.as_uri()}})
        assert len(pulled["items"]) >= 30  # a suite full of findings
        yield client, path.as_uri(), text
    finally:
        await client.close()


def change(client: RawClient, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
    edit = {"range": {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}}
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [edit | {"text": text}]},
    )


async def test_features_after_an_edit_run_no_analysis(tmp_path: Path) -> None:
    async with analyzed_suite(tmp_path) as (client, uri, text):
        document = {"textDocument": {"uri": uri}}
        before = (await state(client))["jobs run"]
        line = text.splitlines().index(next(ln for ln in text.splitlines() if '"case-7"' in ln))
        at = text.splitlines()[line].index("case-7") + len("case-7")
        change(client, uri, 2, line, at, at, "x")
        symbols = await answer(client, "textDocument/documentSymbol", document)
        assert "case-7x" in json.dumps(symbols, ensure_ascii=False)  # the new text's tree
        for method, extra in FEATURES[1:]:
            await answer(client, method, document | extra)
        position = {"line": line, "character": at - 2}
        await answer(client, "textDocument/hover", document | {"position": position})
        await answer(client, "textDocument/definition", document | {"position": position})
        id_position = {"line": line, "character": at - 1}
        highlights = await answer(
            client, "textDocument/documentHighlight", document | {"position": id_position}
        )
        assert len(highlights) == 1  # the edited id, found in the new text's tree
        selection = {"positions": [position]}
        assert await answer(client, "textDocument/selectionRange", document | selection)
        assert (await state(client))["jobs run"] == before  # none of them analysed the new text
        await answer(client, "textDocument/diagnostic", document)
        assert (await state(client))["jobs run"] == before + 1  # the pull does


async def test_hover_and_completion_after_an_edit_build_no_whole_text(tmp_path: Path) -> None:
    """They read the tree around the cursor: the new version's whole ``str`` (2 MB copied on a
    worker, or waited for while another builds it) is not built for them."""
    async with analyzed_suite(tmp_path) as (client, uri, text):
        document = {"textDocument": {"uri": uri}}
        lines = text.splitlines()
        line = next(i for i, ln in enumerate(lines) if '"prompt"' in ln)
        change(client, uri, 2, line + 1, 0, 0, " ")
        before = (await state(client))["texts built"]
        position = {"line": line, "character": lines[line].index('"prompt"') + 3}
        hovered = await answer(client, "textDocument/hover", document | {"position": position})
        assert "prompt" in json.dumps(hovered)  # the member's documentation
        await answer(client, "textDocument/completion", document | {"position": position})
        assert (await state(client))["texts built"] == before
        await answer(client, "textDocument/documentSymbol", document)
        assert (await state(client))["texts built"] == before + 1  # symbols do build it


async def test_a_pull_and_a_feature_read_the_edits_since_the_last_result_once(tmp_path: Path) -> None:
    """Whether the last result's text is the new one and which span changed are one question:
    a pull asked it three times (reuse check, job, re-parse), a feature's quick tree twice."""
    async with analyzed_suite(tmp_path) as (client, uri, text):
        document = {"textDocument": {"uri": uri}}
        lines = text.splitlines()
        line = next(i for i, ln in enumerate(lines) if '"case-7"' in ln)
        at = lines[line].index("case-7") + len("case-")
        # The same length (a character replaced): the text might be the same, the log decides.
        for version, letter in ((2, "8"), (3, "9")):
            change(client, uri, version, line, at, at + 1, letter)
            before = (await state(client))["edit reads"]
            await answer(client, "textDocument/documentSymbol", document)  # from the analysed tree
            assert (await state(client))["edit reads"] == before + 1
            before = (await state(client))["edit reads"]
            await answer(client, "textDocument/diagnostic", document)
            assert (await state(client))["edit reads"] == before + 1


async def test_a_hover_read_with_document_wide_requests_reaches_its_worker_first(tmp_path: Path) -> None:
    """A keystroke's requests arrive together: the hover behind symbols and folding does not wait
    for their contexts (built on the loop) before its own is built and handed to a worker."""
    async with analyzed_suite(tmp_path) as (client, uri, text):
        document = {"textDocument": {"uri": uri}}
        line = next(i for i, ln in enumerate(text.splitlines()) if '"prompt"' in ln)
        hover = document | {"position": {"line": line, "character": 8}}
        batch = [
            (901, "textDocument/documentSymbol", document),
            (902, "textDocument/foldingRange", document),
            (903, "textDocument/hover", hover),
        ]
        data = b""
        for msg_id, method, params in batch:  # one write: the server reads them in one chunk
            body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
            data += b"Content-Length: %d\r\n\r\n" % len(body) + body
        client.send_raw(data)
        answered = {(await client.next_response())["id"] for _ in batch}
        assert answered == {901, 902, 903}
        assert (await state(client))["request lanes"][-3:] == ["point", "document", "document"]


async def test_whether_fix_all_has_work_is_decided_once_per_analysis(tmp_path: Path) -> None:
    """Offering fix-all asks the fixers of the findings until one has a safe fix; a suite still
    being written has thousands and none safe. The second request on the same analysis asks
    none of them again."""
    suite = noisy_suite(30)
    for case in suite["evals"]:  # sources as objects: no finding left with a safe fix
        case["setup"]["sources"] = [{"from": source} for source in case["setup"]["sources"]]
    async with analyzed_suite(tmp_path, suite) as (client, uri, _text):
        source = {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source"], "triggerKind": 1},
        }
        counts = []
        for _ in range(2):
            before = (await state(client))["fixes asked"]
            await answer(client, "textDocument/codeAction", source)
            counts.append((await state(client))["fixes asked"] - before)
        assert counts[0] >= 30 and counts[1] == 0


async def test_a_keystroke_s_document_wide_requests_build_no_moved_case(tmp_path: Path) -> None:
    """Issue 19f: after a keystroke, symbols, folding, links, lenses and hints read the cases the
    edit moved through the nodes they were moved from, and symbols and links take each unchanged
    case's result of the previous request back: the work is the edited case's, not the suite's.
    A cursor move off an id (documentHighlight) reads the case under the cursor only."""
    suite = noisy_suite(200)  # (larger than what a local re-parse re-reads whole)
    async with analyzed_suite(tmp_path, suite) as (client, uri, text):
        document = {"textDocument": {"uri": uri}}
        lines = text.splitlines()
        line = next(i for i, ln in enumerate(lines) if '"case-7"' in ln)
        at = lines[line].index("case-7") + len("case-7")
        cases = len(suite["evals"])
        for version in (2, 3):  # the first keystroke's requests fill the memos
            change(client, uri, version, line, at, at, "x")
            before = await state(client)
            for method, extra in FEATURES:
                await answer(client, method, document | extra)
            after = await state(client)
        memos = {name: after["case memos"][uri][name] for name in ("symbols", "links")}
        assert after["nodes built"] == before["nodes built"]
        for name, counts in memos.items():
            was = before["case memos"][uri][name]
            assert counts["computed"] - was["computed"] <= 1, name  # the edited case
            assert counts["reused"] - was["reused"] >= cases - 1, name
        prompt = max(i for i, ln in enumerate(lines) if '"prompt"' in ln)  # in the last case
        cursor = document | {"position": {"line": prompt, "character": 8}}
        before = await state(client)
        assert await answer(client, "textDocument/documentHighlight", cursor) == []
        after = await state(client)
        assert after["nodes built"] - before["nodes built"] <= 2  # the case under the cursor
        assert after["request lanes"][-1] == "point"


@pytest.mark.parametrize("hierarchical", [True, False])
async def test_a_keystroke_s_symbols_write_the_edited_case_only(tmp_path: Path, hierarchical: bool) -> None:
    """Typing within a line moves no case to another line or column: the JSON of every other
    case's symbol and code lens is the previous answer's. The answers equal those of the same text opened
    afresh, after keystrokes that add lines too (every later case moved down)."""
    symbols = {"hierarchicalDocumentSymbolSupport": hierarchical}
    capabilities = PULL_CAPABILITIES | {"textDocument": {"diagnostic": {}, "documentSymbol": symbols}}
    async with analyzed_suite(tmp_path, noisy_suite(200), capabilities) as (client, uri, text):
        document = {"textDocument": {"uri": uri}}
        lines = text.splitlines()
        line = next(i for i, ln in enumerate(lines) if '"case-7"' in ln)
        at = lines[line].index("case-7") + len("case-7")
        await answer(client, "textDocument/documentSymbol", document)
        await answer(client, "textDocument/codeLens", document)
        change(client, uri, 2, line, at, at, "😀")
        before = await state(client)
        await answer(client, "textDocument/documentSymbol", document)
        await answer(client, "textDocument/codeLens", document)
        after = await state(client)
        assert after["cases written"] - before["cases written"] == 1  # case-7😀
        assert after["lenses written"] - before["lenses written"] == 1  # ▶ run case-7😀 alone
        change(client, uri, 3, line + 1, 0, 0, "\n\t写\n")  # (blank lines are JSON whitespace)
        change(client, uri, 4, line, at, at, "é")
        typed = await answer(client, "textDocument/documentSymbol", document)
        folded = await answer(client, "textDocument/foldingRange", document)
        lensed = await answer(client, "textDocument/codeLens", document)
        edited = lines[: line + 1] + ["", "\t写"] + lines[line + 1 :]
        edited[line] = edited[line][:at] + "é😀" + edited[line][at:]
        client.notify("textDocument/didClose", document)
        open_doc(client, uri, "\n".join(edited) + "\n")
        assert await answer(client, "textDocument/documentSymbol", document) == typed
        assert await answer(client, "textDocument/foldingRange", document) == folded
        assert await answer(client, "textDocument/codeLens", document) == lensed
