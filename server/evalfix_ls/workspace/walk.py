"""The walk: which files below a directory are fixture candidates.

It never reads contents to decide (specs/README.md, "Which contract applies"): it takes every
``evals/evals.json`` and every ``*.json`` under ``<root>/skills/**/evals/`` and lets the pipeline
classify each. ``--check`` and the server's workspace index both walk with it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# Directories arc-skill-eval's discovery skips (evals-json.md §2); dot-directories are skipped too.
SKIPPED_DIRS = frozenset(
    {".git", ".github", ".husky", ".idea", ".vscode", "coverage", "dist", "node_modules"}
)


def walk_directories(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` (top-down; the caller may prune or reorder the directory names it is given;
    unreadable directories are passed over) without recursion and without following a link.
    Python 3.11's ``os.walk`` recurses once per level, so a repository with a directory chain
    about a thousand levels deep stopped ``--check`` with a ``RecursionError``.

    Every entry is classified by ``lstat`` (``DirEntry.is_dir(follow_symlinks=False)``: the type
    the directory listing gives, no system call at all on Linux), so a symbolic link is listed
    with the *files*, whatever it points at, and never entered. Asking whether a link leads to a
    directory would mean a ``stat`` through it, and for a link that leaves the repository that is
    already a look outside (``strace`` showed one ``newfstatat(…, 0)`` per link, issue 33):
    whoever wants a link's target resolves it with ``confine.resolve_within``, which never
    crosses the repository's edge."""
    pending = [os.fspath(top)]
    while pending:
        current = pending.pop()
        dirs: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    (dirs if _is_dir(entry) else files).append(entry.name)
        except OSError:
            continue
        yield current, dirs, files
        pending.extend(os.path.join(current, name) for name in reversed(dirs))  # popped in dirs' order


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def default_root(cwd: Path) -> Path:
    """The nearest ancestor (or ``cwd`` itself) holding ``.git``, else ``cwd``."""
    cwd = cwd.absolute()
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".git").exists():
            return candidate
    return cwd


def walk(directory: Path) -> Iterator[Path]:
    """Fixture candidates below ``directory``: every ``evals/evals.json`` and every ``*.json``
    below a ``skills/`` directory with a later ``evals`` segment. Inside ``skills/`` nothing is
    skipped (the reference skips nothing there); elsewhere arc-skill-eval's ignored directories
    and dot-directories are."""
    # Segments between the repository (nearest .git) and ``directory``: walking ``skills/demo``
    # is inside ``skills/`` too, while a checkout placed under some ``…/skills/…`` is not.
    base = default_root(directory)
    prefix = directory.absolute().parts[len(base.parts) :] if base != directory.absolute() else ()
    for dirpath, dirnames, filenames in walk_directories(directory):
        current = Path(dirpath)
        parts = current.relative_to(directory).parts
        inside_skills = (directory.name == "skills") or "skills" in prefix + parts
        if not inside_skills:
            dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith(".")]
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".json"):
                continue
            path = current / name
            if (
                name == "evals.json"
                and current.name == "evals"
                or _below_skills_evals(directory.parts + parts)
                and not path.is_symlink()
            ):
                yield path


def _below_skills_evals(dir_parts: tuple[str, ...]) -> bool:
    """True when some ``skills`` segment is followed by an ``evals`` segment."""
    return any(part == "skills" and "evals" in dir_parts[index + 1 :] for index, part in enumerate(dir_parts))
