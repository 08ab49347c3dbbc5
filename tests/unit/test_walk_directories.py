"""``workspace.walk.walk_directories``: ``os.walk`` without recursion — the same listing, the same
top-down order, pruned and reordered as the caller asks, links to directories listed and not
entered."""

from __future__ import annotations

import os
from pathlib import Path

from evalfix_ls.workspace.walk import walk_directories


def tree(root: Path) -> Path:
    for rel in ("b/x.json", "b/c/y.json", "a/z.json", "skip/w.json", "top.json", "a/d/e/f/v.json"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("{}")
    (root / "a/linked").symlink_to(root / "b", target_is_directory=True)
    return root


def listing(walker: object, root: Path) -> list[tuple[str, list[str], list[str]]]:
    seen = []
    for current, dirs, files in walker(root):  # type: ignore[operator]
        dirs[:] = sorted(d for d in dirs if d != "skip")  # pruned and ordered by the caller
        seen.append((os.path.relpath(current, root), list(dirs), sorted(files)))
    return seen


def test_the_same_walk_as_os_walk(tmp_path: Path) -> None:
    root = tree(tmp_path)
    assert listing(walk_directories, root) == listing(os.walk, root)
    assert ("a", ["d", "linked"], ["z.json"]) in listing(walk_directories, root)  # listed, not entered
