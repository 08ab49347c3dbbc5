"""``workspace.walk.walk_directories``: ``os.walk`` without recursion — the same listing, the same
top-down order, pruned and reordered as the caller asks — except that a symbolic link is listed
with the files whatever it points at, and nothing is asked through it (issue 33)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalfix_ls.workspace import walk as walk_module
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


def links_as_files(walked: list[tuple[str, list[str], list[str]]]) -> list[tuple[str, list[str], list[str]]]:
    """``os.walk``'s listing with the link ``a/linked`` moved from the directories to the files."""
    return [
        (current, [d for d in dirs if d != "linked"], sorted([*files, *(d for d in dirs if d == "linked")]))
        for current, dirs, files in walked
    ]


def test_the_same_walk_as_os_walk_but_links_are_files(tmp_path: Path) -> None:
    root = tree(tmp_path)
    assert listing(walk_directories, root) == links_as_files(listing(os.walk, root))
    assert ("a", ["d"], ["linked", "z.json"]) in listing(walk_directories, root)  # not entered


class RecordingEntry:
    """A ``DirEntry`` that records each question asked *through* a link (``follow_symlinks``)."""

    def __init__(self, entry: os.DirEntry[str], followed: list[str]) -> None:
        self._entry = entry
        self._followed = followed
        self.name = entry.name
        self.path = entry.path

    def _ask(self, method: str, follow_symlinks: bool) -> object:
        if follow_symlinks and self._entry.is_symlink():
            self._followed.append(f"{method}({self.path})")
        return getattr(self._entry, method)(follow_symlinks=follow_symlinks)

    def is_dir(self, *, follow_symlinks: bool = True) -> object:
        return self._ask("is_dir", follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> object:
        return self._ask("is_file", follow_symlinks)

    def stat(self, *, follow_symlinks: bool = True) -> object:
        return self._ask("stat", follow_symlinks)

    def is_symlink(self) -> bool:
        return self._entry.is_symlink()


def test_nothing_is_asked_through_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link leading out of the repository (a directory, a file, nothing) is listed from the
    directory's own listing: no ``stat`` through it, which would already look outside. Before
    issue 33 ``DirEntry.is_dir()`` followed each link (``newfstatat(…, 0)`` under strace)."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "file.json").write_text("{}")
    root = tree(tmp_path / "repo")
    (root / "out-dir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "b/out-file.json").symlink_to(outside / "file.json")
    (root / "b/dangling.json").symlink_to(outside / "missing.json")
    followed: list[str] = []
    stats: list[str] = []
    real_scandir, real_stat = os.scandir, os.stat

    class RecordingScandir:
        def __init__(self, path: str) -> None:
            self._it = real_scandir(path)

        def __enter__(self) -> RecordingScandir:
            return self

        def __exit__(self, *exc: object) -> None:
            self._it.close()

        def __iter__(self) -> object:
            return (RecordingEntry(entry, followed) for entry in self._it)

    def recording_stat(path: object, *args: object, **kwargs: object) -> object:
        if kwargs.get("follow_symlinks", True):
            stats.append(str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walk_module.os, "scandir", RecordingScandir)
    monkeypatch.setattr(walk_module.os, "stat", recording_stat)
    walked = {os.path.relpath(here, root): (dirs, files) for here, dirs, files in walk_directories(root)}
    monkeypatch.undo()
    assert followed == [] and stats == []
    assert "out-dir" in walked["."][1] and "out-dir" not in walked  # a file, never entered
    assert {"out-file.json", "dangling.json"} <= set(walked["b"][1])
