"""One file of a ``--check`` run: what ``plan`` decided about it, and the analysis of it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..analysis import Analysis, analyze
from ..contracts.detection import Walk
from ..workspace.confine import is_inside
from ..workspace.files import FileText, read_file
from ..workspace.view import FileSystemView, find_repo_root

if TYPE_CHECKING:
    from ..contracts.workflow.index import WorkflowIndex


class FileTask(NamedTuple):
    path: Path  # absolute
    explicit: bool  # named on the command line (not found by the walk)
    kind: str | None  # forced by configuration, else detected
    repo_root: Path
    display: str  # POSIX, relative to the report root
    walk: Walk | None = None  # the fixture walk forced on or off by configuration
    decided_by: str | None = None  # the configuration line that forced ``kind``


class Analyzer:
    """Analyses files with one file-system view and one ``WorkflowIndex`` per repository root
    (the cross-file rules: duplicate case ids, source refs)."""

    def __init__(self, fs: FileSystemView) -> None:
        self.fs = fs
        self.indexes: dict[Path, WorkflowIndex] = {}

    def analyze(self, task: FileTask) -> Analysis:
        """The file as ``--check`` reads it (confined, as a regular file), analysed."""
        file_text = read_file(task.path, read_root(task))
        analysis = self.analyze_text(task, file_text.text, file_text)
        # No output format reads the parse tree: a report of 10,000 files would only hold it.
        analysis.tree = None
        return analysis

    def analyze_text(self, task: FileTask, text: str, file_text: FileText | None = None) -> Analysis:
        return analyze(
            text,
            path=task.path,
            repo_root=task.repo_root,
            fs=self.fs,
            workspace=self.index_for(task),
            explicit=task.explicit,
            kind=task.kind,
            file_text=file_text,
            walk=task.walk,
            decided_by=task.decided_by,
        )

    def index_for(self, task: FileTask) -> WorkflowIndex:
        """The repository's ``WorkflowIndex`` (one per root, for the cross-file rules)."""
        from ..contracts.workflow.index import WorkflowIndex

        index = self.indexes.get(task.repo_root)
        if index is None:
            index = self.indexes[task.repo_root] = WorkflowIndex(task.repo_root, self.fs, task.walk)
        return index


def read_root(task: FileTask) -> Path:
    """The directory a fixture's own path must not resolve out of: its repository root — or, for a
    file named (or walked) outside a given ``--root``, the repository it lies in (the command line
    chose it; a link inside it still may not lead elsewhere)."""
    if is_inside(os.path.abspath(task.path), os.path.abspath(task.repo_root)):
        return task.repo_root
    return find_repo_root(task.path)
