"""Editor features look at the repository only: a link leading out of it lends nothing (no
completion of an outside folder's files, no symbols of an outside suite), and a FIFO where a file
is expected never blocks the worker that reads it (hover previews, Markdown anchors). Paths are
resolved through workspace/confine.py, as the rules do."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cursor_marker import document, split_cursor

from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.services.completion import complete
from evalfix_ls.services.hover import hover
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.services.workspace_symbols import workspace_symbols
from evalfix_ls.workspace.view import FileSystemView

SECRET = "SECRET-5e7f"
SUITE = "skills/demo/evals/evals.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """``repo/`` with a skill ``demo``; ``outside/`` beside it holds the secrets."""
    files = {
        "repo/.git/HEAD": "",
        "repo/skills/demo/SKILL.md": "---\nname: demo\n---\n",
        f"outside/{SECRET}.txt": SECRET,
        "outside/evals.json": json.dumps({"skill_name": "x", "evals": [{"id": SECRET}]}),
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "repo/skills/demo/evals").mkdir()
    return tmp_path / "repo"


def facts(root: Path) -> WorkspaceFacts:
    fs = FileSystemView()
    return WorkspaceFacts(root, fs, WorkflowIndex(root, fs))


def at(root: Path, marked: str, rel_path: str = SUITE) -> tuple[Any, int]:
    text, offset = split_cursor(marked)
    return document(text, root=root, rel_path=rel_path), offset


def finishes(call: Callable[[], Any], fifo: Path) -> Any:
    """``call()``'s result; a failure (not a hang of the suite) when it blocks on ``fifo``."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(call()), daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # releases the blocked open
        worker.join(timeout=5)
        pytest.fail(f"blocked on the FIFO {fifo.name}")
    return out[0]


def test_assertion_paths_never_list_a_linked_folder_outside(root: Path) -> None:
    (root / "skills/demo/evals/linked").symlink_to(root.parent / "outside")
    (root / "skills/demo/evals/inner").mkdir()
    (root / "skills/demo/evals/inner/kept.txt").write_text("x")
    view, offset = at(
        root,
        '{"evals": [{"setup": {"kind": "seeded", "sources": [{"from": "linked"}, {"from": "inner"}]},'
        ' "assertions": [{"kind": "workspace", "method": "exists", "path": "|"}]}]}',
    )
    labels = {item.label for item in complete(view, offset, facts(root))}
    assert "inner/kept.txt" in labels  # a folder inside is listed
    assert not any(SECRET in label for label in labels)


def test_the_suite_folder_itself_linked_outside_is_not_walked(root: Path) -> None:
    (root / "skills/other").mkdir()
    (root / "skills/other/evals").symlink_to(root.parent / "outside")
    view, offset = at(
        root,
        '{"evals": [{"assertions": [{"kind": "workspace", "method": "exists", "path": "|"}]}]}',
        "skills/other/evals/evals.json",
    )
    assert not any(SECRET in item.label for item in complete(view, offset, facts(root)))


def test_hover_on_a_fifo_does_not_block(root: Path) -> None:
    fifo = root / "skills/demo/evals/pipe"
    os.mkfifo(fifo)
    view, offset = at(root, '{"evals": [{"id": "a", "prompt": "p", "files": ["pi|pe"]}]}')
    found = finishes(lambda: hover(view, offset, facts(root)), fifo)
    assert "`skills/demo/evals/pipe` exists" in found.markdown and "not a regular file" in found.markdown


def test_hover_says_a_link_leads_outside(root: Path) -> None:
    (root / "skills/demo/evals/linked.txt").symlink_to(root.parent / "outside" / f"{SECRET}.txt")
    view, offset = at(root, '{"evals": [{"id": "a", "prompt": "p", "files": ["lin|ked.txt"]}]}')
    found = hover(view, offset, facts(root))
    assert "leads outside the repository" in found.markdown and SECRET not in found.markdown


def test_anchor_completion_on_a_fifo_does_not_block(root: Path) -> None:
    fifo = root / "docs/notes.md"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    view, offset = at(
        root, '{"source_refs": ["docs/notes.md#|"], "cases": []}', "skills/demo/evals/cases.json"
    )
    assert finishes(lambda: complete(view, offset, facts(root)), fifo) == []


def test_workspace_symbols_skip_a_suite_linked_outside(root: Path) -> None:
    (root / SUITE).symlink_to(root.parent / "outside" / "evals.json")
    inside = root / "skills/fine/evals/evals.json"
    inside.parent.mkdir(parents=True)
    inside.write_text(json.dumps({"skill_name": "fine", "evals": [{"id": "fine-case"}]}))
    found, _ = workspace_symbols("", [facts(root)], [root / SUITE, inside])
    assert [symbol.name for symbol in found] == ["fine-case"]


def test_hover_previews_the_head_of_a_large_file(root: Path) -> None:
    (root / "skills/demo/evals/big.txt").write_text("first line\n" + "x" * (1 << 20))
    view, offset = at(root, '{"evals": [{"id": "a", "prompt": "p", "files": ["bi|g.txt"]}]}')
    found = hover(view, offset, facts(root))
    assert "```\nfirst line\n" in found.markdown


def test_workspace_symbols_read_each_suite_once_while_it_is_unchanged(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every suite of a large workspace is read, parsed and resolved once, not again at each
    request (a cache of 512 entries was emptied by every request over 600 suites: issue 30);
    a suite whose size or modification time changed is read again."""
    import evalfix_ls.services.workspace_symbols as module

    module.forget_suite_ids()
    suites = []
    for n in range(600):
        suite = root / f"skills/s{n}/evals/evals.json"
        suite.parent.mkdir(parents=True)
        suite.write_text(json.dumps({"skill_name": f"s{n}", "evals": [{"id": f"case-{n}"}]}))
        suites.append(suite)
    reads: list[Path] = []
    real_read = module._suite_ids_read
    monkeypatch.setattr(module, "_suite_ids_read", lambda path: reads.append(path) or real_read(path))
    found, _ = workspace_symbols("zzz", [facts(root)], suites)
    assert found == [] and len(reads) == 600
    reads.clear()
    workspace_symbols("zzz", [facts(root)], suites)
    assert reads == []
    suites[7].write_text(json.dumps({"skill_name": "s7", "evals": [{"id": "renamed-case"}]}))
    found, _ = workspace_symbols("renamed", [facts(root)], suites)
    assert [symbol.name for symbol in found] == ["renamed-case"] and len(reads) == 1
