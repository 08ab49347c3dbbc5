"""textDocument/completion against the real server over stdio, with each client profile (UTF-8,
UTF-16, UTF-32): documents written with a ``|`` cursor marker, broken ones too; every edit range
checked against an oracle in the client's own units."""

from __future__ import annotations

import json
from pathlib import Path

from cursor_marker import split_cursor
from lsp_support import (
    Session,
    as_tuple,
    capabilities_for,
    lsp_range,
    make_repo,
    position_of,
    workflow_fixture,
    write_json,
)
from lsprotocol import types

SUITE = "skills/demo/evals/evals.json"
FIXTURE = "skills/demo/evals/trigger.json"


def suite_text(case_body: str) -> str:
    """A suite whose second case is ``case_body``; CJK text and emoji come before the cursor."""
    return (
        '{\n  "skill_name": "demo",\n  "evals": [\n'
        '    {"id": "一", "prompt": "日本語 🎉 prompt", "assertions": ["答え 😀"]},\n'
        f"    {case_body}\n  ]\n}}\n"
    )


async def start(session: Session, root: Path) -> None:
    make_repo(root)
    (root / "skills/demo").mkdir(parents=True, exist_ok=True)
    (root / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n# Demo\n\n## Usage\n", encoding="utf-8")
    await session.initialize([root])


async def complete(session: Session, uri: str, offset: int) -> list[types.CompletionItem]:
    line, character = position_of(session.texts[uri], offset, session.encoding)
    result = await session.client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert isinstance(result, types.CompletionList)
    return list(result.items)


def open_marked(session: Session, root: Path, rel: str, marked: str) -> tuple[str, int]:
    text, offset = split_cursor(marked)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return session.open(path, text), offset


def by_label(items: list[types.CompletionItem]) -> dict[str, types.CompletionItem]:
    return {item.label: item for item in items}


def edit_span(session: Session, uri: str, item: types.CompletionItem) -> tuple[int, int, int, int]:
    assert isinstance(item.text_edit, types.TextEdit)
    return as_tuple(item.text_edit.range)


def expected_span(session: Session, uri: str, start: int, end: int) -> tuple[int, int, int, int]:
    return as_tuple(lsp_range(session.texts[uri], start, end, session.encoding))


async def test_the_server_advertises_completion(session: Session, tmp_path: Path) -> None:
    await start(session, tmp_path)
    provider = session.result.capabilities.completion_provider
    assert provider is not None and {'"', ":", "/"} <= set(provider.trigger_characters)


async def test_setup_kind_in_an_unterminated_string_after_cjk(session: Session, tmp_path: Path) -> None:
    await start(session, tmp_path)
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text('{"id": "二 😀", "setup": {"kind": "em|'))
    items = by_label(await complete(session, uri, offset))
    assert {"empty", "seeded", "fixture"} <= set(items)
    quote = session.texts[uri].rindex('"em')
    # the edit replaces the opening quote and the partial word, exactly, in the client's units
    assert edit_span(session, uri, items["empty"]) == expected_span(session, uri, quote, offset)
    assert items["empty"].text_edit.new_text == '"empty"'
    assert items["empty"].filter_text == '"empty"'
    documentation = items["empty"].documentation
    text = documentation if isinstance(documentation, str) else documentation.value
    assert "empty temporary workspace" in text


async def test_value_after_a_trailing_colon(session: Session, tmp_path: Path) -> None:
    await start(session, tmp_path)
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text('{"id": "二", "sandbox": |}'))
    items = by_label(await complete(session, uri, offset))
    assert {"none", "just-bash"} <= set(items)
    assert edit_span(session, uri, items["just-bash"]) == expected_span(session, uri, offset, offset)


async def test_keys_after_a_missing_comma_add_the_comma(session: Session, tmp_path: Path) -> None:
    await start(session, tmp_path)
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text('{"id": "二 😀" "|"}'))
    items = by_label(await complete(session, uri, offset))
    assert "id" not in items  # already present
    prompt = items["prompt"]
    quote = offset - 1
    assert edit_span(session, uri, prompt) == expected_span(session, uri, quote, offset + 1)
    comma_at = session.texts[uri].index('"二 😀"') + len('"二 😀"')
    (comma,) = prompt.additional_text_edits
    assert comma.new_text == "," and as_tuple(comma.range) == expected_span(session, uri, comma_at, comma_at)


