"""What the analysis may know about the world outside the document: the file system.

Rules never touch the disk directly; they ask a ``FileSystemView``. The batch mode uses a cached
view of the real file system; the language server keeps one per workspace and invalidates it when
files change, so existence checks and cross-file rules stay cheap on every keystroke.
"""

from __future__ import annotations

import itertools
import os
import stat
from pathlib import Path

from .confine import resolve_within
from .files import NotRegularFile, TooLarge, read_regular

_GENERATIONS = itertools.count(1)
_OUTSIDE = -1  # a _kind: the path leaves the repository root (never looked at)


class FileSystemView:
    """Cached existence facts about real files. Cheap to query repeatedly."""

    def __init__(self) -> None:
        self._stat_cache: dict[str, int] = {}  # path → 0 missing, 1 file, 2 dir, 3 other
        # (root, path) → the real path inside root, or None when it leaves root (confine.py)
        self._resolved: dict[tuple[str, str], str | None] = {}
        # Paths whose content a rule read (``read_text``/``read_head``, uncached): a change of
        # their content changes a fact, unlike one of a file only ever asked about by kind.
        self._read: set[str] = set()
        # Changes whenever cached facts are dropped; results computed from this view (e.g. cached
        # per-case findings) are valid only for the generation they were computed in. Unique
        # across views, so a new view never matches an old one's results.
        self.generation = next(_GENERATIONS)

    def _kind(self, path: str) -> int:
        cached = self._stat_cache.get(path)
        if cached is not None:
            return cached
        kind = self._stat(path)
        self._stat_cache[path] = kind
        return kind

    @staticmethod
    def _stat(path: str) -> int:
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            return 0
        return 1 if stat.S_ISREG(mode) else 2 if stat.S_ISDIR(mode) else 3

    def resolve(self, path: str | Path, root: str | Path) -> str | None:
        """Where ``path`` really leads when that is inside ``root`` (``..`` and links resolved
        without looking outside it), else None: the path leaves the repository."""
        key = (os.fspath(root), os.fspath(path))
        if key not in self._resolved:
            resolved = resolve_within(path, root)
            # Usually the path as given (no link on the way, already normal): then the given
            # string is kept, not an equal copy (30,000 seeded sources at 10,000 skills: ~4 MB).
            self._resolved[key] = key[1] if resolved == key[1] else resolved
        return self._resolved[key]

    def leaves(self, path: str | Path, root: str | Path | None) -> bool:
        """True when ``path`` resolves outside the repository ``root`` (never with no root)."""
        return root is not None and self.resolve(path, root) is None

    def _confined_kind(self, path: str | Path, root: str | Path | None) -> int:
        if root is None:
            return self._kind(os.fspath(path))
        resolved = self.resolve(path, root)
        if resolved is None:
            return _OUTSIDE
        kind = self._kind(resolved)
        # Resolution drops a trailing slash; the OS then wants a directory (``SKILL.md/`` is missing).
        return 0 if kind != 2 and os.fspath(path).endswith(("/", os.sep)) else kind

    # With a ``root``, a path that leaves it is neither a file nor missing: it is never looked
    # at, and these answer False; rules ask ``leaves`` first to say so.
    def exists(self, path: str | Path, root: str | Path | None = None) -> bool:
        return self._confined_kind(path, root) > 0

    def is_file(self, path: str | Path, root: str | Path | None = None) -> bool:
        return self._confined_kind(path, root) == 1

    def is_dir(self, path: str | Path, root: str | Path | None = None) -> bool:
        return self._confined_kind(path, root) == 2

    def read_text(
        self, path: str | Path, limit: int = 64 * 1024, root: str | Path | None = None
    ) -> str | None:
        """The first ``limit`` bytes of a small regular file as UTF-8 text, or None when it cannot
        be read, is not a regular file (a FIFO would block) or, with a ``root``, leaves it.

        Deliberately not cached (so never stale): rules read only small files such as a SKILL.md
        front matter, once per analysis."""
        target = self._target_to_read(path, root)
        if target is None:
            return None
        try:
            return read_regular(target, limit).decode("utf-8", "replace")
        except TooLarge:
            return None
        except (NotRegularFile, OSError, ValueError):
            return None

    def read_head(self, path: str | Path, limit: int, root: str | Path | None = None) -> str | None:
        """The first ``limit`` bytes of a regular file as UTF-8 text (a preview), or None when it
        cannot be read, is not a regular file or, with a ``root``, leaves it. Not cached."""
        target = self._target_to_read(path, root)
        if target is None:
            return None
        try:
            return read_regular(target, limit, head=True).decode("utf-8", "replace")
        except (NotRegularFile, OSError, ValueError):
            return None

    def _target_to_read(self, path: str | Path, root: str | Path | None) -> str | None:
        """The real file to read for ``path`` (None: it leaves ``root``), remembered as read
        before it is read, so a change event arriving meanwhile already finds it here."""
        target = os.fspath(path) if root is None else self.resolve(path, root)
        if target is not None:
            self._read.add(target)
        return target

    def content_change_matters(self, path: str | Path) -> bool:
        """Whether a "changed" event for ``path`` (its content written; neither created nor
        deleted) can change a fact this view answered, so results keyed by its generation must
        be computed again. The facts are kinds, link resolutions and the contents of the few
        files read: a regular file that was never read and whose cached kind (if any) is still
        "file" changes none of them (the editor saving a suite, say). In doubt, True: a link
        (its target may have moved), a directory or anything else that is not a regular file."""
        given = os.fspath(path)
        # The link test first: ``realpath`` of a link walks its target (``lstat`` and ``readlink``
        # of every component there), outside the repository when the link leads out (issue 33).
        if os.path.islink(given) or self._stat(given) != 1:
            return True
        names = {given, os.path.realpath(given)}
        if not names.isdisjoint(self._read):
            return True
        # Read from the loop while a worker fills the caches: single lookups, safe under the GIL.
        return any(self._stat_cache.get(name, 1) != 1 for name in names)

    def revalidate(self) -> bool:
        """Check every cached fact against the disk again; forget (and move the generation for)
        only those that changed. For clients without file events: facts expire, but results
        computed from unchanged facts stay valid. Returns whether anything changed."""
        changed = [path for path, kind in list(self._stat_cache.items()) if self._stat(path) != kind]
        for path in changed:
            self._stat_cache.pop(path, None)
        moved = [key for key, real in list(self._resolved.items()) if resolve_within(key[1], key[0]) != real]
        for key in moved:
            self._resolved.pop(key, None)
        changed += [path for _, path in moved]
        if changed:
            self.generation = next(_GENERATIONS)
        return bool(changed)

    def invalidate(self, path: str | Path | None = None) -> None:
        """Forget cached facts (all of them, or those at and below ``path``)."""
        self.generation = next(_GENERATIONS)
        self._resolved.clear()  # a link created, changed or removed anywhere changes resolutions
        if path is None:
            self._stat_cache.clear()
            return
        prefix = os.fspath(path)
        for key in [k for k in self._stat_cache if k == prefix or k.startswith(prefix + os.sep)]:
            del self._stat_cache[key]
        # A created or deleted entry changes its parents' existence too.
        parent = os.path.dirname(prefix)
        while parent and parent in self._stat_cache:
            del self._stat_cache[parent]
            new_parent = os.path.dirname(parent)
            if new_parent == parent:
                break
            parent = new_parent


