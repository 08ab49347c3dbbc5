"""Moving files and folders over the real server, for every client profile: ``willRenameFiles``
gives the edits (in the negotiated encoding, CJK paths) that keep every fixture of the repository
pointing at the moved paths — open or not — so ``--check`` finds no missing path once the client
has applied them and moved the files; ``didRenameFiles`` refreshes the findings."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from file_moves_workspace import (
    FIXTURE,
    FOLDER,
    GUIDE,
    MISSING_PATH_CODES,
    NEW_FOLDER,
    NEW_GUIDE,
    SUITE,
    cited_paths_repo,
    missing_paths,
    write_json,
)
from fixture_paths import make_walking
from lsp_support import SERVER, Session, units
from lsprotocol import types


def offset_at(text: str, line: int, character: int, encoding: str) -> int:
    """The code-point offset of an LSP position (texts here break lines on ``\\n`` only)."""
    start = sum(len(row) + 1 for row in text.split("\n")[:line])
    column = 0
    row = text.split("\n")[line]
    while column < len(row) and units(row[:column], encoding) < character:
        column += 1
    assert units(row[:column], encoding) == character, "a position inside a character"
    return start + column


def apply_edit(edit: types.WorkspaceEdit, texts: dict[str, str], encoding: str) -> dict[str, str]:
    """The edited texts per URI, applied as a client applies them."""
    per_uri: dict[str, list[types.TextEdit]] = {}
    for change in edit.document_changes or ():
        per_uri.setdefault(change.text_document.uri, []).extend(change.edits)
    for uri, edits in (edit.changes or {}).items():
        per_uri.setdefault(uri, []).extend(edits)
    out = {}
    for uri, edits in per_uri.items():
        text = texts[uri]
        spans = [
            (
                offset_at(text, e.range.start.line, e.range.start.character, encoding),
                offset_at(text, e.range.end.line, e.range.end.character, encoding),
                e.new_text,
            )
            for e in edits
        ]
        for start, end, new_text in sorted(spans, reverse=True):
            text = text[:start] + new_text + text[end:]
        out[uri] = text
    return out


def rename_params(*pairs: tuple[Path, Path]) -> types.RenameFilesParams:
    return types.RenameFilesParams(
        files=[types.FileRename(old_uri=old.as_uri(), new_uri=new.as_uri()) for old, new in pairs]
    )


async def test_moving_a_file_and_a_folder_keeps_every_fixture_right(session: Session, tmp_path: Path) -> None:
    root = cited_paths_repo(tmp_path / "仓库 repo")
    result = await session.initialize([root])
    workflow_uri = session.open(root / FIXTURE)  # open; the suite stays closed
    await session.diagnostics(workflow_uri)
    # announced to every profile (Neovim's explorers send it only to a server that announces it)
    operations = result.capabilities.workspace.file_operations
    for announced in (operations.will_rename, operations.did_rename):
        kinds = {f.pattern.matches for f in announced.filters}
        assert kinds == {types.FileOperationPatternKind.File, types.FileOperationPatternKind.Folder}

    guide, new_guide = root / GUIDE, root / NEW_GUIDE
    folder, new_folder = root / FOLDER, root / NEW_FOLDER
    edit = await session.client.workspace_will_rename_files_async(
        rename_params((guide, new_guide), (folder, new_folder))
    )
    assert edit is not None
    suite_uri = (root / SUITE).as_uri()
    texts = {workflow_uri: session.texts[workflow_uri], suite_uri: (root / SUITE).read_text("utf-8")}
    edited = apply_edit(edit, texts, session.encoding)
    assert set(edited) == {workflow_uri, suite_uri}

    workflow = json.loads(edited[workflow_uri])
    assert workflow["source_refs"] == ["docs/指南 v2.md#安装"]  # the anchor kept
    assert workflow["cases"][0]["source_refs"] == ["docs/指南 v2.md"]
    suite_case = json.loads(edited[suite_uri])["evals"][0]
    assert suite_case["setup"]["sources"] == [{"from": "files/资料"}]
    assert suite_case["assertions"][0]["path"] == "files/资料/说明.md"

    # the client applies the edits and moves the files, then says so
    session.edit(workflow_uri, 0, len(session.texts[workflow_uri]), edited[workflow_uri])
    (root / SUITE).write_text(edited[suite_uri], encoding="utf-8")
    (root / FIXTURE).write_text(edited[workflow_uri], encoding="utf-8")
    new_guide.parent.mkdir()
    shutil.move(guide, new_guide)
    shutil.move(folder, new_folder)
    session.client.workspace_did_rename_files(rename_params((guide, new_guide), (folder, new_folder)))

    items = await session.diagnostics(workflow_uri)
    assert not MISSING_PATH_CODES & {str(d.code) for d in items}
    assert missing_paths(SERVER, root) == []


async def test_did_rename_refreshes_the_findings_of_open_fixtures(session: Session, tmp_path: Path) -> None:
    root = cited_paths_repo(tmp_path / "repo")
    await session.initialize([root])
    uri = session.open(root / FIXTURE)
    items = await session.diagnostics(uri)
    assert "source_ref_missing" not in {str(d.code) for d in items}
    guide, moved = root / GUIDE, root / "elsewhere.md"
    shutil.move(guide, moved)  # moved without the edits: the refs now dangle
    session.client.workspace_did_rename_files(rename_params((guide, moved)))
    items = await session.diagnostics(uri, lambda items: "source_ref_missing" in {str(d.code) for d in items})
    assert sum(str(d.code) == "source_ref_missing" for d in items) == 2


async def test_a_move_nothing_cites_gives_no_edit(session: Session, tmp_path: Path) -> None:
    root = cited_paths_repo(tmp_path / "repo")
    await session.initialize([root])
    session.open(root / FIXTURE)
    (root / "notes.md").write_text("n\n", encoding="utf-8")
    edit = await session.client.workspace_will_rename_files_async(
        rename_params((root / "notes.md", root / "记录.md"))
    )
    assert edit is None or not (edit.document_changes or edit.changes)


async def test_a_fifo_among_the_fixtures_and_a_non_file_uri_do_not_stop_the_plan(
    session: Session, tmp_path: Path
) -> None:
    root = cited_paths_repo(tmp_path / "repo")
    os.mkfifo(root / "skills" / "写作" / "evals" / "fifo.json")  # reading it would block for good
    await session.initialize([root])
    params = rename_params((root / GUIDE, root / NEW_GUIDE))
    params.files.append(types.FileRename(old_uri="untitled:Untitled-1", new_uri="untitled:Untitled-2"))
    edit = await asyncio.wait_for(session.client.workspace_will_rename_files_async(params), 30)
    assert edit is not None
    fixture_uri = (root / FIXTURE).as_uri()
    edited = apply_edit(edit, {fixture_uri: (root / FIXTURE).read_text("utf-8")}, session.encoding)
    assert json.loads(edited[fixture_uri])["source_refs"] == [f"{NEW_GUIDE}#安装"]


# A skill-local shape under skills/**/evals/ (no canonical schema_version): a workflow fixture only
# in a walking repository; elsewhere the checker calls it `unknown` and its own tests judge it.
SKILL_LOCAL = "skills/写作/evals/local/shape.json"


@pytest.mark.parametrize(
    ("walk_setup", "rewritten"),
    [
        pytest.param("", False, id="no-normalizer"),
        pytest.param("normalizer", True, id="normalizer"),
        pytest.param("normalizer,walk-off", False, id="normalizer-forced-off"),
        pytest.param("walk-on", True, id="forced-on"),
    ],
)
async def test_moves_rewrite_only_the_files_the_analysis_checks(
    pull_session: Session, tmp_path: Path, walk_setup: str, rewritten: bool
) -> None:
    """File moves classify each file as the analysis does (the repository's walk, its setting):
    a skill-local file the checker leaves alone is never rewritten."""
    root = cited_paths_repo(tmp_path / "repo")
    if "normalizer" in walk_setup:
        make_walking(root)
    if "walk-" in walk_setup:
        setting = "true" if "walk-on" in walk_setup else "false"
        (root / ".evalfix.toml").write_text(f"workflow_walk = {setting}\n", encoding="utf-8")
    write_json(root / SKILL_LOCAL, {"source_refs": [GUIDE], "cases": [{"id": "x", "source_refs": [GUIDE]}]})
    await pull_session.initialize([root])
    edit = await pull_session.client.workspace_will_rename_files_async(
        rename_params((root / GUIDE, root / NEW_GUIDE))
    )
    assert edit is not None
    texts = {(root / name).as_uri(): (root / name).read_text("utf-8") for name in (FIXTURE, SKILL_LOCAL)}
    edited = apply_edit(edit, texts, pull_session.encoding)
    assert json.loads(edited[(root / FIXTURE).as_uri()])["source_refs"] == [f"{NEW_GUIDE}#安装"]
    local_uri = (root / SKILL_LOCAL).as_uri()
    assert (local_uri in edited) is rewritten
    if rewritten:
        assert json.loads(edited[local_uri])["source_refs"] == [NEW_GUIDE]


async def test_a_move_outside_every_workspace_folder_and_open_document_is_not_planned(
    session: Session, tmp_path: Path
) -> None:
    """A repository the user does not work in (outside the workspace folders, nothing open there)
    is left alone: renaming ``/`` once walked the whole file system and read other projects'
    files. The same move inside the workspace is planned."""
    inside = cited_paths_repo(tmp_path / "inside")
    outside = cited_paths_repo(tmp_path / "outside")
    await session.initialize([inside])
    for root, planned in ((outside, False), (inside, True)):
        edit = await session.client.workspace_will_rename_files_async(
            rename_params((root / GUIDE, root / NEW_GUIDE))
        )
        assert (edit is not None) == planned, root
