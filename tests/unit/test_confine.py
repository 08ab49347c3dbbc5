"""Paths confined to the repository (workspace/confine.py) and reading only regular files
(workspace/files.py): where a path leads is decided without touching anything outside the root, and
a FIFO, a device or a link out of the repository is never opened."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalfix_ls.workspace import confine, files
from evalfix_ls.workspace.confine import resolve_within
from evalfix_ls.workspace.files import read_file
from evalfix_ls.workspace.view import FileSystemView

SECRET = "SECRET-c0ffee"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``repo/`` with links inside it pointing in and out, and ``outside/`` beside it."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("a")
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (root / "out-dir").symlink_to(outside, target_is_directory=True)  # absolute, outside
    (root / "out-file").symlink_to(outside / "secret.txt")
    (root / "docs" / "climb").symlink_to("../../outside/secret.txt")  # relative, climbs out
    (root / "docs" / "deep" / "up").symlink_to("../a.md")  # relative, stays inside
    (root / "abs-in").symlink_to(root / "docs")  # absolute, inside
    (root / "loop").symlink_to("loop")
    return root, outside


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("docs/a.md", "docs/a.md"),
        ("docs/missing/x", "docs/missing/x"),  # missing: joined lexically, still inside
        ("docs/deep/up", "docs/a.md"),
        ("abs-in/a.md", "docs/a.md"),
        ("docs/../docs/a.md", "docs/a.md"),
        ("loop", "loop"),  # a loop inside the repository: stat fails later, it is missing
        ("../outside/secret.txt", None),
        ("out-dir/secret.txt", None),
        ("out-dir/missing", None),  # outside, whether or not it exists
        ("out-file", None),
        ("docs/climb", None),
        ("abs-in/../out-file", None),  # ".." resolved lexically first, as Node does: out-file
    ],
)
def test_resolution(layout: tuple[Path, Path], path: str, expected: str | None) -> None:
    root, _ = layout
    found = resolve_within(root / path, root)
    assert found == (None if expected is None else str(root.resolve() / expected))


def test_resolution_never_looks_outside_the_root(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = layout
    real, outside_real = str(root.resolve()), str(outside.resolve())
    ancestors = {str(parent) for parent in root.resolve().parents}  # resolving the root itself
    looked: list[str] = []
    plain_lstat, plain_readlink = os.lstat, os.readlink

    def lstat(path: str) -> os.stat_result:
        looked.append(str(path))
        return plain_lstat(path)

    def readlink(path: str) -> str:
        looked.append(str(path))
        return plain_readlink(path)

    monkeypatch.setattr(confine.os, "lstat", lstat)
    monkeypatch.setattr(confine.os, "readlink", readlink)
    for path in ("out-dir/secret.txt", "out-dir/a/b/c", "out-file", "docs/climb", "../outside/secret.txt"):
        assert resolve_within(root / path, root) is None
    assert looked, "the walk looked at nothing"
    assert all(confine.is_inside(path, real) or path in ancestors for path in looked), looked
    assert not any(path.startswith(outside_real) for path in looked), looked


def test_an_existing_and_a_missing_outside_path_look_the_same(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    fs = FileSystemView()
    for path in ("out-dir/secret.txt", "out-dir/nope", "../outside/secret.txt", "../outside/nope"):
        assert fs.leaves(root / path, root)
        assert not fs.exists(root / path, root=root)
        assert not fs.is_file(root / path, root=root)
        assert fs.read_text(root / path, root=root) is None
    assert fs.exists(root / "docs/deep/up", root=root) and not fs.leaves(root / "docs/a.md", root)


def test_read_file_does_not_open_a_file_outside_the_root(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = layout
    opened: list[str] = []
    plain_open = os.open

    def tracking_open(path: str, flags: int, *args: int) -> int:
        opened.append(str(path))
        return plain_open(path, flags, *args)

    monkeypatch.setattr(files.os, "open", tracking_open)
    for path in ("out-file", "docs/climb", "out-dir/secret.txt"):
        result = read_file(root / path, root)
        assert result.outside and result.unavailable and SECRET not in result.text
    assert opened == []
    assert read_file(root / "docs/deep/up", root).text == "a"  # a link inside is followed
    assert read_file(outside / "secret.txt").text == SECRET  # without a root, nothing is confined


def test_special_files_are_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "evals.json"
    os.mkfifo(fifo)
    # Opening a FIFO for reading blocks until a writer comes: read_file must say what it is instead.
    assert read_file(fifo).not_regular == "a named pipe (FIFO)"
    assert read_file(tmp_path).not_regular == "a directory"
    assert read_file(Path("/dev/null")).not_regular == "a character device"
    assert FileSystemView().read_text(fifo) is None


def test_reads_stop_at_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    with pytest.raises(files.TooLarge):
        files.read_regular(big, 1024)
    assert files.read_regular(big, 4096) == b" " * 2048


def test_the_view_keeps_one_string_for_a_path_that_needs_no_resolving(tmp_path: Path) -> None:
    """A fixture's seeded sources are asked once per suite and remembered: at 10,000 skills,
    30,000 of them; a second, equal string per path was ~4 MB of a monorepo server (issue 30)."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    view = FileSystemView()
    plain = os.path.join(str(tmp_path), "skills", "a", "evals", "files", "repo-1")
    assert view.resolve(plain, tmp_path) is plain
    through_link = os.path.join(str(tmp_path), "link", "x")
    assert view.resolve(through_link, tmp_path) == os.path.join(str(tmp_path), "real", "x")
    unnormal = os.path.join(str(tmp_path), "skills", ".", "b")
    assert view.resolve(unnormal, tmp_path) == os.path.join(str(tmp_path), "skills", "b")
