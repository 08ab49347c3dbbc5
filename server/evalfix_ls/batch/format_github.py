"""``--format github``: one GitHub Actions workflow command per finding, which the runner turns
into an annotation on the file and line, then the summary line.

``::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=CODE::MESSAGE``. Lines and columns
are 1-based, columns in UTF-16 code units (as in the text output); ``endColumn`` is the column
just after the finding. Errors are ``error``, warnings ``warning``, information and hints
``notice``. Values are escaped the way the runner unescapes them (``@actions/core``): ``%``, CR
and LF in the message; those and ``:`` and ``,`` in properties, where they would end the value.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Finding, Severity
from ..text.line_index import Encoding, LineIndex
from .format_text import printable, shown_message, summary_lines
from .run import FileReport, Report

COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}


def escape_data(value: str) -> str:
    """A command's message (after ``::``); the other controls as ``printable`` writes them."""
    return printable(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    """A property value (``file=…``, ``title=…``): also ``:`` and ``,``, which end it."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(display: str, index: LineIndex, finding: Finding) -> str:
    line, col = index.position(finding.start, Encoding.UTF16)
    end_line, end_col = index.position(finding.end, Encoding.UTF16)
    properties = ",".join(
        f"{name}={escape_property(str(value))}"
        for name, value in (
            ("file", display),
            ("line", line + 1),
            ("col", col + 1),
            ("endLine", end_line + 1),
            ("endColumn", end_col + 1),
            ("title", finding.code),
        )
    )
    return f"::{COMMANDS[finding.severity]} {properties}::{escape_data(shown_message(finding.message))}"


def file_lines(file: FileReport) -> Iterator[str]:
    index = LineIndex(file.analysis.text)
    for finding in sorted(file.analysis.findings, key=lambda f: f.sort_key):
        yield annotation(file.display, index, finding)


def to_github_lines(report: Report) -> Iterator[str]:
    for file in report.files:
        yield from file_lines(file)
    yield from summary_lines(report)
