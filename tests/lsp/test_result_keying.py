"""A reused version number never gets the answer of another text (issue 14): v5 inserts a case,
a pull is sent, v4 reverts it, a second v5 adds a key; the pull for the second v5 must show the
second v5's findings. The real server over stdio, with the probe server's slow analysis so that
the first analysis is still running when the second v5 arrives (the test waits for the log line
saying it started, not for a time)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_support import Session, codes, make_repo, make_session, server_fixture, wait_until, write_json
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

PROBE_SERVER = [sys.executable, str(Path(__file__).with_name("probe_server.py"))]


probe_client = server_fixture("probe_client", PROBE_SERVER, ["vscode-pull", "vscode-push"])


def change_to(session: Session, uri: str, version: int, text: str) -> None:
    """A full-text change with an explicit version (the client reuses numbers here)."""
    session.versions[uri] = version
    session.texts[uri] = text
    session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


SERVER_CANCELLED = -32802


async def test_a_reused_version_gets_the_findings_of_its_own_text(
    probe_client: LanguageClient, request: Any, tmp_path: Path
) -> None:
    session = make_session(probe_client, request.node.callspec.params["probe_client"])
    root = make_repo(tmp_path / "repo")
    base = {"skill_name": "demo", "evals": [{"id": "one", "prompt": "写 🎉"}]}
    path = write_json(root / "evals" / "evals.json", base)
    await session.initialize([root])
    uri = session.open(path)
    v4 = session.texts[uri]
    await session.diagnostics(uri)

    inserted = dict(base, evals=[*base["evals"], {"id": "two", "prompt": "PLANTED_SLOW_ANALYSIS"}])
    change_to(session, uri, 5, json.dumps(inserted, ensure_ascii=False, indent=2))
    first_pull = asyncio.ensure_future(session.pull_document(uri)) if session.pull else None
    await wait_until(
        lambda: any("slow analysis started" in m.message for m in session.client.log_messages),
        "the first v5's analysis to start",
    )
    change_to(session, uri, 4, v4)
    second = dict(base, evals=[{"id": "one", "prompt": "写 🎉", "no_such_key": 1}])
    change_to(session, uri, 5, json.dumps(second, ensure_ascii=False, indent=2))
    expected = "key-ignored"  # only the second v5 has it

    if first_pull is not None:
        second_pull = await session.pull_document(uri)
        assert expected in codes(second_pull.items), codes(second_pull.items)
        # asked for the first v5; the client asked again on a newer text before its answer: it is
        # superseded (requests.Supersession), never answered with the first v5's findings
        with pytest.raises(JsonRpcException) as superseded:
            await first_pull
        assert superseded.value.code == SERVER_CANCELLED
        assert superseded.value.data == {"retriggerRequest": False}
    else:
        await session.diagnostics(uri, lambda d: expected in codes(d))
        labelled_v5 = [p for p in session.published[uri] if p.version == 5]
        assert all(expected in codes(p.diagnostics) for p in labelled_v5), [
            codes(p.diagnostics) for p in labelled_v5
        ]
