"""``--format json``: the machine-readable report (README, "Batch mode")."""

from __future__ import annotations

from ..findings import Finding, Severity
from ..text.line_index import Encoding, LineIndex
from .run import Report


def finding_range(index: LineIndex, finding: Finding, encoding: Encoding) -> dict[str, object]:
    sl, sc = index.position(finding.start, encoding)
    el, ec = index.position(finding.end, encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def to_json(report: Report, version: str) -> dict[str, object]:
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
        files.append(
            {
                "path": file.display,
                "kind": file.analysis.kind,
                "reason": file.analysis.reason,
                "findings": findings,
            }
        )
    out: dict[str, object] = {
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
    if report.readiness is not None:
        out["readiness"] = report.readiness
    return out
