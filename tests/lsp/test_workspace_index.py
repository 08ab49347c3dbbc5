"""The workspace index without a server (in-process): queued facts, case-less suites, folder events."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import make_repo, workflow_fixture, write_json

from evalfix_ls.config.model import Config
from evalfix_ls.contracts.detection import Walk
from evalfix_ls.lsp.workspace_index import FileEvent, WorkspaceIndex, may_hold_cases


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ('{"skill_name": "x", "evals": []}', False),
        ('{"cases": []}', True),
        ('{"examples": []}', True),
        ('{"c\\u0061ses": []}', True),  # an escaped member name
        ('{"c\\u0041SES": []}', False),  # other letters or case: not "cases"
        ('{"pattern": "[\\\\u4e00-\\\\u9fff]"}', False),  # an escaped backslash, then "u4e00"
    ],
)
def test_may_hold_cases(text: str, may: bool) -> None:
    assert may_hold_cases(text) == may


def test_a_case_less_suite_is_given_to_the_index_once(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    index = WorkspaceIndex()
    index.set_folders([root])
    suite = root / "skills" / "x" / "evals" / "evals.json"
    text = '{"skill_name": "x", "evals": []}'
    assert index.note_text(suite, root, text) is True  # first time: the index must learn it
    assert index.note_text(suite, root, text + " ") is False  # still case-less: no parse
    assert index.note_text(suite, root, '{"cases": []}') is True
    assert index.note_text(root / "README.json", root, "{}") is False  # not a fixture path


def test_a_case_less_suite_is_rechecked_around_the_edit_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalfix_ls.lsp import workspace_index
    from evalfix_ls.lsp.documents import Edit

    root = make_repo(tmp_path / "repo")
    index = WorkspaceIndex()
    index.set_folders([root])
    suite = root / "skills" / "x" / "evals" / "evals.json"
    prompt = "p" * 20_000
    text = '{"skill_name": "x", "evals": [{"id": 1, "prompt": "' + prompt + '"}]}'
    assert index.note_text(suite, root, text) is True
    scanned: list[int] = []
    real = workspace_index.may_hold_cases
    monkeypatch.setattr(workspace_index, "may_hold_cases", lambda t: scanned.append(len(t)) or real(t))
    at = text.index(prompt) + 100
    typed = text[:at] + "x" + text[at:]
    assert index.note_text(suite, root, typed, Edit(at, at, at + 1)) is False  # still case-less
    assert scanned and max(scanned) < 100  # only the window around the edit was read
    # an edit that completes a "cases" name across its boundary is seen
    half = typed[:at] + '"cas' + typed[at:]
    assert index.note_text(suite, root, half, Edit(at, at, at + 4)) is False
    whole = half[: at + 4] + 'es"' + half[at + 4 :]
    assert index.note_text(suite, root, whole, Edit(at + 4, at + 4, at + 7)) is True


def test_sync_reports_dependents_and_folder_events(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    a = write_json(root / "skills" / "d" / "evals" / "a.json", workflow_fixture("d", ["one"]))
    b = write_json(root / "skills" / "d" / "evals" / "b.json", workflow_fixture("d", ["two"]))
    index = WorkspaceIndex()
    index.set_folders([root])
    repo = index.repo(root)
    with repo.lock:
        assert repo.sync() == set()
    assert not repo.index_loaded  # a sync never loads the index (it holds the lock: issue 30)
    repo.ensure_index()
    generation = repo.index_generation
    index.note_text(a, root, a.read_text().replace('"one"', '"two"'))
    assert repo.index_generation > generation
    with repo.lock:
        assert repo.sync() == {"skills/d/evals/b.json"}  # b.json now repeats a.json's id
    folder = root / "skills" / "d" / "evals"
    touched = index.note_file_events([FileEvent(folder / "sub", 3)], is_open=lambda path: path == a)
    assert touched == {root}
    with repo.lock:
        affected = repo.sync()
    assert "skills/d/evals/b.json" in affected and b.exists()


def test_the_configured_walk_is_the_repository_s_and_reaches_its_index(tmp_path: Path) -> None:
    """``workflow_walk`` is set on the repository state where the configuration is read
    (``repo_for``); the index is built with it and takes a change at its next ``sync``."""
    root = tmp_path / "repo"  # no normalizer: the walk is off unless configured
    (root / ".git").mkdir(parents=True)
    fixture = write_json(root / "skills" / "x" / "evals" / "extra.json", workflow_fixture("x", ["one"]))
    index = WorkspaceIndex()
    index.set_folders([root])
    on = Config(walk=Walk(True, "settings (evalfix): workflowWalk"))
    repo = index.repo_for(fixture, on)
    workflow = repo.workflow_index()
    assert workflow is not None and workflow.walking
    assert index.repo_for(fixture, Config()) is repo  # one state per repository root
    assert workflow.walking  # told, not yet taken: analyses running now keep their classification
    repo.sync()
    assert not workflow.walking
