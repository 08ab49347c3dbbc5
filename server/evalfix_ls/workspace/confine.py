"""Paths confined to the repository: where a path really leads, decided without touching anything
outside the repository root.

``--check`` runs in CI on pull requests from strangers and its output is published, so a crafted
repository must not make evalfix-ls read the runner's files, nor tell an existing outside path from a
missing one. Every path a rule tests or reads is first resolved here: ``..`` and symbolic links,
component by component, from the root down. The walk only ever ``lstat``s and ``readlink``s entries
inside the root; the moment a step would leave it (a ``..`` above the root, a link whose target lies
outside), the answer is "outside" and nothing further is asked of the file system.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# As Linux's MAXSYMLINKS: more links than this on one path is a loop (the OS says ELOOP).
_MAX_LINKS = 40


def real_root(root: str | Path) -> str:
    """The root as the walk compares it: absolute, its own links resolved (the root is trusted)."""
    return os.path.realpath(os.fspath(root))


def is_inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def resolve_within(path: str | Path, root: str | Path) -> str | None:
    """The path ``path`` really names, when it and every link on the way stay inside ``root``;
    None when it leaves the root.

    ``path`` is absolute or relative to the current directory, and is normalised lexically first
    (``a/../b`` is ``b``), as Node's ``path.join`` / ``path.resolve`` do before the file system is
    asked. A missing component ends the walk: the rest cannot hold links, and is joined lexically.
    """
    root_real = real_root(root)
    lexical = os.path.abspath(os.fspath(path))
    relative = _relative_to(lexical, os.path.abspath(os.fspath(root)))
    if relative is None:
        relative = _relative_to(lexical, root_real)  # spelled through the root's real path
    if relative is None:
        return None
    return _walk(root_real, relative)


def _relative_to(path: str, root: str) -> list[str] | None:
    if not is_inside(path, root):
        return None
    rest = path[len(root) :].lstrip(os.sep)
    return [part for part in rest.split(os.sep) if part] if rest else []


def _walk(root: str, parts: list[str]) -> str | None:
    pending = list(reversed(parts))  # a stack: a link's target parts go on top
    current = root
    links = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if current == root:
                return None  # above the root
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        try:
            mode = os.lstat(candidate).st_mode
        except (OSError, ValueError):
            # Missing (or not a directory): nothing below it exists, so no link either.
            rest = os.path.normpath(os.path.join(candidate, *reversed(pending)))
            return rest if is_inside(rest, root) else None
        if not stat.S_ISLNK(mode):
            current = candidate
            continue
        links += 1
        if links > _MAX_LINKS:
            return candidate  # a loop inside the repository: stat fails on it (missing)
        try:
            target = os.readlink(candidate)
        except (OSError, ValueError):  # replaced meanwhile: ask again later
            return candidate
        if os.path.isabs(target):
            inner = _relative_to(target, root)  # textually: normalising could skip a link
            if inner is None:
                return None
            current = root
            pending.extend(reversed(inner))
        else:
            pending.extend(reversed([p for p in target.split(os.sep) if p]))
    return current
