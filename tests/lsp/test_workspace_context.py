"""A workspace-wide request's context (``EvalfixServer.workspace_context``, built on the event loop)
works out the repository and configuration of each fixture file only when the discovery or the
settings changed (issue 30: per file, 12,000 in a monorepo, it was most of ``workspace/symbol``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import make_repo, workflow_fixture, write_json

from evalfix_ls.lsp.server import EvalfixServer


def test_the_files_of_the_workspace_are_worked_out_again_only_when_something_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "repo")
    for name in ("a", "b"):
        write_json(root / "skills" / name / "evals" / "cases.json", workflow_fixture(name, [f"{name}-1"]))
    server = EvalfixServer()
    try:
        server.workspace_index.set_folders([root])
        asked: list[Path] = []
        config_for = server.settings.config_for
        monkeypatch.setattr(
            server.settings, "config_for", lambda path: asked.append(path) or config_for(path)
        )
        first = server.workspace_context()
        assert len(asked) == 2 and [facts.repo_root for facts in first.facts] == [root]
        asked.clear()
        server.workspace_context()
        assert asked == []  # nothing changed: nothing worked out again
        write_json(root / "skills" / "c" / "evals" / "cases.json", workflow_fixture("c", ["c-1"]))
        server.workspace_index.forget_discovery()  # what a created file's event does
        server.workspace_context()
        assert len(asked) == 3
        asked.clear()
        server.settings.changed()
        server.workspace_context()
        assert len(asked) == 3
    finally:
        server.executor.shutdown()
