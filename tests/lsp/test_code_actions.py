"""Code actions over the real protocol: quick fixes requested for a diagnostic's range, the
source actions (fix all, migrate) — resolved through ``codeAction/resolve`` by the clients that
can (VS Code, Neovim), computed at once for the one that cannot (Emacs) — and the returned
``WorkspaceEdit`` applied by the test in the form the client's capability asks for
(``documentChanges`` for VS Code and Emacs, ``changes`` for Neovim), in its position encoding,
then re-validated by the server."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_support import Session, capabilities_for, codes, make_repo, position_of, write_json
from lsprotocol import types

from evalfix_ls.batch.fix import FixOptions, fix_paths

# CJK and emoji before the broken value on the same line: positions differ in every encoding.
EVALS = (
    "{\r\n"
    '  "skill_name": "demo",\r\n'
    '  "evals": [\r\n'
    '    {"id": "整理", "prompt": "整理 CHANGELOG 🧹🧹", "setup": {"kind": "Seeded", "sources": []}},\r\n'
    '    {"id": "modes", "prompt": "总结 📝", "setup": {"kind": "seeded", "sources": ["files/repo"], '
    '"mountMode": "flatten"}}\r\n'
    "  ]\r\n"
    "}\r\n"
)
LEGACY = {
    "schema_version": "prompt-examples/v1",
    "skill": "demo",
    "source_refs": ["skills/demo/SKILL.md"],
    "examples": [
        {
            "name": "计划 导出 export",
            "user_intent": "计划导出功能 📦",
            "expected_posture": "Plans first.",
            "negative_signal": "writes code",
            "context": "a legacy local field",
            "coverage_tags": ["trigger"],
        }
    ],
}


def _repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    skill = root / "skills" / "demo"
    (skill / "evals" / "files" / "repo").mkdir(parents=True)
    (skill / "SKILL.md").write_text("# demo\n", encoding="utf-8")
    (skill / "evals" / "files" / "repo" / "README.md").write_text("x\n", encoding="utf-8")
    return root


def offset_of(text: str, line: int, character: int, encoding: str) -> int:
    """The code-point offset of an LSP position (an oracle independent of the server)."""
    offset = 0
    while offset <= len(text) and position_of(text, offset, encoding)[0] < line:
        offset += 1
    while offset < len(text) and position_of(text, offset, encoding) < (line, character):
        offset += 1
    return offset


def apply_workspace_edit(session: Session, uri: str, edit: types.WorkspaceEdit) -> str:
    """Apply ``edit`` to our copy of ``uri``, insisting on the form the client asked for."""
    caps = capabilities_for(session.profile)
    wants_document_changes = bool(caps.workspace and caps.workspace.workspace_edit.document_changes)
    if wants_document_changes:
        assert edit.changes is None and edit.document_changes
        (document_edit,) = edit.document_changes
        assert document_edit.text_document.uri == uri
        assert document_edit.text_document.version == session.versions[uri]
        text_edits = document_edit.edits
    else:
        assert edit.document_changes is None and set(edit.changes) == {uri}
        text_edits = edit.changes[uri]
    text = session.texts[uri]
    spans = []
    for text_edit in text_edits:
        rng = text_edit.range
        start = offset_of(text, rng.start.line, rng.start.character, session.encoding)
        end = offset_of(text, rng.end.line, rng.end.character, session.encoding)
        spans.append((start, end, text_edit.new_text))
    for start, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


def resolves(session: Session) -> bool:
    """The client's profile fills code action edits in through ``codeAction/resolve``."""
    support = capabilities_for(session.profile).text_document.code_action.resolve_support
    return support is not None and "edit" in support.properties


async def with_edit(session: Session, action: types.CodeAction) -> types.WorkspaceEdit:
    """The action's edit: resolved when the client resolves (and then only then), else as sent."""
    if not resolves(session):
        assert action.edit is not None
        return action.edit
    assert action.edit is None  # offered without computing it
    resolved = await session.client.code_action_resolve_async(action)
    assert resolved.edit is not None
    return resolved.edit


def replace_all(session: Session, uri: str, text: str) -> None:
    """Send the edited text as the client would after applying the edit."""
    old = session.texts[uri]
    session.edit(uri, 0, len(old), text)


async def _code_actions(
    session: Session,
    uri: str,
    diagnostic: types.Diagnostic | None,
    only: list[str] | None = None,
    trigger_kind: types.CodeActionTriggerKind | None = None,
) -> list[types.CodeAction]:
    text = session.texts[uri]
    rng = (
        diagnostic.range
        if diagnostic is not None
        else types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    )
    result = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(
                diagnostics=[diagnostic] if diagnostic else [], only=only, trigger_kind=trigger_kind
            ),
        )
    )
    assert text == session.texts[uri]
    return list(result or [])


