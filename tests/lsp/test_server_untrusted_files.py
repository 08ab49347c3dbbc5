"""The server on a repository nobody vetted: the workspace scan reads through the same confined core
as ``--check``, so a FIFO does not block its workers, a link to ``/dev/zero`` or ``/dev/stdin`` (its
own LSP input) is never read, and a fixture linked outside the repository never reaches a
diagnostic."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lsp_support import Session, codes, make_repo
from lsprotocol import types

SECRET = "SECRET-ab1e"


async def test_workspace_diagnostics_on_special_and_outside_files(
    pull_session: Session, tmp_path: Path
) -> None:
    session = pull_session
    root = make_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evals.json").write_text(json.dumps({"skill_name": SECRET, "evals": [{"id": SECRET}]}))
    suites = {
        name: root / "skills" / name / "evals" / "evals.json" for name in ("fifo", "zero", "stdin", "out")
    }
    for path in suites.values():
        path.parent.mkdir(parents=True)
    os.mkfifo(suites["fifo"])
    suites["zero"].symlink_to("/dev/zero")
    suites["stdin"].symlink_to("/dev/stdin")
    suites["out"].symlink_to(outside / "evals.json")
    fine = root / "skills" / "fine" / "evals" / "evals.json"
    fine.parent.mkdir(parents=True)
    fine.write_text('{"skill_name": "fine", "evals": [{"id": "a", "prompt": 1}]}', encoding="utf-8")
    await session.initialize([root])

    report = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    by_uri = {item.uri: item.items for item in report.items}
    assert codes(by_uri[suites["fifo"].as_uri()]) == ["file-unreadable"]
    assert "named pipe (FIFO)" in by_uri[suites["fifo"].as_uri()][0].message
    for name in ("zero", "stdin", "out"):
        assert codes(by_uri[suites[name].as_uri()]) == ["file-outside-repository"], name
    assert not any(SECRET in d.message for items in by_uri.values() for d in items)

    # The workers are free and the LSP input intact: an opened document is still served.
    uri = session.open(fine)
    assert "prompt-required" in codes(await session.diagnostics(uri))
