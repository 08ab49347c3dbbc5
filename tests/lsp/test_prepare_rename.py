"""``textDocument/prepareRename`` over the real server, for every client profile: a case id is
offered with its exact range (CJK, negotiated encoding); everywhere else the refusal says why and
what to do instead — a path is renamed by moving its file, an unchecked file has nothing to
rename."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_moves_workspace import FIXTURE, SUITE, cited_paths_repo, write_json
from lsp_support import Session, lsp_range
from lsprotocol import types


async def prepare(session: Session, uri: str, offset: int) -> types.PrepareRenamePlaceholder:
    await session.diagnostics(uri)  # analysed
    position = lsp_range(session.texts[uri], offset, offset, session.encoding).start
    return await session.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )


async def test_prepare_rename_offers_case_ids_and_explains_every_refusal(
    session: Session, tmp_path: Path
) -> None:
    root = cited_paths_repo(tmp_path / "repo")
    write_json(root / "notes.json", {"note": "一"})
    await session.initialize([root])
    fixture = session.open(root / FIXTURE)
    text = session.texts[fixture]
    at = text.index('"一"') + 1
    prepared = await prepare(session, fixture, at)
    assert prepared.placeholder == "一"
    assert prepared.range == lsp_range(text, at, at + 1, session.encoding)

    with pytest.raises(Exception, match="this is a path: rename or move the file itself"):
        await prepare(session, fixture, text.index("references/指南") + 3)  # a source ref
    with pytest.raises(Exception, match="only a case id can be renamed"):
        await prepare(session, fixture, text.index("输入") + 1)

    suite = session.open(root / SUITE)
    suite_text = session.texts[suite]
    with pytest.raises(Exception, match="this is a path"):
        await prepare(session, suite, suite_text.index('"files/样例"') + 2)  # a copy source
    with pytest.raises(Exception, match="only a case id"):
        await prepare(session, suite, suite_text.index('"files/样例/说明.md"') + 2)  # where it lands

    notes = session.open(root / "notes.json")
    with pytest.raises(Exception, match="does not check this file"):
        await prepare(session, notes, session.texts[notes].index("一"))


async def test_a_refusal_is_an_answer_not_an_error_in_the_log(session: Session, tmp_path: Path) -> None:
    """F2 away from an id is the user's everyday mistake, answered with the reason: the log gets
    one line about it, not an error with pygls' traceback (clients reveal or flag error logs)."""
    root = cited_paths_repo(tmp_path / "repo")
    await session.initialize([root])
    fixture = session.open(root / FIXTURE)
    with pytest.raises(Exception, match="only a case id can be renamed"):
        await prepare(session, fixture, session.texts[fixture].index("输入") + 1)
    # pygls logs before it answers, so the log line (if any) has arrived with the answer.
    about_it = [m for m in session.client.log_messages if "only a case id" in m.message]
    assert [m.type for m in about_it] == [types.MessageType.Info], about_it
    assert not any("Traceback" in m.message for m in session.client.log_messages)