async def test_quick_fix_for_an_enum_value_applies_and_revalidates(session: Session, tmp_path: Path) -> None:
    root = _repo(tmp_path)
    path = root / "skills" / "demo" / "evals" / "evals.json"
    path.write_bytes(EVALS.encode("utf-8"))
    result = await session.initialize([root])
    provider = result.capabilities.code_action_provider
    assert types.CodeActionKind.QuickFix in provider.code_action_kinds
    assert "source.fixAll.evalfix" in provider.code_action_kinds

    uri = session.open(path, EVALS)
    items = await session.diagnostics(uri, lambda d: "setup-kind-invalid" in codes(d))
    (diagnostic,) = [d for d in items if d.code == "setup-kind-invalid"]
    actions = await _code_actions(session, uri, diagnostic)
    (action,) = [a for a in actions if a.title == 'Change to "seeded"']
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.is_preferred is True
    assert list(action.diagnostics) == [diagnostic]

    # A client that does not send the diagnostic's data back gets the same fix, matched by range.
    bare = types.Diagnostic(range=diagnostic.range, message=diagnostic.message, code=diagnostic.code)
    assert [a.title for a in await _code_actions(session, uri, bare)] == [a.title for a in actions]

    fixed = apply_workspace_edit(session, uri, action.edit)
    assert fixed == EVALS.replace('"Seeded"', '"seeded"')  # the rest byte-for-byte, CRLF kept
    replace_all(session, uri, fixed)
    after = await session.diagnostics(uri, lambda d: "setup-kind-invalid" not in codes(d))
    assert not [d for d in after if d.severity == types.DiagnosticSeverity.Error]


async def test_fix_all_source_action_fixes_every_safe_finding(session: Session, tmp_path: Path) -> None:
    root = _repo(tmp_path)
    path = root / "skills" / "demo" / "evals" / "evals.json"
    path.write_bytes(EVALS.encode("utf-8"))
    await session.initialize([root])
    uri = session.open(path, EVALS)
    await session.diagnostics(uri, lambda d: {"setup-kind-invalid", "mount-mode-flatten"} <= set(codes(d)))

    actions = await _code_actions(session, uri, None, only=["source.fixAll"])
    (action,) = actions
    assert action.kind == "source.fixAll.evalfix"
    fixed = apply_workspace_edit(session, uri, await with_edit(session, action))
    expected = (
        EVALS.replace('"Seeded"', '"seeded"')
        .replace('["files/repo"]', '[{"from": "files/repo"}]')
        .replace('"flatten"', '"flatten-contents"')
    )
    assert fixed == expected
    # The editor and --fix run the same engine: the batch writes the same bytes.
    copy = _repo(tmp_path / "copy")
    (copy / "skills/demo/evals/evals.json").write_bytes(EVALS.encode("utf-8"))
    fix_paths([copy], root=copy, cwd=copy)
    assert (copy / "skills/demo/evals/evals.json").read_bytes() == fixed.encode("utf-8")
    replace_all(session, uri, fixed)
    after = await session.diagnostics(uri, lambda d: "mount-mode-flatten" not in codes(d))
    assert {"setup-kind-invalid", "sources-string-form"}.isdisjoint(codes(after))
    # Nothing safe is left: a second request offers no fix-all.
    assert await _code_actions(session, uri, None, only=["source.fixAll.evalfix"]) == []


