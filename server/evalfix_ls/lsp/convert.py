"""Findings (code-point offsets) → LSP ``Diagnostic``s (positions in the negotiated encoding).

Inherited top-level problems of workflow fixtures repeat once per affected case with the same
anchor, code and message (the parity count needs that); an editor shows them as one diagnostic
whose ``data.cases`` lists the cases.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePath
from typing import Any

from lsprotocol import types

from ..findings import Finding
from ..parser.line_index import Encoding, LineIndex

SOURCE = "evalfix-ls"

# Resolves a related file to (uri, line index of its current text), or None when unreadable.
RelatedResolver = Callable[[Path], "tuple[str, LineIndex] | None"]


def lsp_range(index: LineIndex, start: int, end: int, encoding: Encoding) -> types.Range:
    start_line, start_char = index.position(start, encoding)
    end_line, end_char = index.position(max(start, end), encoding)
    return types.Range(
        start=types.Position(line=start_line, character=start_char),
        end=types.Position(line=end_line, character=end_char),
    )


def jsonable(value: Any) -> Any:
    """``value`` with every part JSON-serialisable (finding data may hold tuples, paths, enums)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, PurePath):
        return value.as_posix()
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item) for item in value), key=repr)
    if isinstance(value, Iterable):
        return [jsonable(item) for item in value]
    return str(value)


def _group_key(finding: Finding) -> tuple[Any, ...]:
    return (finding.code, finding.severity, finding.start, finding.end, finding.pointer, finding.message)


def merge_case_repeats(findings: Iterable[Finding]) -> list[tuple[Finding, list[int]]]:
    """Findings that differ only in ``case`` merged into one, with the list of their cases."""
    merged: dict[tuple[Any, ...], tuple[Finding, list[int]]] = {}
    for finding in findings:
        key = _group_key(finding)
        entry = merged.get(key)
        if entry is None:
            merged[key] = (finding, [] if finding.case is None else [finding.case])
        elif finding.case is not None and finding.case not in entry[1]:
            entry[1].append(finding.case)
    return list(merged.values())


def to_diagnostics(
    findings: Iterable[Finding],
    index: LineIndex,
    encoding: Encoding,
    *,
    repo_root: Path | None = None,
    self_uri: str,
    related_support: bool = True,
    resolve_related: RelatedResolver | None = None,
) -> list[types.Diagnostic]:
    out = []
    for finding, cases in merge_case_repeats(findings):
        data = dict(jsonable(finding.data or {}))
        data["pointer"] = finding.pointer
        data["case"] = cases[0] if cases else None
        message = finding.message
        if len(cases) > 1:
            data["cases"] = cases
            message = f"{message} ({len(cases)} cases: {', '.join(map(str, cases))})"
        related = None
        if related_support and finding.related:
            related = _related(finding, index, encoding, repo_root, self_uri, resolve_related)
        out.append(
            types.Diagnostic(
                range=lsp_range(index, finding.start, finding.end, encoding),
                severity=types.DiagnosticSeverity(int(finding.severity)),
                code=finding.code,
                source=SOURCE,
                message=message,
                data=data,
                related_information=related or None,
            )
        )
    return out


def _related(
    finding: Finding,
    index: LineIndex,
    encoding: Encoding,
    repo_root: Path | None,
    self_uri: str,
    resolve: RelatedResolver | None,
) -> list[types.DiagnosticRelatedInformation]:
    out = []
    for related in finding.related:
        if related.path is None:
            uri, other_index = self_uri, index
        else:
            path = Path(related.path)
            if not path.is_absolute():
                if repo_root is None:
                    continue
                path = repo_root / path
            resolved = resolve(path) if resolve is not None else None
            if resolved is None:
                continue
            uri, other_index = resolved
        out.append(
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=uri, range=lsp_range(other_index, related.start, related.end, encoding)
                ),
                message=related.message,
            )
        )
    return out


def fingerprint(diagnostics: Iterable[types.Diagnostic]) -> tuple[Any, ...]:
    """A value equal for equal diagnostic lists (for result ids: "unchanged" reports)."""
    parts = []
    for diagnostic in diagnostics:
        rng = diagnostic.range
        related = tuple(
            (r.location.uri, r.location.range.start.line, r.location.range.start.character, r.message)
            for r in diagnostic.related_information or ()
        )
        parts.append(
            (
                rng.start.line,
                rng.start.character,
                rng.end.line,
                rng.end.character,
                diagnostic.severity,
                diagnostic.code,
                diagnostic.message,
                repr(diagnostic.data),
                related,
            )
        )
    return tuple(parts)