def find_repo_root(path: Path, workspace_folders: list[Path] | None = None) -> Path:
    """The repository root for a file (workflow-fixtures.md §2.1).

    The workspace folder when the file lies under ``<folder>/skills/``; otherwise the nearest
    ancestor ``R`` with the file under ``R/skills/`` and ``R/.git`` present; otherwise the nearest
    ancestor with the file under ``R/skills/``; otherwise the nearest ancestor holding ``.git``;
    otherwise the file's directory.
    """
    path = path.absolute()
    for folder in workspace_folders or []:
        folder = folder.absolute()
        try:
            rel = path.relative_to(folder)
        except ValueError:
            continue
        if rel.parts[:1] == ("skills",):
            return folder
    skills_roots = [parent for parent in path.parents if path.relative_to(parent).parts[:1] == ("skills",)]
    for root in skills_roots:
        if (root / ".git").exists():
            return root
    if skills_roots:
        return skills_roots[0]
    for parent in path.parents:
        if (parent / ".git").exists():
            return parent
    for folder in workspace_folders or []:
        folder = folder.absolute()
        if folder in path.parents:
            return folder
    return path.parent


def relative_posix(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` as a POSIX string, or None when it lies outside."""
    try:
        return path.absolute().relative_to(root.absolute()).as_posix()
    except ValueError:
        return None
