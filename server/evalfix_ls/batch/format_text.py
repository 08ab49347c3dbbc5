"""``--format text``: ``path:line:col: severity[code] message`` lines (1-based line, UTF-16 column
+ 1, what editors' "go to line:column" use), then the readiness table if asked, then the summary."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Severity
from ..parser.line_index import Encoding, LineIndex
from .run import Report


def to_text_lines(report: Report) -> Iterator[str]:
    for file in report.files:
        index = LineIndex(file.analysis.text)
        for f in sorted(file.analysis.findings, key=lambda f: f.sort_key):
            line, col = index.position(f.start, Encoding.UTF16)
            yield f"{file.display}:{line + 1}:{col + 1}: {f.severity.word}[{f.code}] {f.message}"
    if "readiness" in report.extra:
        from ..contracts.workflow.readiness import readiness_table

        yield from readiness_table(report.extra["readiness"])
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    yield (
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} "
        f"in {len(report.files)} file{'s' * (len(report.files) != 1)}"
    )
