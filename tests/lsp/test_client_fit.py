"""What the server sends depends on what the client said it can take, and on its settings."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_support import (
    SERVER,
    Session,
    capabilities_for,
    codes,
    make_repo,
    make_session,
    server_fixture,
    workflow_fixture,
    write_json,
)
from pytest_lsp import LanguageClient


async def test_no_related_information_for_a_client_without_support(
    push_session: Session, tmp_path: Path
) -> None:
    session = push_session
    root = make_repo(tmp_path)
    path = write_json(
        root / "skills" / "demo" / "evals" / "dup.json", workflow_fixture("demo", ["same", "same"])
    )
    caps = capabilities_for(session.profile)
    caps.text_document.publish_diagnostics.related_information = False
    await session.initialize([root], capabilities=caps)
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "duplicate_case_id" in codes(d))
    duplicate = next(d for d in items if d.code == "duplicate_case_id")
    assert duplicate.related_information is None
    # the same finding still names the first occurrence in its message
    assert "previous_source_file" in duplicate.message


async def _publishes_for_a_burst(session: Session, tmp_path: Path, debounce_ms: int) -> int:
    """Open a suite, type five characters 150 ms apart, wait for the last version's diagnostics;
    how many publishes carried one of the edited versions."""
    root = make_repo(tmp_path)
    path = root / "skills" / "demo" / "evals" / "evals.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]}', encoding="utf-8")
    await session.initialize([root], settings={"debounceMs": debounce_ms})
    uri = session.open(path)
    await session.diagnostics(uri)
    at = session.texts[uri].index('"p"') + 2
    for index, char in enumerate("hello"):
        session.edit(uri, at + index, at + index, char)
        await asyncio.sleep(0.15)
    await session.diagnostics(uri, timeout=15)
    edited = set(range(2, session.versions[uri] + 1))
    return sum(1 for params in session.published.get(uri, []) if params.version in edited)


lsp_vscode_push = server_fixture("lsp_vscode_push", SERVER, ["vscode-push"])


@pytest.fixture
def vscode_push(lsp_vscode_push: LanguageClient) -> Session:
    return make_session(lsp_vscode_push, "vscode-push")


async def test_a_long_debounce_publishes_a_burst_once(vscode_push: Session, tmp_path: Path) -> None:
    assert await _publishes_for_a_burst(vscode_push, tmp_path, 2000) == 1


async def test_no_debounce_publishes_while_typing(vscode_push: Session, tmp_path: Path) -> None:
    assert await _publishes_for_a_burst(vscode_push, tmp_path, 0) >= 3
