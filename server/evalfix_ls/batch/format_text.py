"""``--format text``: ``path:line:col: severity[code] message`` lines (1-based line, UTF-16 column
+ 1, what editors' "go to line:column" use), then the readiness table if asked, then the summary.

``file_lines`` prints one file, so that ``--check`` can stream them as files are checked.

Messages quote the fixture's own values and paths name its files, and both may hold characters a
terminal or a log acts on instead of showing; ``printable`` writes those as escapes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..findings import Severity
from ..text.line_index import Encoding, LineIndex
from .run import FileReport, Report

# C0 and C1 controls (a CR or LF would start a new output line, which a GitHub Actions log may
# read as a workflow command, and ESC starts terminal escape sequences), the Unicode line and
# paragraph separators, and the bidirectional overrides that reorder what is shown. Tabs stay.
UNSHOWABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def printable(text: str) -> str:
    """``text`` with every character a terminal or log viewer would act on written as an escape
    (``\\n``, ``\\r``, ``\\u001b``…), so that one finding stays one line that shows what it holds."""
    return UNSHOWABLE.sub(
        lambda found: _SHORT_ESCAPES.get(found.group()) or f"\\u{ord(found.group()):04x}", text
    )


# A message quotes the fixture's values whole (the workflow contract's as the reference writes
# them): a line of a megabyte helps no reader, so the human-facing lines keep its two ends.
SHOWN_HEAD, SHOWN_TAIL = 900, 100


def shown_message(message: str) -> str:
    """``message`` for a line people read: whole up to ``SHOWN_HEAD + SHOWN_TAIL`` characters, else
    its start and end around the count of characters left out (``--format json`` and SARIF keep it
    whole)."""
    if len(message) <= SHOWN_HEAD + SHOWN_TAIL:
        return message
    left_out = len(message) - SHOWN_HEAD - SHOWN_TAIL
    return f"{message[:SHOWN_HEAD]}… ({left_out:,} characters left out) …{message[-SHOWN_TAIL:]}"


def stderr_line(text: str) -> str:
    """One line for stderr (``--fix``'s report, configuration warnings, errors): ``printable``, and
    a lone surrogate (``"\\uDFAA"`` in a fixture or a project file) as its escape, which the
    stream's UTF-8 could not encode."""
    from ..js.values import escape_lone_surrogates

    return escape_lone_surrogates(printable(text))


def file_lines(file: FileReport) -> Iterator[str]:
    index = LineIndex(file.analysis.text)
    for f in sorted(file.analysis.findings, key=lambda f: f.sort_key):
        line, col = index.position(f.start, Encoding.UTF16)
        where = f"{file.display}:{line + 1}:{col + 1}"
        yield printable(f"{where}: {f.severity.word}[{f.code}] {shown_message(f.message)}")


def summary_lines(report: Report) -> Iterator[str]:
    """The readiness table (with ``--readiness``), then ``N errors, M warnings in K files``."""
    if report.readiness is not None:
        from ..contracts.workflow.readiness import readiness_table

        yield from map(printable, readiness_table(report.readiness))
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    yield (
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} "
        f"in {len(report.files)} file{'s' * (len(report.files) != 1)}"
    )
