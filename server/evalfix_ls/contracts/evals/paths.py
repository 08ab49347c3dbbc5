"""Paths in an evals.json: workspace escapes, sources outside ``evals/``, existence, discovery.

Relative paths in the file are resolved against the ``evals/`` directory (evals-json.md §2), with
Node's ``path.resolve`` semantics (``..`` collapses before the file system is asked). Destinations
and assertion paths are checked the way arc-skill-eval does it: textually, after normalisation
(``..env`` "escapes" too, §13). Existence goes through the analysis' ``FileSystemView``; an unsaved
buffer (no path) gets no existence checks.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from ...workspace.view import FileSystemView

# Directories arc-skill-eval's discovery never enters (evals-json.md §2); dot-directories neither.
DISCOVERY_SKIPPED_DIRS = frozenset(
    {".git", ".github", ".husky", ".idea", ".vscode", "coverage", "dist", "node_modules"}
)


def escapes_workspace(path: str) -> bool:
    """arc-skill-eval's escape test: the workspace-relative form is absolute or starts with ``..``."""
    if path.startswith("/"):
        return True
    return posixpath.normpath(path).startswith("..")


def leaves_directory(path: str) -> bool:
    """True when ``path`` is absolute or its normalised form goes above its base directory."""
    if path.startswith("/"):
        return True
    normal = posixpath.normpath(path)
    return normal == ".." or normal.startswith("../")


class SuitePaths:
    """Existence facts relative to a suite's ``evals/`` directory (None for an unsaved buffer).

    Confined to the repository root: a path that resolves outside it (``..``, an absolute path, a
    symbolic link) is never tested — ``leaves_repository`` says so, and the ``exists_*`` answer False.
    """

    __slots__ = ("evals_dir", "skill_dir", "fs", "repo_root")

    def __init__(self, file_path: Path | None, fs: FileSystemView, repo_root: Path | None = None) -> None:
        self.evals_dir = None if file_path is None else file_path.parent
        self.skill_dir = None if file_path is None else file_path.parent.parent
        self.fs = fs
        self.repo_root = repo_root

    @property
    def checkable(self) -> bool:
        return self.evals_dir is not None

    def leaves_repository(self, path: str) -> bool:
        """True when ``path`` (relative to ``evals/``) resolves outside the repository root."""
        return self.evals_dir is not None and self.fs.leaves(_joined(self.evals_dir, path), self.repo_root)

    def exists_in_evals(self, path: str) -> bool:
        return self._exists(self.evals_dir, path)

    def exists_in_skill(self, path: str) -> bool:
        return self._exists(self.skill_dir, path)

    def _exists(self, base: Path | None, path: str) -> bool:
        if base is None:
            return True
        return self.fs.exists(_joined(base, path), root=self.repo_root)


def _joined(base: Path, path: str) -> str:
    # os.path.join keeps an absolute path as it is, like path.resolve does.
    return os.path.normpath(os.path.join(base, path))


def discovery_problems(path: Path, repo_root: Path | None, fs: FileSystemView) -> list[str]:
    """Why arc-skill-eval's discovery would not find this suite (evals-json.md §2); empty if it would.

    A skill is a directory holding a regular file ``SKILL.md`` and ``evals/evals.json``; the walk
    from the repository root skips ignored and dot-directories and does not descend into a skill.
    """
    if path.name != "evals.json" or path.parent.name != "evals":
        return ["it is not at <skill>/evals/evals.json"]
    skill_dir = path.parent.parent
    problems = []
    skill_md = skill_dir / "SKILL.md"
    if not fs.leaves(skill_md, repo_root) and not fs.is_file(skill_md, root=repo_root):
        problems.append(f"there is no SKILL.md beside evals/ (in {skill_dir.name or skill_dir}/)")
    if repo_root is None:
        return problems
    try:
        parts = skill_dir.absolute().relative_to(repo_root.absolute()).parts
    except ValueError:
        return problems
    for name in parts:
        if name in DISCOVERY_SKIPPED_DIRS or name.startswith("."):
            problems.append(f"the walk skips directories named '{name}'")
            break
    # Every directory above the skill, from the repository root down: a skill there stops the walk.
    for depth in range(len(parts)):
        ancestor = repo_root.joinpath(*parts[:depth])
        if fs.is_file(ancestor / "SKILL.md", root=repo_root) and fs.is_file(
            ancestor / "evals" / "evals.json", root=repo_root
        ):
            shown = "/".join(parts[:depth]) or "."
            problems.append(f"it lies inside the skill '{shown}', and the walk does not enter a skill")
            break
    return problems


_FRONT_MATTER_NAME = re.compile(r"^name:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def skill_md_name(skill_dir: Path, fs: FileSystemView, repo_root: Path | None = None) -> str | None:
    """The ``name`` of SKILL.md's YAML front matter (a ``---`` block at the top), if any; never
    read when SKILL.md resolves outside the repository."""
    text = fs.read_text(skill_dir / "SKILL.md", root=repo_root)
    if not text or not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    block = text[3:end] if end >= 0 else ""
    match = _FRONT_MATTER_NAME.search(block)
    if match is None:
        return None
    name = match.group(1)
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "'\"":
        name = name[1:-1]
    return name or None
