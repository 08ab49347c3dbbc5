"""Navigation over the real server: outline, folding, selection, links, definitions, references,
highlights, rename, inlay hints, code lenses, the case command and workspace symbols — for every
client profile (UTF-8, UTF-16 and UTF-32 positions)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from lsp_support import Session, as_tuple, capabilities_for, lsp_range, make_repo, wait_until, write_json
from lsprotocol import types

SUITE = {
    "skill_name": "demo",
    "evals": [
        {
            "id": "案例-一",
            "prompt": "总结 😀 the release\nsecond line",
            "setup": {"kind": "seeded", "sources": [{"from": "files/input"}, "files/missing"]},
            "assertions": ["mentions 😀", {"type": "file-exists", "path": "files/input/a.txt"}],
        },
        {"id": 2, "prompt": "second", "files": ["files/input/a.txt"]},
    ],
}


def workflow(ids: list[str], *, top_tags: bool = True) -> dict:
    data = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "source_refs": ["skills/demo/references/guide.md#usage"],
        "cases": [
            {"id": case_id, "input": f"输入 {case_id} 🎉", "expected_outcome": "ok"} for case_id in ids
        ],
    }
    if top_tags:
        data["coverage_tags"] = ["trigger"]
    return data


def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    skill = root / "skills" / "demo"
    (skill / "evals" / "files" / "input").mkdir(parents=True)
    (skill / "evals" / "files" / "input" / "a.txt").write_text("a\n")
    (skill / "SKILL.md").write_text("---\nname: demo\n---\n")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("# Guide\n\nintro\n\n## Usage\n\ntext\n")
    write_json(skill / "evals" / "evals.json", SUITE)
    write_json(skill / "evals" / "trigger.json", workflow(["alpha", "β-case", "shared"]))
    write_json(skill / "evals" / "zz-other.json", workflow(["shared", "gamma"]))
    return root


def offset_of(text: str, needle: str, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at


async def open_doc(session: Session, path: Path) -> tuple[str, str]:
    uri = session.open(path)
    await session.diagnostics(uri)  # the document was analysed
    return uri, session.texts[uri]


def doc_id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def pos(session: Session, text: str, offset: int) -> types.Position:
    return lsp_range(text, offset, offset, session.encoding).start


async def test_outline_names_cases_by_id_with_assertions(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    uri, text = await open_doc(session, root / "skills/demo/evals/evals.json")
    result = await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri))
    )
    if isinstance(result[0], types.DocumentSymbol):
        (top,) = result
        assert top.name == "demo"
        first, second = top.children
        assert (first.name, second.name) == ("案例-一", "2")
        assert first.detail == "setup: seeded · 总结 😀 the release"
        start = offset_of(text, '"案例-一"')
        assert first.selection_range == lsp_range(text, start, start + len('"案例-一"'), session.encoding)
        assert [c.name for c in first.children] == ["mentions 😀", "file-exists"]
    else:
        names = [(s.name, s.container_name) for s in result]
        assert ("案例-一", "demo") in names and ("file-exists", "案例-一") in names


async def test_outline_of_a_broken_document_keeps_the_cases_that_parse(
    session: Session, tmp_path: Path
) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    path = root / "skills/demo/evals/trigger.json"
    # the third case's id loses its closing quote: the file no longer parses
    text = path.read_text().replace('"shared"', '"shared', 1)
    uri = session.open(path, text)
    await session.diagnostics(uri, lambda d: any(x.code == "invalid_json" for x in d))
    result = await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri))
    )
    names = (
        [c.name for c in result[0].children]
        if isinstance(result[0], types.DocumentSymbol)
        else [s.name for s in result]
    )
    assert "alpha" in names and "β-case" in names


async def test_folding_and_selection(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    uri, text = await open_doc(session, root / "skills/demo/evals/evals.json")
    folds = await session.client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=doc_id(uri))
    )
    setup_line = text[: offset_of(text, '"setup"')].count("\n")
    assert any(f.start_line == setup_line for f in folds)  # the setup object folds
    assert all(f.end_line > f.start_line for f in folds)
    at = offset_of(text, "files/input") + 2
    (chain,) = await session.client.text_document_selection_range_async(
        types.SelectionRangeParams(text_document=doc_id(uri), positions=[pos(session, text, at)])
    )
    value_start = offset_of(text, '"files/input"')
    assert chain.range == lsp_range(text, value_start, value_start + len('"files/input"'), session.encoding)
    member_start = offset_of(text, '"from"')
    assert chain.parent.range == lsp_range(
        text, member_start, value_start + len('"files/input"'), session.encoding
    )
    depth, node = 0, chain
    while node.parent is not None:
        assert _contains(node.parent.range, node.range)
        node, depth = node.parent, depth + 1
    assert node.range == lsp_range(text, 0, len(text.rstrip("\n")), session.encoding)


async def test_selection_inside_deep_nesting_is_answered(session: Session, tmp_path: Path) -> None:
    """One selection range per level, each the parent of the next, made a chain as deep as the
    file: 5,000 levels were past what the answer's encoder can nest (an internal error). The
    innermost levels are kept, then the whole document."""
    root = repo(tmp_path)
    depth = 5_000
    text = '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p", "metadata": {"deep": '
    text += "[" * depth + '"😀"' + "]" * depth + "}}]}\n"
    path = root / "skills/demo/evals/evals.json"
    path.write_text(text, encoding="utf-8")
    await session.initialize([root])
    uri, text = await open_doc(session, path)
    at = offset_of(text, "😀")
    (chain,) = await session.client.text_document_selection_range_async(
        types.SelectionRangeParams(text_document=doc_id(uri), positions=[pos(session, text, at)])
    )
    assert chain.range == lsp_range(text, at - 1, at + 2, session.encoding)  # the string
    assert chain.parent.range == lsp_range(text, at - 2, at + 3, session.encoding)  # its array
    levels, node = 1, chain
    while node.parent is not None:
        assert _contains(node.parent.range, node.range)
        node, levels = node.parent, levels + 1
    assert node.range == lsp_range(text, 0, len(text.rstrip("\n")), session.encoding)
    assert levels < depth


def _contains(outer: types.Range, inner: types.Range) -> bool:
    o, i = as_tuple(outer), as_tuple(inner)
    return (o[0], o[1]) <= (i[0], i[1]) and (i[2], i[3]) <= (o[2], o[3])


async def test_links_and_definitions_for_paths(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    uri, text = await open_doc(session, root / "skills/demo/evals/evals.json")
    links = await session.client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=doc_id(uri))
    )
    targets = {link.target for link in links}
    evals = root / "skills/demo/evals"
    assert (evals / "files/input").as_uri() in targets
    assert (evals / "files/input/a.txt").as_uri() in targets
    assert (root / "skills/demo/SKILL.md").as_uri() in targets
    assert not any("missing" in t for t in targets)  # a missing target has a diagnostic, no link
    at = offset_of(text, "files/input/a.txt") + 3  # the file-exists assertion's path
    found = await session.client.text_document_definition_async(
        types.DefinitionParams(text_document=doc_id(uri), position=pos(session, text, at))
    )
    assert [loc.uri for loc in found] == [(evals / "files/input/a.txt").as_uri()]

    wf_uri, wf_text = await open_doc(session, evals / "trigger.json")
    wf_links = await session.client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=doc_id(wf_uri))
    )
    guide = (root / "skills/demo/references/guide.md").as_uri()
    assert f"{guide}#L5" in {link.target for link in wf_links}  # "## Usage" is line 5
    at = offset_of(wf_text, "guide.md")
    found = await session.client.text_document_definition_async(
        types.DefinitionParams(text_document=doc_id(wf_uri), position=pos(session, wf_text, at))
    )
    assert found[0].uri == guide and found[0].range.start.line == 4


async def test_references_highlights_and_rename(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    evals = root / "skills/demo/evals"
    uri, text = await open_doc(session, evals / "trigger.json")
    other = (evals / "zz-other.json").read_text()
    at = offset_of(text, '"shared"') + 2
    refs = await session.client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc_id(uri),
            position=pos(session, text, at),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    other_start = offset_of(other, '"shared"')
    assert {(r.uri, as_tuple(r.range)) for r in refs} == {
        (uri, as_tuple(lsp_range(text, at - 2, at - 2 + len('"shared"'), session.encoding))),
        (
            (evals / "zz-other.json").as_uri(),
            as_tuple(lsp_range(other, other_start, other_start + 8, session.encoding)),
        ),
    }
    highlights = await session.client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=doc_id(uri), position=pos(session, text, at))
    )
    assert len(highlights) == 1

    # "shared" is used in a sibling file: renaming it here would split the pair
    try:
        await session.client.text_document_prepare_rename_async(
            types.PrepareRenameParams(text_document=doc_id(uri), position=pos(session, text, at))
        )
        raise AssertionError("prepareRename accepted an id used in another file")
    except Exception as error:  # noqa: BLE001 - the error response
        assert "another fixture file" in str(error)

    beta = offset_of(text, '"β-case"') + 1
    prepared = await session.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc_id(uri), position=pos(session, text, beta))
    )
    assert prepared.placeholder == "β-case"
    assert prepared.range == lsp_range(text, beta, beta + len("β-case"), session.encoding)
    edit = await session.client.text_document_rename_async(
        types.RenameParams(text_document=doc_id(uri), position=pos(session, text, beta), new_name="δ-case 😀")
    )
    edits = edit.changes[uri] if edit.changes else edit.document_changes[0].edits
    (change,) = edits
    assert change.range == lsp_range(text, beta - 1, beta + len("β-case") + 1, session.encoding)
    assert json.loads(change.new_text) == "δ-case 😀"


async def test_inlay_hints_and_code_lenses(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    evals = root / "skills/demo/evals"
    uri, text = await open_doc(session, evals / "trigger.json")
    whole = lsp_range(text, 0, len(text), session.encoding)
    hints = await session.client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=doc_id(uri), range=whole)
    )
    labels = [h.label for h in hints]
    assert len(labels) == 3 and all('coverage_tags: ["trigger"]' in label for label in labels)
    assert all("source_ref_authority: source (default)" in label for label in labels)
    first_case = offset_of(text, '{\n      "id": "alpha"')
    assert hints[0].position == pos(session, text, first_case + 1)
    # only the requested range
    alpha_only = lsp_range(text, first_case, first_case + 5, session.encoding)
    assert (
        len(
            await session.client.text_document_inlay_hint_async(
                types.InlayHintParams(text_document=doc_id(uri), range=alpha_only)
            )
        )
        == 1
    )

    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=doc_id(uri))
    )
    (lens,) = lenses
    assert lens.command.title.startswith("readiness of demo: partial (missing boundary)")
    # every case of both fixture files inherits the trigger tag: 3 + 2 cases count for it
    assert "trigger 5 · boundary 0 · failure 0 · expected 0" in lens.command.title

    s_uri, s_text = await open_doc(session, evals / "evals.json")
    s_hints = await session.client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=doc_id(s_uri), range=lsp_range(s_text, 0, len(s_text), session.encoding)
        )
    )
    assert {h.label.strip() for h in s_hints} == {'"mountMode": "preserve-path"', '"to": "files/input"'}
    s_lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=doc_id(s_uri))
    )
    assert [lens.command.arguments[1] for lens in s_lenses] == ["案例-一", "2"]
    line = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalfix.caseCommand", arguments=s_lenses[0].command.arguments)
    )
    assert shlex.split(line) == ["arc-skill-eval", "run", str(root / "skills/demo"), "--case", "案例-一"]


async def test_inlay_hints_and_lenses_can_be_switched_off(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root], settings={"inlayHints": False, "codeLens": {"enable": False}})
    uri, text = await open_doc(session, root / "skills/demo/evals/trigger.json")
    whole = lsp_range(text, 0, len(text), session.encoding)
    hints = await session.client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=doc_id(uri), range=whole)
    )
    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=doc_id(uri))
    )
    assert len(hints) == 0 and len(lenses) == 0


async def test_workspace_symbols_cover_closed_files(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    # fuzzy (the query's letters in order) and case-insensitive: "SR" matches only "shared",
    # once in each of the two fixture files, neither of them open
    found = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="SR"))
    evals = root / "skills/demo/evals"
    assert sorted((s.name, s.container_name, s.location.uri) for s in found) == [
        ("shared", "demo", (evals / "trigger.json").as_uri()),
        ("shared", "demo", (evals / "zz-other.json").as_uri()),
    ]
    (beta,) = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="β-C"))
    other = (evals / "trigger.json").read_text()
    start = offset_of(other, '"β-case"')
    assert beta.location.range == lsp_range(other, start, start + len('"β-case"'), session.encoding)
    suite = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="案例"))
    assert [s.name for s in suite] == ["案例-一"]


async def test_workspace_symbols_leave_their_ranges_to_resolve_where_the_client_asks(
    pull_session: Session, tmp_path: Path
) -> None:
    """A client that resolves ``location.range`` later (VS Code) gets each symbol's file only,
    no closed file is read to place it (issue 30: 1,000 files per request in a monorepo), and
    ``workspaceSymbol/resolve`` gives the range an eager client gets; a symbol naming a file
    outside the workspace folders comes back as it was."""
    root = repo(tmp_path)
    capabilities = capabilities_for(pull_session.profile)
    capabilities.workspace.symbol = types.WorkspaceSymbolClientCapabilities(
        resolve_support=types.ClientSymbolResolveOptions(properties=["location.range"])
    )
    result = await pull_session.initialize([root], capabilities=capabilities)
    assert result.capabilities.workspace_symbol_provider.resolve_provider is True
    client = pull_session.client
    (beta,) = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="β-C"))
    assert isinstance(beta.location, types.LocationUriOnly)
    resolved = await client.workspace_symbol_resolve_async(beta)
    other = (root / "skills/demo/evals/trigger.json").read_text()
    start = offset_of(other, '"β-case"')
    assert resolved.location.range == lsp_range(other, start, start + len('"β-case"'), pull_session.encoding)
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"a": 1}\n', encoding="utf-8")
    stranger = types.WorkspaceSymbol(
        name="x", kind=types.SymbolKind.Object, location=types.LocationUriOnly(uri=outside.as_uri()),
        data={"start": 1, "end": 4},
    )  # fmt: skip
    assert isinstance((await client.workspace_symbol_resolve_async(stranger)).location, types.LocationUriOnly)


async def test_readiness_lens_follows_a_sibling_file(session: Session, tmp_path: Path) -> None:
    root = repo(tmp_path)
    await session.initialize([root])
    evals = root / "skills/demo/evals"
    uri, _text = await open_doc(session, evals / "trigger.json")
    params = types.CodeLensParams(text_document=doc_id(uri))
    (before,) = await session.client.text_document_code_lens_async(params)
    assert "boundary 0" in before.command.title
    other_uri, other_text = await open_doc(session, evals / "zz-other.json")
    at = offset_of(other_text, '"expected_outcome"')
    session.edit(other_uri, at, at, '"coverage_tags": ["boundary"], "boundary_note": "edge", ')
    supports = session.result is not None and bool(
        getattr(
            getattr(capabilities_for(session.profile).workspace, "code_lens", None), "refresh_support", False
        )
    )
    if supports:
        await wait_until(lambda: session.code_lens_refreshes > 0, "workspace/codeLens/refresh")
    else:
        await session.diagnostics(other_uri)
    (after,) = await session.client.text_document_code_lens_async(params)
    assert "boundary 1" in after.command.title
    assert session.code_lens_refreshes == (1 if supports else 0)
