"""textDocument/hover against the real server over stdio with each client profile: markdown from
the schemas and the analysis, ranges exact in the client's encoding after CJK text and emoji."""

from __future__ import annotations

import json
from pathlib import Path

from cursor_marker import split_cursor
from lsp_support import Session, as_tuple, lsp_range, make_repo, position_of, workflow_fixture
from lsprotocol import types


async def hover_at(session: Session, uri: str, offset: int) -> types.Hover | None:
    line, character = position_of(session.texts[uri], offset, session.encoding)
    return await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )


def open_marked(session: Session, path: Path, marked: str) -> tuple[str, int]:
    text, offset = split_cursor(marked)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return session.open(path, text), offset


async def test_enum_value_after_cjk_and_emoji(session: Session, tmp_path: Path) -> None:
    make_repo(tmp_path)
    await session.initialize([tmp_path])
    marked = (
        '{"skill_name": "demo", "evals": [{"id": "日本 😀", "prompt": "🎉 p", "setup": {"kind": "em|pty"}}]}'
    )
    uri, offset = open_marked(session, tmp_path / "skills/demo/evals/evals.json", marked)
    found = await hover_at(session, uri, offset)
    assert found is not None and "empty temporary workspace" in found.contents.value
    start = session.texts[uri].index('"empty"')
    assert as_tuple(found.range) == as_tuple(
        lsp_range(session.texts[uri], start, start + 7, session.encoding)
    )


async def test_workflow_case_shows_its_effective_values(session: Session, tmp_path: Path) -> None:
    make_repo(tmp_path)
    (tmp_path / "skills/demo").mkdir(parents=True)
    (tmp_path / "skills/demo/SKILL.md").write_text("# Demo 演示\n", encoding="utf-8")
    await session.initialize([tmp_path])
    marked = json.dumps(workflow_fixture("demo", ["c1"]), ensure_ascii=False).replace(
        '"id": "c1"', '"id": "c|1"'
    )
    uri, offset = open_marked(session, tmp_path / "skills/demo/evals/trigger.json", marked)
    found = await hover_at(session, uri, offset)
    assert found is not None
    text = found.contents.value
    assert "`routing` (inherited), `trigger`" in text and "counts for `trigger`" in text
    start = session.texts[uri].index('"c1"')
    assert as_tuple(found.range) == as_tuple(
        lsp_range(session.texts[uri], start, start + 4, session.encoding)
    )


async def test_workflow_case_while_a_top_level_member_has_no_value_yet(
    session: Session, tmp_path: Path
) -> None:
    """Mid-typing (``"coverage_tags": ,``) the recovered tree holds the member without a value: the
    case still answers, its inherited lists read as absent (the normalizer crashed on it)."""
    make_repo(tmp_path)
    await session.initialize([tmp_path])
    marked = (
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo", '
        '"coverage_tags": , "source_refs": , "cases": [{"id": "c|1", "input": "做 😀"}]}'
    )
    uri, offset = open_marked(session, tmp_path / "skills/demo/evals/trigger.json", marked)
    found = await hover_at(session, uri, offset)
    assert found is not None and "c1" in found.contents.value
    start = session.texts[uri].index('"c1"')
    assert as_tuple(found.range) == as_tuple(
        lsp_range(session.texts[uri], start, start + 4, session.encoding)
    )


async def test_a_fixtures_backticks_stay_inside_their_code_span(session: Session, tmp_path: Path) -> None:
    """The hover shows a case's id, tags and refs as inline code: a backtick in one closed the span
    early, and the Markdown after it was rendered (here an image the editor would fetch on hover,
    and a heading after a blank line)."""
    make_repo(tmp_path)
    (tmp_path / "skills/demo").mkdir(parents=True)
    (tmp_path / "skills/demo/SKILL.md").write_text("# Demo\n", encoding="utf-8")
    await session.initialize([tmp_path])
    hostile = "a`![x](https://evil.example/t.png)``"
    fixture = workflow_fixture("demo", [hostile])
    fixture["cases"][0]["coverage_tags"] = ["trigger", "t\n\n# owned"]
    marked = json.dumps(fixture, ensure_ascii=False).replace('"id": "a`', '"id": "|a`')
    uri, offset = open_marked(session, tmp_path / "skills/demo/evals/trigger.json", marked)
    found = await hover_at(session, uri, offset)
    assert found is not None
    text = found.contents.value
    assert "**Case ``` a`![x](https://evil.example/t.png)`` ```**" in text, text
    assert "`t  # owned`" in text, text
