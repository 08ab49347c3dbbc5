"""``--format sarif``: SARIF 2.1.0 as GitHub code scanning reads it.

One run; ``tool.driver`` names evalfix-ls with its version and one rule per code that occurs
(``contracts/rule_docs.py``: what is wrong, how to fix it, the default level). Each result has
the code as ``ruleId``, a level, the message, the file as a repository-relative ``uri`` against
``uriBaseId`` ``SRCROOT`` (the report root), a region with 1-based lines and columns in UTF-16
code units (``columnKind: utf16CodeUnits``, SARIF's default) and its end, the JSON pointer as a
logical location, ``related`` places as ``relatedLocations``, and a ``partialFingerprints``
entry from code + pointer + file, so that an alert survives edits elsewhere in the file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import quote

from .. import PROJECT_URL
from ..contracts.codes import ALL_CODES, EVALS_CODES
from ..contracts.rule_docs import RULE_DOCS
from ..findings import Finding, Related, Severity
from ..text.line_index import Encoding, LineIndex
from ..workspace.files import read_file
from .run import FileReport, Report

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT_ID = "SRCROOT"
FINGERPRINT_KEY = "evalfixFinding/v1"
LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


def to_sarif(report: Report, version: str) -> dict[str, object]:
    codes = sorted({f.code for file in report.files for f in file.analysis.findings})
    rule_index = {code: i for i, code in enumerate(codes)}
    lines = _LineIndexes(report)
    results = [
        _result(file, finding, rule_index[finding.code], lines, fingerprint)
        for file in report.files
        for finding, fingerprint in _fingerprinted(file)
    ]
    driver = {
        "name": "evalfix-ls",
        "version": version,
        "semanticVersion": version,
        "informationUri": PROJECT_URL,
        "rules": [rule(code) for code in codes],
    }
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {ROOT_ID: {"uri": _directory_uri(report.root)}},
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def rule(code: str) -> dict[str, object]:
    """The reporting descriptor of a code."""
    doc = RULE_DOCS[code]
    level = LEVELS[ALL_CODES[code]]
    when = _sentence(doc.when)
    help_markdown = (
        f"**What is wrong:** {when}\n\n**How to fix it:** {doc.fix}\n\n"
        f"Default severity: {ALL_CODES[code].word}. Change it with `severity` in `.evalfix.toml` "
        f'(`{code} = "off"` drops it). [All rules]({PROJECT_URL}#rules)'
    )
    return {
        "id": code,
        "name": _pascal(code),
        "shortDescription": {"text": _plain(when)},
        "fullDescription": {"text": _plain(f"{when} {doc.fix}"), "markdown": f"{when} {doc.fix}"},
        "help": {
            "text": _plain(f"What is wrong: {when} How to fix it: {doc.fix}"),
            "markdown": help_markdown,
        },
        "helpUri": f"{PROJECT_URL}#rules",
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["evals" if code in EVALS_CODES else "workflow-fixture"]},
    }


def _result(
    file: FileReport, finding: Finding, rule_index: int, lines: _LineIndexes, fingerprint: str
) -> dict[str, object]:
    index = lines.of(file)
    location: dict[str, object] = {
        "physicalLocation": _physical(file.display, index, finding.start, finding.end)
    }
    if finding.pointer:  # the root pointer "" names no member
        location["logicalLocations"] = [{"fullyQualifiedName": finding.pointer, "kind": "member"}]
    result: dict[str, object] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    related = [_related(n, r, file, lines) for n, r in enumerate(finding.related, start=1)]
    if any(related):
        result["relatedLocations"] = [r for r in related if r]
    return result


def _related(
    number: int, related: Related, file: FileReport, lines: _LineIndexes
) -> dict[str, object] | None:
    if related.path is None:
        display, index = file.display, lines.of(file)
    else:
        target = lines.resolve(related.path, file.repo_root)
        if target is None:
            return None  # unreadable now: the message still names it
        display, index = target
    return {
        "id": number,
        "physicalLocation": _physical(display, index, related.start, related.end),
        "message": {"text": related.message},
    }


def _physical(display: str, index: LineIndex, start: int, end: int) -> dict[str, object]:
    sl, sc = index.position(start, Encoding.UTF16)
    el, ec = index.position(end, Encoding.UTF16)
    return {
        "artifactLocation": {"uri": quote(display, safe="/"), "uriBaseId": ROOT_ID},
        "region": {"startLine": sl + 1, "startColumn": sc + 1, "endLine": el + 1, "endColumn": ec + 1},
    }


def _fingerprinted(file: FileReport) -> list[tuple[Finding, str]]:
    """Findings in output order with their fingerprint: a hash of code, pointer and path, plus an
    ordinal when the same triple occurs again in the file (one finding per bad tag, …)."""
    seen: dict[str, int] = {}
    out = []
    for finding in sorted(file.analysis.findings, key=lambda f: f.sort_key):
        key = f"{finding.code}\0{finding.pointer}\0{file.display}"
        seen[key] = seen.get(key, 0) + 1
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        out.append((finding, digest if seen[key] == 1 else f"{digest}:{seen[key]}"))
    return out


class _LineIndexes:
    """Line indexes of the reported files, and of files that related locations name. A named file
    is read only when it resolves inside its repository (workspace/confine.py): its line breaks
    would otherwise show in the published regions."""

    def __init__(self, report: Report) -> None:
        self.root = report.root
        self.indexes: dict[Path, LineIndex] = {}  # of the reported files
        self.named: dict[Path, tuple[str, LineIndex] | None] = {}  # files only related places name
        self.files = {file.path: file for file in report.files}

    def of(self, file: FileReport) -> LineIndex:
        index = self.indexes.get(file.path)
        if index is None:
            index = self.indexes[file.path] = LineIndex(file.analysis.text)
        return index

    def resolve(self, raw: str, repo_root: Path) -> tuple[str, LineIndex] | None:
        path = Path(raw) if Path(raw).is_absolute() else repo_root / raw
        display = Path(os.path.relpath(path, self.root)).as_posix()
        reported = self.files.get(path)
        if reported is not None:
            return display, self.of(reported)
        if path not in self.named:
            file_text = read_file(path, repo_root)  # a path leaving the repository is not read
            self.named[path] = None if file_text.unavailable else (display, LineIndex(file_text.text))
        return self.named[path]


def _directory_uri(path: Path) -> str:
    uri = path.absolute().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _pascal(code: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in code.replace("_", "-").split("-"))


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def _plain(markdown: str) -> str:
    return markdown.replace("`", "")