async def test_migrate_source_action_on_a_legacy_fixture(session: Session, tmp_path: Path) -> None:
    root = _repo(tmp_path)
    path = write_json(root / "skills" / "demo" / "evals" / "examples.json", LEGACY)
    text = path.read_text(encoding="utf-8")
    await session.initialize([root])
    uri = session.open(path, text)
    before = await session.diagnostics(uri)
    assert not [d for d in before if d.severity == types.DiagnosticSeverity.Error]

    quick_only = await _code_actions(session, uri, None, only=[types.CodeActionKind.QuickFix])
    assert all(a.kind == types.CodeActionKind.QuickFix for a in quick_only)
    (action,) = await _code_actions(session, uri, None, only=["source.migrate"])
    assert action.kind == "source.migrate.evalfix"
    migrated = apply_workspace_edit(session, uri, await with_edit(session, action))
    # The editor and --migrate run the same migrator: the batch writes the same bytes.
    copy = _repo(tmp_path / "copy")
    copied = write_json(copy / "skills" / "demo" / "evals" / "examples.json", LEGACY)
    fix_paths([copy], root=copy, cwd=copy, options=FixOptions(fix=False, migrate=True))
    assert copied.read_text(encoding="utf-8") == migrated
    data = json.loads(migrated)
    assert data["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    case = data["cases"][0]
    assert case["id"] == "export"  # the slug the normalizer derived from name, now written out
    assert case["input"] == "计划导出功能 📦" and case["expected_outcome"] == "Plans first."
    assert case["extensions"] == {"context": "a legacy local field"}
    replace_all(session, uri, migrated)
    after = await session.diagnostics(uri, lambda d: True)
    assert not [d for d in after if d.severity == types.DiagnosticSeverity.Error]


async def test_fix_of_an_inherited_problem_covers_every_case(session: Session, tmp_path: Path) -> None:
    """A mirror ref in the top-level source_refs is reported once per case; the editor shows one
    diagnostic (``data.cases``) and its fix sets the authority on every case it stands for."""
    root = _repo(tmp_path)
    (root / "docs" / "plans").mkdir(parents=True)
    (root / "docs" / "plans" / "p.md").write_text("x\n", encoding="utf-8")
    fixture = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md", "docs/plans/p.md"],
        "cases": [
            {"id": "一", "input": "计划 📦", "coverage_tags": ["failure"]},
            {"id": "二", "input": "再来 🎉", "coverage_tags": ["failure"]},
        ],
    }
    path = write_json(root / "skills" / "demo" / "evals" / "cases.json", fixture)
    await session.initialize([root])
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "source_ref_not_source_authority" in codes(d))
    (diagnostic,) = [d for d in items if d.code == "source_ref_not_source_authority"]
    assert diagnostic.data["cases"] == [0, 1]
    actions = await _code_actions(session, uri, diagnostic)
    (action,) = [a for a in actions if a.title.startswith("Set the case's source_ref_authority")]
    assert action.title.endswith("(2 cases)") and action.is_preferred
    fixed_text = apply_workspace_edit(session, uri, action.edit)
    fixed = json.loads(fixed_text)
    assert [case["source_ref_authority"] for case in fixed["cases"]] == ["historical", "historical"]
    assert fixed["source_refs"] == fixture["source_refs"] and "source_ref_authority" not in fixed
    replace_all(session, uri, fixed_text)
    await session.diagnostics(uri, lambda d: "source_ref_not_source_authority" not in codes(d))


async def test_an_automatic_request_computes_no_source_action(session: Session, tmp_path: Path) -> None:
    """The lightbulb's request (no ``only``) on a suite with safe fixes and on a legacy fixture: a
    client that resolves gets the source action without an edit, one that cannot resolve gets
    none (it rewrites the whole document: computed only when asked for)."""
    root = _repo(tmp_path)
    suite = root / "skills" / "demo" / "evals" / "evals.json"
    suite.write_bytes(EVALS.encode("utf-8"))
    legacy = write_json(root / "skills" / "demo" / "evals" / "examples.json", LEGACY)
    await session.initialize([root])
    for path, kind in ((suite, "source.fixAll.evalfix"), (legacy, "source.migrate.evalfix")):
        uri = session.open(path, path.read_text(encoding="utf-8"))
        await session.diagnostics(uri, lambda d: bool(d))
        automatic = await _code_actions(session, uri, None)
        source = [a for a in automatic if a.kind != types.CodeActionKind.QuickFix]
        if resolves(session):
            assert [a.kind for a in source] == [kind] and source[0].edit is None
        else:
            assert source == []
        asked = await _code_actions(session, uri, None, only=["source"])
        assert [a.kind for a in asked] == [kind]


async def test_the_lightbulb_gets_quick_fixes_only(session: Session, tmp_path: Path) -> None:
    """An automatic request (the lightbulb on a cursor move, ``triggerKind`` Automatic, no
    ``only``) gets the quick fixes of its diagnostics and no source action, even from a client
    that resolves them: whether fix-all has anything to do scans every finding. Invoked, the
    same request offers fix-all as before."""
    root = _repo(tmp_path)
    suite = root / "skills" / "demo" / "evals" / "evals.json"
    suite.write_bytes(EVALS.encode("utf-8"))
    await session.initialize([root])
    uri = session.open(suite, suite.read_text(encoding="utf-8"))
    diagnostics = await session.diagnostics(uri, lambda d: "setup-kind-invalid" in codes(d))
    (fixable,) = [d for d in diagnostics if d.code == "setup-kind-invalid"]
    automatic = types.CodeActionTriggerKind.Automatic
    lightbulb = await _code_actions(session, uri, fixable, trigger_kind=automatic)
    assert lightbulb and {a.kind for a in lightbulb} == {types.CodeActionKind.QuickFix}
    invoked = await _code_actions(session, uri, fixable, trigger_kind=types.CodeActionTriggerKind.Invoked)
    source = [a.kind for a in invoked if a.kind != types.CodeActionKind.QuickFix]
    assert source == (["source.fixAll.evalfix"] if resolves(session) else [])