async def test_intent_methods_follow_the_kind_in_the_same_object(session: Session, tmp_path: Path) -> None:
    await start(session, tmp_path)
    body = '{"id": "二", "prompt": "p", "assertions": [{"id": "a", "kind": "workspace", "method": "|"}]}'
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text(body))
    labels = set(by_label(await complete(session, uri, offset)))
    assert {"file-exists", "file-contains", "json-valid", "snapshot-diff"} <= labels
    assert "judge" not in labels  # an output method


async def test_key_insertion_is_a_snippet_only_for_snippet_clients(tmp_path: Path, session: Session) -> None:
    await start(session, tmp_path)
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text('{"id": "二", "setup": {|}}'))
    kind = by_label(await complete(session, uri, offset))["kind"]
    snippets = bool(
        capabilities_for(session.profile).text_document.completion.completion_item.snippet_support
    )
    assert snippets == (session.profile != "emacs")  # eglot without yasnippet: plain text only
    if snippets:
        assert kind.insert_text_format == types.InsertTextFormat.Snippet
        assert kind.text_edit.new_text == '"kind": "${1|empty,seeded,fixture|}"'
    else:
        assert kind.insert_text_format == types.InsertTextFormat.PlainText
        assert kind.text_edit.new_text == '"kind": "empty"'


async def test_completion_right_after_an_edit_answers_from_the_new_text(
    session: Session, tmp_path: Path
) -> None:
    await start(session, tmp_path)
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text('{"id": "二 😀", "setup": {"kind": |}}'))
    await session.diagnostics(uri)  # the first version is analysed
    session.edit(uri, offset, offset, '"se')  # no wait: the request goes out right behind the edit
    items = by_label(await complete(session, uri, offset + 3))
    assert edit_span(session, uri, items["seeded"]) == expected_span(session, uri, offset, offset + 3)
    session.edit(uri, offset + 3, offset + 3, 'eded", "')
    keys = by_label(await complete(session, uri, offset + 11))
    assert "sources" in keys and "kind" not in keys
    assert edit_span(session, uri, keys["sources"]) == expected_span(session, uri, offset + 10, offset + 11)


# -- workspace-learned values ----------------------------------------------------------------------


async def test_coverage_tags_from_a_closed_file_and_never_repeated(session: Session, tmp_path: Path) -> None:
    closed = workflow_fixture("demo", ["c1", "c2"])
    closed["cases"][0]["coverage_tags"] = ["trigger", "team-only-tag"]
    closed["cases"][1]["coverage_tags"] = ["trigger", "team-only-tag"]
    write_json(tmp_path / "skills/demo/evals/closed.json", closed)  # on disk, never opened
    await start(session, tmp_path)
    marked = json.dumps(workflow_fixture("demo", ["o1"]), ensure_ascii=False).replace(
        '"coverage_tags": ["trigger"]', '"coverage_tags": ["trigger", "|"]'
    )
    uri, offset = open_marked(session, tmp_path, FIXTURE, marked)
    items = await complete(session, uri, offset)
    labels = [item.label for item in items]
    assert "trigger" not in labels  # already in this array
    assert len(labels) == len(set(labels))
    assert labels[:3] == ["boundary", "failure", "expected"]  # the readiness buckets first
    team = by_label(items)["team-only-tag"]
    assert team.detail == "used in 2 cases" and "skills/demo/evals/closed.json" in str(team.documentation)
    boundary = by_label(items)["boundary"]
    assert "boundary_note" in str(boundary.documentation)
    quote = offset - 1
    assert edit_span(session, uri, team) == expected_span(session, uri, quote, offset + 1)


