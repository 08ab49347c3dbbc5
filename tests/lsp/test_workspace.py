"""The workspace index over the protocol: cross-file duplicate ids, source files appearing,
workspace diagnostics (pull, long-polled) and the initial scan with progress (push)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from lsp_support import (
    Session,
    codes,
    has_watchers,
    make_repo,
    two_fixtures,
    wait_until,
    workflow_fixture,
    write_json,
)
from lsprotocol import types

from evalfix_ls.lsp.diagnostics.workspace_pull import PROGRESS_TITLE


async def test_sibling_gaining_a_duplicate_id_updates_the_other(session: Session, tmp_path: Path) -> None:
    root, a, b = two_fixtures(tmp_path)
    await session.initialize([root])
    b_uri = session.open(b)
    assert "duplicate_case_id" not in codes(await session.diagnostics(b_uri))
    a_uri = session.open(a)
    await session.diagnostics(a_uri)
    refreshes = session.client.diagnostic_refresh_count

    # Unsaved edit of a.json: its case "one" becomes "two", the id b.json holds.
    text = session.texts[a_uri]
    at = text.index('"one"')
    session.edit(a_uri, at + 1, at + 4, "two")
    items = await session.diagnostics(b_uri, lambda d: "duplicate_case_id" in codes(d))
    duplicate = next(d for d in items if d.code == "duplicate_case_id")
    assert duplicate.data["previous_source_file"] == "skills/demo/evals/a.json"
    if session.profile != "emacs":  # eglot does not take related information
        assert duplicate.related_information[0].location.uri == a_uri
    if session.profile == "vscode-pull":  # the server asks the client to pull again
        await wait_until(lambda: session.client.diagnostic_refresh_count > refreshes, "a refresh request")

    # Closing a.json without saving: the disk version has no duplicate any more.
    session.close(a_uri)
    del session.versions[a_uri]
    await session.diagnostics(b_uri, lambda d: "duplicate_case_id" not in codes(d))


async def test_closed_sibling_diagnostics_follow_an_open_edit(push_session: Session, tmp_path: Path) -> None:
    """Push: b.json is not open; its diagnostics come from the workspace scan and are
    re-published when a.json (open) gains b's id."""
    session = push_session
    root, a, b = two_fixtures(tmp_path)
    b_uri = b.as_uri()
    await session.initialize([root])
    a_uri = session.open(a)
    await session.diagnostics(a_uri)
    text = session.texts[a_uri]
    at = text.index('"one"')
    session.edit(a_uri, at + 1, at + 4, "two")
    await session.diagnostics(b_uri, lambda d: "duplicate_case_id" in codes(d))
    assert session.published[b_uri][-1].version is None


async def test_created_source_file_clears_source_ref_missing(session: Session, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "skills" / "demo" / "evals" / "refs.json", workflow_fixture("demo", ["one"]))
    await session.initialize([root])
    uri = session.open(path)
    await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))

    skill = root / "skills" / "demo" / "SKILL.md"
    skill.write_text("# demo\n", encoding="utf-8")
    if has_watchers(session.profile):  # Neovim on Linux has no watchers: the server re-checks the disk
        session.file_events((skill, types.FileChangeType.Created))
    await session.diagnostics(uri, lambda d: "source_ref_missing" not in codes(d))

    skill.unlink()
    if has_watchers(session.profile):
        session.file_events((skill, types.FileChangeType.Deleted))
    await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))


async def test_watchers_are_registered_when_the_client_allows(session: Session, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    await session.initialize([root])
    await session.client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    methods = {r.method for r in session.registrations}
    assert (types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods) == has_watchers(session.profile)
    if has_watchers(session.profile):
        method = types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        registration = next(r for r in session.registrations if r.method == method)
        globs = {w["globPattern"] for w in registration.register_options["watchers"]}
        assert {"**/*", "**/*.json"} <= globs


async def test_workspace_diagnostics_cover_closed_files(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    root, a, b = two_fixtures(tmp_path)
    write_json(root / "skills" / "demo" / "evals" / "c.json", workflow_fixture("demo", ["one"]))  # dup of a
    arc = make_repo(tmp_path / "arc")
    suite = arc / "skill-x" / "evals" / "evals.json"
    suite.parent.mkdir(parents=True)
    suite.write_text('{"skill_name": "skill-x", "evals": [], "evals": []}', encoding="utf-8")
    await session.initialize([root, arc])
    b_uri = session.open(b)

    report = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    by_uri = {item.uri: item for item in report.items}
    c_uri = (root / "skills/demo/evals/c.json").as_uri()
    assert {a.as_uri(), b.as_uri(), c_uri, suite.as_uri()} <= set(by_uri)
    assert "duplicate_case_id" in codes(by_uri[c_uri].items)
    assert "duplicate-key" in codes(by_uri[suite.as_uri()].items)
    assert by_uri[b_uri].version == session.versions[b_uri]
    assert by_uri[a.as_uri()].version is None

    previous = [types.PreviousResultId(uri=item.uri, value=item.result_id) for item in report.items]
    again = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=previous)
    )
    assert {item.kind for item in again.items} == {"unchanged"}


