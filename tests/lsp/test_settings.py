"""Configuration over the protocol: workspace/configuration (re-read on didChangeConfiguration),
initializationOptions, and the project file (re-read when it changes)."""

from __future__ import annotations

from pathlib import Path

from lsp_support import Session, codes, has_watchers, make_repo, workflow_fixture, write_json
from lsprotocol import types


def _fixture(tmp_path: Path) -> tuple[Path, Path]:
    root = make_repo(tmp_path / "repo")  # no SKILL.md: source_ref_missing (an error) on the case
    path = write_json(root / "skills" / "demo" / "evals" / "cfg.json", workflow_fixture("demo", ["one"]))
    return root, path


def _severity(items: list[types.Diagnostic], code: str) -> types.DiagnosticSeverity | None:
    return next((d.severity for d in items if d.code == code), None)


async def test_workspace_configuration_and_its_changes(session: Session, tmp_path: Path) -> None:
    root, path = _fixture(tmp_path)
    await session.initialize([root], settings={"severity": {"source_ref_missing": "warning"}})
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))
    assert _severity(items, "source_ref_missing") == types.DiagnosticSeverity.Warning

    session.client.set_configuration({"severity": {"source_ref_missing": "off"}}, section="evalfix")
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await session.diagnostics(uri, lambda d: "source_ref_missing" not in codes(d))


async def test_initialization_options(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    root, path = _fixture(tmp_path)
    await session.initialize([root], init_options={"evalfix": {"severity": {"source_ref_missing": "hint"}}})
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))
    assert _severity(items, "source_ref_missing") == types.DiagnosticSeverity.Hint


async def test_project_file_and_its_changes(session: Session, tmp_path: Path) -> None:
    root, path = _fixture(tmp_path)
    project = root / ".evalfix.toml"
    project.write_text('files = {"qa/*.json" = "evals"}\nseverity = {"duplicate-key" = "error"}\n')
    suite = root / "qa" / "suite.json"  # no built-in rule makes this an eval suite
    suite.parent.mkdir()
    suite.write_text('{"skill_name": "x", "evals": [], "evals": []}', encoding="utf-8")
    await session.initialize([root])
    uri = session.open(suite)
    items = await session.diagnostics(uri, lambda d: "duplicate-key" in codes(d))
    assert _severity(items, "duplicate-key") == types.DiagnosticSeverity.Error

    project.write_text('files = {"qa/*.json" = "evals"}\nseverity = {"duplicate-key" = "off"}\n')
    if has_watchers(session.profile):
        session.file_events((project, types.FileChangeType.Changed))
    else:  # no file events: the project file is read again when the settings change
        session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await session.diagnostics(uri, lambda d: "duplicate-key" not in codes(d))


async def test_invalid_settings_are_logged(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    root, path = _fixture(tmp_path)
    await session.initialize([root], settings={"severity": {"source_ref_missing": "loud"}, "colour": 1})
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))
    assert _severity(items, "source_ref_missing") == types.DiagnosticSeverity.Error  # unchanged
    logged = "\n".join(m.message for m in session.client.log_messages)
    assert "colour" in logged and "loud" in logged


async def test_a_project_file_linked_outside_the_repository_is_logged_not_read(
    pull_session: Session, tmp_path: Path
) -> None:
    session = pull_session
    root, path = _fixture(tmp_path)
    outside = tmp_path / "outside.toml"
    outside.write_text('severity = {"source_ref_missing" = "off"}\nSECRET-0c7a = 1\n')
    (root / ".evalfix.toml").symlink_to(outside)
    await session.initialize([root])
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))
    assert _severity(items, "source_ref_missing") == types.DiagnosticSeverity.Error  # not "off"
    logged = "\n".join(m.message for m in session.client.log_messages)
    assert "a symbolic link leading outside the repository" in logged
    assert "SECRET-0c7a" not in logged


async def test_the_workflow_walk_setting_and_its_changes(session: Session, tmp_path: Path) -> None:
    """``workflowWalk`` reaches the repository's workflow index (which judges duplicate ids across
    files) when the settings are read, and again when they change."""
    root = tmp_path / "repo"  # no normalizer: the walk is off unless the setting forces it
    (root / ".git").mkdir(parents=True)
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text("# demo\n")
    for name in ("a.json", "b.json"):
        data = workflow_fixture("demo", ["same"])
        del data["schema_version"]  # a legacy shape: a fixture only where the walk is on
        write_json(root / "skills" / "demo" / "evals" / name, data)
    await session.initialize([root])
    uri = session.open(root / "skills" / "demo" / "evals" / "b.json")
    await session.diagnostics(uri, lambda d: "duplicate_case_id" not in codes(d))

    for walk in (True, False, True):  # a duplicate id across the two files only with the walk
        session.client.set_configuration({"workflowWalk": walk}, section="evalfix")
        session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await session.diagnostics(uri, lambda d, walk=walk: ("duplicate_case_id" in codes(d)) == walk)


async def test_the_workflow_walk_setting_holds_for_workspace_symbols_before_any_document_opens(
    session: Session, tmp_path: Path
) -> None:
    """A workspace-wide request may be the first to load a repository's workflow index: it is
    loaded with the repository's ``workflow_walk`` all the same, so a legacy-shaped fixture (a
    fixture only where the walk is on) has its case ids among the workspace symbols."""
    root = tmp_path / "repo"  # no normalizer: the walk is off unless the setting forces it
    (root / ".git").mkdir(parents=True)
    (root / ".evalfix.toml").write_text("workflow_walk = true\n")
    data = workflow_fixture("demo", ["walked-case"])
    del data["schema_version"]
    write_json(root / "skills" / "demo" / "evals" / "legacy.json", data)
    await session.initialize([root])
    found = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="walked"))
    assert [symbol.name for symbol in found] == ["walked-case"]
