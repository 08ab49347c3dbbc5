"""Batch checking (``evalfix-ls --check``): which files (``workspace.walk``), analysed how, into a
``Report`` that the output formats (``format_text``, ``format_json``, ``format_sarif``,
``format_github``) print.

``plan`` decides the files and everything about each one that depends on the others (kind,
repository root, display path); ``check_paths`` analyses them in that order, in this process or
spread over worker processes (``parallel.py``), and hands each ``FileReport`` to ``on_file`` as
soon as it and every file before it are done, so output streams in a deterministic order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis import Analysis
from ..config.project_config import ProjectConfigs
from ..findings import Severity
from ..workspace.view import FileSystemView, find_repo_root
from ..workspace.walk import default_root, walk
from .analyze import Analyzer, FileTask

if TYPE_CHECKING:  # the readiness module is imported by --readiness only
    from ..contracts.workflow.readiness import ReadinessSummary


@dataclass(slots=True)
class FileReport:
    path: Path  # absolute
    display: str  # POSIX, relative to the report root
    analysis: Analysis
    repo_root: Path


@dataclass(slots=True)
class Report:
    root: Path
    files: list[FileReport] = field(default_factory=list)
    # ``--readiness``: per skill directory, its buckets (``contracts.workflow.readiness``)
    readiness: dict[str, ReadinessSummary] | None = None

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.files for finding in f.analysis.findings if finding.severity == severity)


class CheckError(Exception):
    """A usage problem: a PATH that does not exist, an unusable root."""


def collect(paths: Iterable[Path]) -> list[tuple[Path, bool]]:
    """(file, explicit) pairs in a stable order, without repeats. Raises CheckError for a PATH
    that does not exist."""
    seen: set[Path] = set()
    out: list[tuple[Path, bool]] = []
    for raw in paths:
        path = _without_dot_dot(raw.absolute())
        if not path.exists():
            raise CheckError(f"{raw}: no such file or directory")
        if path.is_dir():
            for found in walk(path):
                if found not in seen:
                    seen.add(found)
                    out.append((found, False))
        elif path not in seen:
            seen.add(path)
            out.append((path, True))
    return out


def _without_dot_dot(path: Path) -> Path:
    """``path`` with its ``..`` segments resolved in writing when that names the same file, so that
    a file named as ``evals/../evals/evals.json`` and found by the walk is checked once. (After a
    link to a folder, ``..`` leads to the target's parent: such a path is kept as it is.)"""
    lexical = Path(os.path.normpath(path))
    try:
        return lexical if lexical == path or os.path.samefile(lexical, path) else path
    except OSError:
        return path


def plan(
    paths: list[Path], *, root: Path | None, cwd: Path, configs: ProjectConfigs
) -> tuple[Path, list[FileTask]]:
    """The report root and the files to analyse, in output order. ``configs`` gives each file
    its project configuration (``config/``: extra globs, forced kinds, root)."""
    from ..contracts.detection import UNKNOWN

    explicit_root = root is not None
    report_root = root.absolute() if root else default_root(cwd)
    if explicit_root and not report_root.is_dir():
        raise CheckError(f"--root {root}: not a directory")
    tasks = []
    for path, explicit in _with_configured_files(collect(paths or [cwd]), paths or [cwd], configs):
        config = configs.for_path(path)
        mapping = config.mapping_for(path)
        kind = mapping.kind if mapping is not None else None
        if kind == UNKNOWN and not explicit:
            continue  # excluded by configuration
        repo_root = report_root if explicit_root else (config.root or find_repo_root(path))
        display = Path(os.path.relpath(path, report_root)).as_posix()
        decided_by = mapping.origin if mapping is not None else None
        tasks.append(FileTask(path, explicit, kind, repo_root, display, config.walk, decided_by))
    return report_root, tasks


def check_paths(
    paths: list[Path],
    *,
    root: Path | None = None,
    cwd: Path | None = None,
    fs: FileSystemView | None = None,
    readiness: bool = False,
    configs: ProjectConfigs | None = None,
    jobs: int = 1,
    on_file: Callable[[FileReport], None] | None = None,
) -> Report:
    """Analyse PATHS with up to ``jobs`` processes. The cross-file rules read the repository's
    fixture files through one ``WorkflowIndex`` per repository root and process, so every file
    gets the same findings whichever process checks it; ``readiness`` adds the per-skill
    readiness report as ``report.readiness``."""
    from .parallel import analyze_all

    configs = configs or ProjectConfigs()
    report_root, tasks = plan(paths, root=root, cwd=(cwd or Path.cwd()).absolute(), configs=configs)
    analyzer = Analyzer(fs or FileSystemView())
    report = Report(report_root)
    for task, analysis in analyze_all(tasks, analyzer, jobs):
        analysis.findings = configs.for_path(task.path).apply(analysis.findings)
        file = FileReport(task.path, task.display, analysis, task.repo_root)
        report.files.append(file)
        if on_file is not None:
            on_file(file)
    if readiness:
        report.readiness = _readiness(report, analyzer)
    return report


def _readiness(report: Report, analyzer: Analyzer) -> dict[str, ReadinessSummary]:
    from ..contracts.detection import WORKFLOW
    from ..contracts.workflow.readiness import readiness_report
    from ..workspace.view import relative_posix

    checked = [
        (f.repo_root, relative_posix(f.path, f.repo_root))
        for f in report.files
        if f.analysis.kind == WORKFLOW
    ]
    return readiness_report(checked, analyzer.indexes, analyzer.fs)


def _with_configured_files(
    found: list[tuple[Path, bool]], paths: list[Path], configs: ProjectConfigs
) -> list[tuple[Path, bool]]:
    """The walk's files plus those a ``files`` glob of the project configuration maps to a
    contract below each directory of PATHS."""
    seen = {path for path, _ in found}
    extra = []
    for raw in paths:
        directory = raw.absolute()
        if directory.is_dir():
            for path in configs.for_directory(directory).extra_files(directory):
                if path not in seen:
                    seen.add(path)
                    extra.append((path, False))
    return found + extra