async def test_source_ref_paths_segment_by_segment(session: Session, tmp_path: Path) -> None:
    (tmp_path / "docs/plans").mkdir(parents=True)
    (tmp_path / "docs/guide.md").write_text("# Guide\n\n## Install 安装\n", encoding="utf-8")
    await start(session, tmp_path)
    marked = json.dumps(workflow_fixture("demo", ["o1"], refs=["|"]), ensure_ascii=False)
    uri, offset = open_marked(session, tmp_path, FIXTURE, marked)
    items = by_label(await complete(session, uri, offset))
    assert {"docs/", "skills/"} <= set(items)
    assert items["docs/"].kind == types.CompletionItemKind.Folder
    # the next segment: the edit replaces only what follows "docs/", inside the quotes
    text = session.edit(uri, offset, offset, "docs/")
    items = by_label(await complete(session, uri, offset + 5))
    assert "guide.md" in items
    assert "plans/" not in items  # authority source: plan folders are not valid evidence
    span = expected_span(session, uri, offset + 5, offset + 5)
    assert edit_span(session, uri, items["guide.md"]) == span
    session.edit(uri, offset + 5, offset + 5, "guide.md#")
    anchors = by_label(await complete(session, uri, offset + 14))
    assert {"Guide", "Install 安装"} <= set(anchors)
    assert text.count("docs/") == 1
    # what completion inserts for the CJK heading is what go-to-definition resolves
    install = anchors["Install 安装"]
    assert edit_span(session, uri, install) == expected_span(session, uri, offset + 14, offset + 14)
    session.edit(uri, offset + 14, offset + 14, install.text_edit.new_text)
    line, character = position_of(session.texts[uri], offset + 2, session.encoding)
    found = await session.client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert found and found[0].uri == (tmp_path / "docs/guide.md").as_uri() and found[0].range.start.line == 2


async def test_suite_paths_are_relative_to_the_evals_folder(session: Session, tmp_path: Path) -> None:
    (tmp_path / "skills/demo/evals/files/input").mkdir(parents=True)
    (tmp_path / "skills/demo/evals/files/input/data 数据.txt").write_text("x", encoding="utf-8")
    await start(session, tmp_path)
    body = '{"id": "二", "prompt": "p", "setup": {"kind": "seeded", "sources": [{"from": "files/|"}]}}'
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text(body))
    items = by_label(await complete(session, uri, offset))
    assert set(items) == {"input/"}
    assert edit_span(session, uri, items["input/"]) == expected_span(session, uri, offset, offset)


async def test_assertion_paths_offer_what_the_setup_copies(session: Session, tmp_path: Path) -> None:
    (tmp_path / "skills/demo/evals/files/repo").mkdir(parents=True)
    (tmp_path / "skills/demo/evals/files/repo/app.py").write_text("x", encoding="utf-8")
    await start(session, tmp_path)
    body = (
        '{"id": "二", "prompt": "p", "setup": {"kind": "seeded",'
        ' "sources": [{"from": "files/repo", "to": "."}], "mountMode": "flatten-contents"},'
        ' "assertions": [{"type": "file-exists", "path": "|"}]}'
    )
    uri, offset = open_marked(session, tmp_path, SUITE, suite_text(body))
    assert [item.label for item in await complete(session, uri, offset)] == ["app.py"]


async def test_the_skill_name_is_the_folders(session: Session, tmp_path: Path) -> None:
    await start(session, tmp_path)
    uri, offset = open_marked(session, tmp_path, SUITE, '{"skill_name": "|", "evals": []}')
    (item,) = await complete(session, uri, offset)
    assert item.label == "demo" and item.text_edit.new_text == '"demo"'


async def test_folders_retrigger_only_in_vscode(pull_session: Session, tmp_path: Path) -> None:
    """VS Code runs ``editor.action.triggerSuggest`` after a folder is inserted; other clients
    would send an unknown command back to the server, so they get none."""
    make_repo(tmp_path)
    (tmp_path / "docs").mkdir()
    await pull_session.client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities_for(pull_session.profile),
            client_info=types.ClientInfo(name="Visual Studio Code", version="1.95.0"),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name=tmp_path.name)],
        )
    )
    marked = json.dumps(workflow_fixture("demo", ["o1"], refs=["|"]), ensure_ascii=False)
    uri, offset = open_marked(pull_session, tmp_path, FIXTURE, marked)
    items = by_label(await complete(pull_session, uri, offset))
    assert (
        items["docs/"].command is not None
        and items["docs/"].command.command == "editor.action.triggerSuggest"
    )
    assert all(item.command is None for label, item in items.items() if not label.endswith("/"))


async def test_no_retrigger_command_for_other_clients(session: Session, tmp_path: Path) -> None:
    make_repo(tmp_path)
    (tmp_path / "docs").mkdir()
    await session.initialize([tmp_path])
    marked = json.dumps(workflow_fixture("demo", ["o1"], refs=["|"]), ensure_ascii=False)
    uri, offset = open_marked(session, tmp_path, FIXTURE, marked)
    assert by_label(await complete(session, uri, offset))["docs/"].command is None