async def test_workspace_pull_with_a_partial_result_token_is_long_polled(
    pull_session: Session, tmp_path: Path
) -> None:
    """VS Code re-sends workspace/diagnostic right after each answer: when nothing changed the
    request stays open until something does."""
    session = pull_session
    root, a, _b = two_fixtures(tmp_path)
    await session.initialize([root])
    first, _streamed = await session.workspace_diagnostic(token="t1")
    assert first

    parked = asyncio.ensure_future(session.workspace_diagnostic(token="t2"))
    done, _ = await asyncio.wait({parked}, timeout=0.5)
    assert not done, "an idle workspace pull must not be answered at once"

    write_json(a, workflow_fixture("demo", ["two"]))  # now a duplicate of b.json's id
    session.file_events((a, types.FileChangeType.Changed))
    answer, _streamed = await asyncio.wait_for(parked, timeout=10)
    b_item = next(item for item in answer if item.uri.endswith("/b.json"))
    assert "duplicate_case_id" in codes(b_item.items)


async def test_workspace_pull_streams_reports_as_partial_results(
    pull_session: Session, tmp_path: Path
) -> None:
    """With a partialResultToken every report goes out in $/progress (LSP 3.17: once partial
    results were sent, the response's own items are empty); without one, in the response."""
    session = pull_session
    root, a, b = two_fixtures(tmp_path)
    await session.initialize([root])
    b_uri = session.open(b)
    items, streamed = await session.workspace_diagnostic(token="stream-1")
    assert {a.as_uri(), b_uri} <= {item.uri for item in items}
    assert streamed == len(items), "every report comes as a partial result"
    assert next(item for item in items if item.uri == b_uri).version == session.versions[b_uri]

    previous = [types.PreviousResultId(uri=item.uri, value=item.result_id) for item in items]
    items, streamed = await session.workspace_diagnostic(previous)
    assert streamed == 0 and {item.kind for item in items} == {"unchanged"}
    assert {a.as_uri(), b_uri} <= {item.uri for item in items}


async def test_initial_scan_pushes_closed_files_with_progress(push_session: Session, tmp_path: Path) -> None:
    session = push_session
    root, _a, _b = two_fixtures(tmp_path)
    bad = root / "skills" / "demo" / "evals" / "broken.json"
    bad.write_text('{"schema_version": "spec-first.workflow-eval-fixtures.v1", "cases": [', encoding="utf-8")
    await session.initialize([root])
    await session.diagnostics(bad.as_uri(), lambda d: "invalid_json" in codes(d))

    def kinds() -> list[str]:
        return [type(v).__name__ for values in session.client.progress_reports.values() for v in values]

    await wait_until(lambda: "WorkDoneProgressEnd" in kinds(), "the end of the scan's progress")
    assert kinds()[0] == "WorkDoneProgressBegin" and kinds()[-1] == "WorkDoneProgressEnd"
    # Clean files are not published (nothing to show).
    assert _b.as_uri() not in session.published

    pushes_before_delete = len(session.published[bad.as_uri()])
    bad.unlink()
    session.file_events((bad, types.FileChangeType.Deleted))
    await session.diagnostics(bad.as_uri(), lambda d: not d)
    # the deletion made the server publish an empty list for the file (not a stale leftover)
    after = session.published[bad.as_uri()][pushes_before_delete:]
    assert after and len(after[-1].diagnostics) == 0


