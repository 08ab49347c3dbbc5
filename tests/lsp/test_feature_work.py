"""Features that read no findings cost the same whatever the findings (issue 19, point 3): after an
edit, symbols, folding, selection, hover, links, definition, inlay hints and code lenses are
answered for the new text without an analysis running for it. Work is counted (the probe server
counts analysis jobs, see ``probe_server.py``), not timed; the diagnostic pull at the end shows the
count moves when an analysis does run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_support import RawClient, make_repo, noisy_suite, write_json
from test_memory import open_doc, probe, state

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


async def test_features_after_an_edit_run_no_analysis(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(30))
    text = path.read_text(encoding="utf-8")
    client = await probe(root)
    try:
        uri = path.as_uri()
        document = {"textDocument": {"uri": uri}}
        open_doc(client, uri, text)
        pulled = await answer(client, "textDocument/diagnostic", document)
        assert len(pulled["items"]) >= 30  # a suite full of findings
        before = (await state(client))["jobs run"]
        line = text.splitlines().index(next(ln for ln in text.splitlines() if '"case-7"' in ln))
        at = text.splitlines()[line].index("case-7") + len("case-7")
        edit = {
            "range": {"start": {"line": line, "character": at}, "end": {"line": line, "character": at}},
            "text": "x",
        }
        client.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]}
        )
        symbols = await answer(client, "textDocument/documentSymbol", document)
        assert "case-7x" in json.dumps(symbols, ensure_ascii=False)  # the new text's tree
        for method, extra in FEATURES[1:]:
            await answer(client, method, document | extra)
        position = {"line": line, "character": at - 2}
        await answer(client, "textDocument/hover", document | {"position": position})
        await answer(client, "textDocument/definition", document | {"position": position})
        selection = {"positions": [position]}
        assert await answer(client, "textDocument/selectionRange", document | selection)
        assert (await state(client))["jobs run"] == before  # none of them analysed the new text
        await answer(client, "textDocument/diagnostic", document)
        assert (await state(client))["jobs run"] == before + 1  # the pull does
    finally:
        await client.close()
