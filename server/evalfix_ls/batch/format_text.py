"""``--format text``: ``path:line:col: severity[code] message`` lines (1-based line, UTF-16 column
+ 1, what editors' "go to line:column" use), then the readiness table if asked, then the summary.

``file_lines`` prints one file, so that ``--check`` can stream them as files are checked."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Severity
from ..parser.line_index import Encoding, LineIndex
from .run import FileReport, Report


def file_lines(file: FileReport) -> Iterator[str]:
    index = LineIndex(file.analysis.text)
    for f in sorted(file.analysis.findings, key=lambda f: f.sort_key):
        line, col = index.position(f.start, Encoding.UTF16)
        yield f"{file.display}:{line + 1}:{col + 1}: {f.severity.word}[{f.code}] {f.message}"


def summary_lines(report: Report) -> Iterator[str]:
    """The readiness table (with ``--readiness``), then ``N errors, M warnings in K files``."""
    if report.readiness is not None:
        from ..contracts.workflow.readiness import readiness_table

        yield from readiness_table(report.readiness)
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    yield (
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} "
        f"in {len(report.files)} file{'s' * (len(report.files) != 1)}"
    )
