"""Batch checking (``evalfix-ls --check``): which files (``workspace.walk``), analysed how, into a
``Report`` that the output formats (``format_text``, ``format_json``) print."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis import Analysis, analyze
from ..config import ProjectConfigs
from ..findings import Severity
from ..workspace.files import read_file
from ..workspace.view import FileSystemView, find_repo_root
from ..workspace.walk import default_root, walk


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
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. readiness

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
        path = raw.absolute()
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


def check_paths(
    paths: list[Path],
    *,
    root: Path | None = None,
    cwd: Path | None = None,
    fs: FileSystemView | None = None,
    readiness: bool = False,
    configs: ProjectConfigs | None = None,
) -> Report:
    """Analyse PATHS. One ``WorkflowIndex`` per repository root serves the cross-file rules (it
    reads the repository's fixture files only when a workflow fixture asks); ``readiness`` adds
    the per-skill readiness report under ``report.extra["readiness"]``. ``configs`` gives each
    file its project configuration (``config.py``: extra globs, forced kinds, severities, root)."""
    from ..contracts.detection import UNKNOWN, WORKFLOW
    from ..contracts.workflow.index import WorkflowIndex

    cwd = (cwd or Path.cwd()).absolute()
    explicit_root = root is not None
    report_root = root.absolute() if root else default_root(cwd)
    if explicit_root and not report_root.is_dir():
        raise CheckError(f"--root {root}: not a directory")
    fs = fs or FileSystemView()
    report = Report(report_root)
    indexes: dict[Path, WorkflowIndex] = {}
    configs = configs or ProjectConfigs()
    for path, explicit in _with_configured_files(collect(paths or [cwd]), paths or [cwd], configs):
        config = configs.for_path(path)
        kind = config.kind_for(path)
        if kind == UNKNOWN and not explicit:
            continue  # excluded by configuration
        repo_root = report_root if explicit_root else (config.root or find_repo_root(path))
        file_text = read_file(path)
        index = indexes.get(repo_root) or indexes.setdefault(repo_root, WorkflowIndex(repo_root, fs))
        analysis = analyze(
            file_text.text,
            path=path,
            repo_root=repo_root,
            fs=fs,
            workspace=index,
            explicit=explicit,
            kind=kind,
            file_text=file_text,
        )
        analysis.findings = config.apply(analysis.findings)
        display = Path(os.path.relpath(path, report_root)).as_posix()
        report.files.append(FileReport(path, display, analysis, repo_root))
    if readiness:
        from ..contracts.workflow.readiness import readiness_report
        from ..workspace.view import relative_posix

        checked = [
            (f.repo_root, relative_posix(f.path, f.repo_root))
            for f in report.files
            if f.analysis.kind == WORKFLOW
        ]
        report.extra["readiness"] = readiness_report(checked, indexes, fs)
    return report


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
