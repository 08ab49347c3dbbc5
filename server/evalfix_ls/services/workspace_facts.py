"""What features may know of the workspace beyond the document: a read-only view.

Fixture files per skill, the case ids each defines, the coverage tags in use (with counts and one
file using each), and which paths exist. Built over the same ``WorkflowIndex`` and
``FileSystemView`` the cross-file rules use, so the editor and the batch mode see the same facts;
features never write through it.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..contracts.workflow.index import CaseSummary, WorkflowIndex
from ..workspace.confine import is_inside
from ..workspace.view import FileSystemView
from ..workspace.walk import SKIPPED_DIRS, walk_directories

MAX_DIR_ENTRIES = 500  # a folder listing for path completion stops here


@dataclass(frozen=True, slots=True)
class TagUse:
    tag: str
    count: int  # cases that carry it (inherited tags count for each case)
    example: str  # one file that uses it (repository-relative)


@dataclass(frozen=True, slots=True)
class DirEntry:
    name: str
    is_dir: bool


def skill_of(rel_path: str | None) -> str | None:
    """``skills/<skill>/…`` → ``<skill>`` (None outside a skill folder)."""
    if not rel_path:
        return None
    parts = PurePosixPath(rel_path).parts
    for index, part in enumerate(parts[:-1]):
        if part == "skills" and index + 1 < len(parts) - 1:
            return parts[index + 1]
    return None


class WorkspaceFacts:
    """Facts of one repository. ``workflow_index`` may be None (no ``skills/`` folder, an unsaved
    buffer): the workflow facts are then empty."""

    def __init__(
        self,
        repo_root: Path | None,
        fs: FileSystemView | None = None,
        workflow_index: WorkflowIndex | None = None,
    ) -> None:
        self.repo_root = repo_root
        self.fs = fs or FileSystemView()
        self._index = workflow_index
        self._by_name: dict[str, list[Path]] | None = None  # paths_named's walk, done once

    @property
    def workflow_index(self) -> WorkflowIndex | None:
        """The repository's workflow index (read-only use: readiness)."""
        return self._index

    @classmethod
    def empty(cls) -> WorkspaceFacts:
        return cls(None)

    # -- fixture files and cases ---------------------------------------------------------------
    def workflow_files(self, skill: str | None = None) -> list[str]:
        """Workflow fixture files (batch order), of one skill when ``skill`` is given."""
        if self._index is None:
            return []
        files = self._index.files()
        return files if skill is None else [f for f in files if skill_of(f) == skill]

    def _case_summaries(self, rel_path: str) -> tuple[CaseSummary, ...]:
        return self._index.case_summaries(rel_path) if self._index is not None else ()

    def case_ids(self, rel_path: str) -> list[str]:
        """The normalized case ids of one workflow fixture file, in file order."""
        return [case.id for case in self._case_summaries(rel_path)]

    def id_sites(self, rel_path: str, case_id: str) -> list[tuple[int, int]]:
        """(start, end) offsets, in that file's text, of each case id equal to ``case_id``."""
        return [(case.id_start, case.id_end) for case in self._case_summaries(rel_path) if case.id == case_id]

    def coverage_tags(self, exclude_file: str | None = None) -> list[TagUse]:
        """Every coverage tag in use in the workflow fixtures, most used first (then by name).
        ``exclude_file`` leaves out one file (the document being edited reports its own)."""
        counts: Counter[str] = Counter()
        example: dict[str, str] = {}
        for rel_path in self.workflow_files():
            if rel_path == exclude_file:
                continue
            for case in self._case_summaries(rel_path):
                for tag in set(case.tags):
                    counts[tag] += 1
                    example.setdefault(tag, rel_path)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return [TagUse(tag, count, example[tag]) for tag, count in ranked]

    # -- paths -----------------------------------------------------------------------------------
    def resolve(self, rel_path: str, base: Path | None = None) -> Path | None:
        """``rel_path`` against ``base`` (default: the repository root); None when there is no
        base or the result leaves the repository."""
        base = base or self.repo_root
        if base is None:
            return None
        candidate = os.path.normpath(os.path.join(base, rel_path))
        if self.repo_root is not None and not _inside(candidate, self.repo_root):
            return None
        return Path(candidate)

    def paths_named(self, name: str) -> list[Path]:
        """Files and folders called ``name`` in the repository (sorted; links leading out of it,
        dot- and dependency folders left out). The repository is walked once per facts object (one
        request, one file's fixes), however many missing paths ask."""
        if self.repo_root is None:
            return []
        if self._by_name is None:
            self._by_name = _entries_by_name(self.repo_root)
        return sorted(path for path in self._by_name.get(name, ()) if self.exists(path))

    def exists(self, path: Path) -> bool:
        # Confined: a link inside the repository that leads out of it is not followed (nor tested).
        return (
            self.repo_root is not None
            and _inside(path, self.repo_root)
            and self.fs.exists(path, root=self.repo_root)
        )

    def leaves(self, path: Path) -> bool:
        """True when ``path`` lies in the repository by name but a link on the way leads out."""
        return (
            self.repo_root is not None
            and _inside(path, self.repo_root)
            and self.fs.leaves(path, self.repo_root)
        )

    def is_dir(self, path: Path) -> bool:
        return self.exists(path) and self.fs.is_dir(path, root=self.repo_root)

    def read_head(self, path: Path, limit: int) -> str | None:
        """The first ``limit`` bytes of a regular file inside the repository (links resolved
        without leaving it), or None."""
        if self.repo_root is None or not _inside(path, self.repo_root):
            return None
        return self.fs.read_head(path, limit, root=self.repo_root)

    def list_dir(self, directory: Path) -> list[DirEntry]:
        """The entries of a folder inside the repository (sorted, folders first, at most
        ``MAX_DIR_ENTRIES``; dot-entries left out); empty when it is not a folder."""
        if self.repo_root is None or not _inside(directory, self.repo_root):
            return []
        real = self.fs.resolve(directory, self.repo_root)
        if real is None:  # a linked folder outside: never listed
            return []
        try:
            with os.scandir(real) as entries:
                found = []
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    found.append(DirEntry(entry.name, entry.is_dir(follow_symlinks=False)))
                    if len(found) >= MAX_DIR_ENTRIES:
                        break
        except OSError:
            return []
        return sorted(found, key=lambda e: (not e.is_dir, e.name))


def _inside(path: str | Path, root: str | Path) -> bool:
    # Compared as normalised strings: building two ``Path``s per test cost most of the document
    # links of a 10 MB suite (two tests for each of its 35,000 path strings).
    return is_inside(os.path.abspath(path), os.path.abspath(root))


# Entries looked at before the walk of ``paths_named`` gives up: a code action must answer at once,
# even in a repository of a million files (there, no suggestion rather than a stalled lightbulb).
MAX_NAMED_ENTRIES = 50_000


def _entries_by_name(root: Path) -> dict[str, list[Path]]:
    by_name: dict[str, list[Path]] = {}
    seen = 0
    for dirpath, dirnames, filenames in walk_directories(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
        for entry in (*dirnames, *filenames):
            by_name.setdefault(entry, []).append(Path(dirpath) / entry)
        seen += len(dirnames) + len(filenames)
        if seen > MAX_NAMED_ENTRIES:
            break
    return by_name