async def test_a_deleted_folder_leaves_the_index(pull_session: Session, tmp_path: Path) -> None:
    """One event for a removed folder (not one per file) still drops its fixtures' ids."""
    session = pull_session
    root, _a, b = two_fixtures(tmp_path)
    folder = root / "skills" / "demo" / "evals" / "aa"  # sorts before b.json
    write_json(folder / "x.json", workflow_fixture("demo", ["two"]))
    await session.initialize([root])
    b_uri = session.open(b)
    await session.diagnostics(b_uri, lambda d: "duplicate_case_id" in codes(d))
    shutil.rmtree(folder)
    session.file_events((folder, types.FileChangeType.Deleted))
    await session.diagnostics(b_uri, lambda d: "duplicate_case_id" not in codes(d))


async def test_workspace_folders_can_be_added(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    first, _a, _b = two_fixtures(tmp_path)
    second = make_repo(tmp_path / "second")
    broken = second / "skills" / "x" / "evals" / "broken.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{", encoding="utf-8")
    await session.initialize([first])
    params = types.WorkspaceDiagnosticParams(previous_result_ids=[])
    before = await session.client.workspace_diagnostic_async(params)
    assert broken.as_uri() not in {item.uri for item in before.items}

    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=second.as_uri(), name="second")], removed=[]
            )
        )
    )

    async def has_broken() -> bool:
        report = await session.client.workspace_diagnostic_async(params)
        items = {item.uri: item for item in report.items}
        return broken.as_uri() in items and "invalid_json" in codes(items[broken.as_uri()].items)

    for _ in range(100):
        if await has_broken():
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the added folder's files are not in the workspace diagnostics")


async def test_one_notification_of_many_changed_fixtures_is_absorbed_whole(
    pull_session: Session, tmp_path: Path
) -> None:
    """A checkout rewrites more fixture files than one sync applies (``SYNC_SLICE``); the one
    whose new id duplicates the open file's comes last: the open file's diagnostics still show
    it, every slice being applied without another event or edit."""
    session = pull_session
    root, a, b = two_fixtures(tmp_path)
    evals = root / "skills" / "demo" / "evals"
    others = [write_json(evals / f"m{i:03}.json", workflow_fixture("demo", [f"m-{i}"])) for i in range(150)]
    await session.initialize([root])
    b_uri = session.open(b)
    assert "duplicate_case_id" not in codes(await session.diagnostics(b_uri))

    for i, path in enumerate(others):
        write_json(path, workflow_fixture("demo", [f"m-{i}-new"]))
    write_json(a, workflow_fixture("demo", ["two"]))  # a.json sorts before b.json: b's id is a duplicate
    session.file_events(*((path, types.FileChangeType.Changed) for path in [*others, a]))
    await session.diagnostics(b_uri, lambda d: "duplicate_case_id" in codes(d))


async def test_first_workspace_pull_reports_progress_and_logs_what_it_read(
    pull_session: Session, tmp_path: Path
) -> None:
    """The pull client's first workspace/diagnostic reads every closed fixture file: it reports
    work-done progress (begin, a report with a percentage, end) and logs how many files it read
    in how long; a second one, with nothing to read, reports none."""
    session = pull_session
    root, _a, _b = two_fixtures(tmp_path)
    evals = root / "skills" / "demo" / "evals"
    for i in range(40):
        write_json(evals / f"m{i:03}.json", workflow_fixture("demo", [f"m-{i}"]))
    await session.initialize([root])
    items, _streamed = await session.workspace_diagnostic()
    assert len(items) == 42

    def values() -> list[object]:
        """The pass's own progress (the workspace-symbols pass at start-up reports too, and the
        answer, small, may reach the client before the notifications queued ahead of it)."""
        for values in session.client.progress_reports.values():
            begin = values[0] if values else None
            if isinstance(begin, types.WorkDoneProgressBegin) and begin.title == PROGRESS_TITLE:
                return list(values)
        return []

    await wait_until(lambda: any(isinstance(v, types.WorkDoneProgressEnd) for v in values()), "the end")
    kinds = [type(value).__name__ for value in values()]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert any(isinstance(v, types.WorkDoneProgressReport) and v.percentage == 100 for v in values())
    logged = [m.message for m in session.client.log_messages]
    assert any("42 of 42 closed fixture files read in" in message for message in logged), logged

    tokens = len(session.client.progress_reports)
    await session.workspace_diagnostic([types.PreviousResultId(uri=i.uri, value=i.result_id) for i in items])
    assert len(session.client.progress_reports) == tokens
