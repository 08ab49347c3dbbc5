"""Batch checking (``evalfix-ls --check``): which files, analysed how, reported in what shape.

The walk never reads contents to decide which files to take (specs/README.md, "Which contract
applies"): it collects every ``evals/evals.json`` and every ``*.json`` under ``<root>/skills/**/evals/``
and lets the pipeline classify each.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .analysis import Analysis, analyze
from .config import ProjectConfigs
from .document import Encoding, LineIndex
from .findings import Finding, Severity
from .textio import read_file
from .workspace import FileSystemView, find_repo_root

# Directories arc-skill-eval's discovery skips (evals-json.md §2); dot-directories are skipped too.
SKIPPED_DIRS = frozenset(
    {".git", ".github", ".husky", ".idea", ".vscode", "coverage", "dist", "node_modules"}
)


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
    for dirpath, dirnames, filenames in os.walk(directory):
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
    from .contracts import UNKNOWN, WORKFLOW
    from .contracts.workflow_index import WorkflowIndex

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
        from .contracts.readiness import readiness_report
        from .workspace import relative_posix

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


# -- output ----------------------------------------------------------------------------------------


def finding_range(index: LineIndex, finding: Finding, encoding: Encoding) -> dict[str, Any]:
    sl, sc = index.position(finding.start, encoding)
    el, ec = index.position(finding.end, encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def to_json(report: Report, version: str) -> dict[str, Any]:
    files = []
    for file in report.files:
        index = LineIndex(file.analysis.text)
        findings = [
            {
                "code": f.code,
                "severity": f.severity.word,
                "message": f.message,
                "pointer": f.pointer,
                "case": f.case,
                "range": finding_range(index, f, Encoding.UTF16),
            }
            for f in sorted(file.analysis.findings, key=lambda f: f.sort_key)
        ]
        files.append({"path": file.display, "kind": file.analysis.kind, "findings": findings})
    out: dict[str, Any] = {
        "version": version,
        "root": report.root.as_posix(),
        "files": files,
        "summary": {
            "files": len(files),
            "errors": report.count(Severity.ERROR),
            "warnings": report.count(Severity.WARNING),
            "information": report.count(Severity.INFORMATION),
            "hints": report.count(Severity.HINT),
        },
    }
    out.update(report.extra)
    return out


def to_text_lines(report: Report) -> Iterator[str]:
    for file in report.files:
        index = LineIndex(file.analysis.text)
        for f in sorted(file.analysis.findings, key=lambda f: f.sort_key):
            line, col = index.position(f.start, Encoding.UTF16)
            yield f"{file.display}:{line + 1}:{col + 1}: {f.severity.word}[{f.code}] {f.message}"
    if "readiness" in report.extra:
        from .contracts.readiness import readiness_table

        yield from readiness_table(report.extra["readiness"])
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    yield (
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} "
        f"in {len(report.files)} file{'s' * (len(report.files) != 1)}"
    )
