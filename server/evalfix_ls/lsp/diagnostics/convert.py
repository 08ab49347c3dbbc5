"""Findings (code-point offsets) → LSP ``Diagnostic``s (positions in the negotiated encoding).

Inherited top-level problems of workflow fixtures repeat once per affected case with the same
anchor, code and message (the parity count needs that); an editor shows them as one diagnostic
whose ``data.cases`` lists the cases.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from ...findings import Finding, Severity
from ...json_value import jsonable
from ...text.line_index import Encoding, LineIndex
from ..session.documents import Edit, lsp_range
from .encoded import encoded_piece, moved_piece

SOURCE = "evalfix-ls"

# Resolves a related file to (uri, line index of its current text), or None when unreadable.
RelatedResolver = Callable[[Path], "tuple[str, LineIndex] | None"]


# What tells findings apart besides their case: code, severity, span, pointer, message.
_GroupKey = tuple[str, Severity, int, int, str, str]
# A finding where it stood: code, severity, message, pointer, span, its cases.
_MemoKey = tuple[str, Severity, str, str, int, int, tuple[int, ...]]


def _group_key(finding: Finding) -> _GroupKey:
    return (finding.code, finding.severity, finding.start, finding.end, finding.pointer, finding.message)


def merge_case_repeats(findings: Iterable[Finding]) -> list[tuple[Finding, list[int]]]:
    """Findings that differ only in ``case`` merged into one, with the list of their cases, in
    the order of their first occurrence.

    Findings that merge share their start and code, so in the sorted list an analysis gives they
    lie in one run of equal (start, code): only a run of two or more is looked at by key. (On a
    noisy 10 MB suite nearly every run has one finding, and a key and a dictionary entry per
    finding cost every keystroke's conversion.) A list out of that order is merged by key whole."""
    items = findings if isinstance(findings, list) else list(findings)
    out: list[tuple[Finding, list[int]]] = []
    start, code = -1, ""
    run = 0  # where the run of the current (start, code) begins in ``out``
    keys: dict[_GroupKey, tuple[Finding, list[int]]] | None = None  # of that run, once it has two
    for finding in items:
        if finding.start != start or finding.code != code:
            if finding.start < start or (finding.start == start and finding.code < code):
                return _merged_by_key(items)
            start, code, run, keys = finding.start, finding.code, len(out), None
            out.append((finding, [] if finding.case is None else [finding.case]))
            continue
        if keys is None:
            keys = {_group_key(entry[0]): entry for entry in out[run:]}
        _merge_into(keys, out, finding)
    return out


def _merge_into(
    merged: dict[_GroupKey, tuple[Finding, list[int]]], out: list[tuple[Finding, list[int]]], finding: Finding
) -> None:
    key = _group_key(finding)
    entry = merged.get(key)
    if entry is None:
        entry = merged[key] = (finding, [] if finding.case is None else [finding.case])
        out.append(entry)
    elif finding.case is not None and finding.case not in entry[1]:
        entry[1].append(finding.case)


def _merged_by_key(findings: Iterable[Finding]) -> list[tuple[Finding, list[int]]]:
    """``merge_case_repeats`` for findings in any order: every finding looked up by key."""
    merged: dict[_GroupKey, tuple[Finding, list[int]]] = {}
    out: list[tuple[Finding, list[int]]] = []
    for finding in findings:
        _merge_into(merged, out, finding)
    return out


class DiagnosticMemo:
    """The diagnostics of one result by finding, for the next result of the same document.

    A keystroke re-checks one case; the findings of the others come back from the case cache
    (the same data, offsets shifted by the edit). Converting them all again to LSP positions and
    ``Diagnostic`` objects cost most of a keystroke on a suite full of findings (2,352 at 2 MB:
    75 of 115 ms). A finding before the edit, or after it when the edit changed neither the line
    count nor the finding's line, has the same positions as before: it gets the same
    ``Diagnostic`` object; one on a later line than the edit's end, when the edit added or removed
    lines, a copy with its lines shifted (its columns did not move). Its data must be the very
    same object (the case cache's), so a finding computed again is always converted again.
    """

    __slots__ = ("line_count", "_entries", "_prints", "_moved", "printed", "cases")

    def __init__(self, line_count: int) -> None:
        self.line_count = line_count
        # key -> (the finding's data, compared by identity; its diagnostic)
        self._entries: dict[_MemoKey, tuple[object, types.Diagnostic]] = {}
        # Each diagnostic's part of the result's fingerprint, by identity (the object is kept, so
        # its id is not reused while the memo lives), for the next result's fingerprint.
        self._prints: dict[int, tuple[types.Diagnostic, DiagnosticPrint]] = {}
        # A copy made by ``lines_moved`` -> (the copy, the earlier diagnostic, lines moved).
        self._moved: dict[int, tuple[types.Diagnostic, types.Diagnostic, int]] = {}
        self.printed = 0  # diagnostics whose fingerprint part was computed anew (work counted)
        # The diagnostics of each cached case (``case_blocks.py``) and where its case started,
        # by the identity of its findings (the case cache's).
        self.cases: dict[int, tuple[CaseDiagnostics, int]] = {}

    @staticmethod
    def key(finding: Finding, start: int, end: int, cases: list[int]) -> _MemoKey:
        return (finding.code, finding.severity, finding.message, finding.pointer, start, end, tuple(cases))

    def add(self, finding: Finding, cases: list[int], diagnostic: types.Diagnostic) -> None:
        if not finding.related:  # related locations may point anywhere: never reused
            key = self.key(finding, finding.start, finding.end, cases)
            self._entries[key] = (finding.data, diagnostic)

    def find(self, finding: Finding, cases: list[int], start: int, end: int) -> types.Diagnostic | None:
        """The earlier diagnostic of ``finding`` when it stood at ``start``-``end`` before."""
        entry = self._entries.get(self.key(finding, start, end, cases))
        return entry[1] if entry is not None and entry[0] is finding.data else None

    def moved(self, copy: types.Diagnostic, earlier: types.Diagnostic, lines: int) -> None:
        self._moved[id(copy)] = (copy, earlier, lines)

    def printed_all(self) -> None:
        """The fingerprint is made: the copies' origins (the previous result's) are not kept."""
        self._moved.clear()

    def print_of(self, diagnostic: types.Diagnostic, previous: DiagnosticMemo | None) -> DiagnosticPrint:
        """``diagnostic``'s fingerprint part: the previous result's when it is the same object,
        or that of the one it was moved from with the lines moved; computed anew otherwise."""
        part = previous._reused_print(diagnostic, self._moved.get(id(diagnostic))) if previous else None
        if part is None:
            self.printed += 1
            part = fresh_print(diagnostic)
        self._prints[id(diagnostic)] = (diagnostic, part)
        return part

    def _reused_print(
        self, diagnostic: types.Diagnostic, moved: tuple[types.Diagnostic, types.Diagnostic, int] | None
    ) -> DiagnosticPrint | None:
        entry = self._prints.get(id(diagnostic))
        if entry is not None and entry[0] is diagnostic:
            return entry[1]
        if moved is None or moved[0] is not diagnostic:
            return None
        _copy, earlier, lines = moved
        entry = self._prints.get(id(earlier))
        if entry is None or entry[0] is not earlier:
            return None
        return moved_print(entry[1], lines)


@dataclass(frozen=True, slots=True)
class Reuse:
    """What a conversion may take from the previous result: its memo and the edit since."""

    memo: DiagnosticMemo
    edit: Edit


def _reused(
    reuse: Reuse | None,
    finding: Finding,
    cases: list[int],
    after_edit: int,  # where the line after the edit's last one starts (one lookup per conversion)
    lines: int,  # how many lines the edit added (negative: removed)
    memo: DiagnosticMemo | None = None,  # this result's: learns which diagnostic a copy moved
) -> types.Diagnostic | None:
    if reuse is None or finding.related:
        return None
    edit = reuse.edit
    if finding.end <= edit.start:  # before the edit: nothing before it moved
        return reuse.memo.find(finding, cases, finding.start, finding.end)
    if finding.start < edit.new_end:
        return None  # inside the edit
    if finding.start < after_edit:
        return None  # on the line the edit ends on: its columns moved
    shift = edit.new_end - edit.old_end
    earlier = reuse.memo.find(finding, cases, finding.start - shift, finding.end - shift)
    if earlier is None or lines == 0:
        return earlier
    # On a later line than the edit's end: its columns did not move, its lines moved by as many
    # lines as the edit added or removed — shifted, not converted again (typing a new case).
    moved = lines_moved(earlier, lines)
    if memo is not None:
        memo.moved(moved, earlier, lines)
    return moved


def after_edit_line(index: LineIndex, edit: Edit) -> int:
    """The offset where the line after the one the edit ends on starts (past the text: the edit
    ends on the last line). A finding after the edit starting before it is on the edit's line:
    an offset compared, not a line looked up per finding."""
    line = index.line_of(edit.new_end) + 1
    return index.line_start(line) if line < index.line_count else len(index.text) + 1


def lines_moved(diagnostic: types.Diagnostic, lines: int) -> types.Diagnostic:
    """``diagnostic`` ``lines`` lines further down; every other field as it was (the same data:
    findings are reused only when their data is)."""
    start, end = diagnostic.range.start, diagnostic.range.end
    moved = types.Range(
        start=types.Position(line=start.line + lines, character=start.character),
        end=types.Position(line=end.line + lines, character=end.character),
    )
    shifted = copy.copy(diagnostic)
    shifted.range = moved
    return shifted


def to_diagnostics(
    findings: Iterable[Finding],
    index: LineIndex,
    encoding: Encoding,
    *,
    repo_root: Path | None = None,
    self_uri: str,
    related_support: bool = True,
    resolve_related: RelatedResolver | None = None,
    reuse: Reuse | None = None,
    memo: DiagnosticMemo | None = None,
) -> list[types.Diagnostic]:
    """The diagnostics of ``findings``; with ``reuse``, those whose positions did not move since
    the previous result are its very objects; ``memo`` (when given) learns this result's."""
    out = []
    after_edit = after_edit_line(index, reuse.edit) if reuse is not None else 0
    lines = index.line_count - reuse.memo.line_count if reuse is not None else 0
    for finding, cases in merge_case_repeats(findings):
        earlier = _reused(reuse, finding, cases, after_edit, lines, memo)
        if earlier is not None:
            out.append(earlier)
            if memo is not None:
                memo.add(finding, cases, earlier)
            continue
        data: dict[str, object] = {str(key): jsonable(item) for key, item in (finding.data or {}).items()}
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
        if memo is not None:
            memo.add(finding, cases, out[-1])
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


# What ``fingerprint`` keeps of one diagnostic: its range, severity, code, message, data (as text)
# and related locations (uri, start line and character, message).
DiagnosticPrint = tuple[
    int, int, int, int, "types.DiagnosticSeverity | None", "int | str | None", str, str,
    tuple[tuple[str, int, int, str], ...],
]  # fmt: skip
Fingerprint = tuple[DiagnosticPrint, ...]
Digest = tuple[int, int]  # (how many diagnostics, hash of their fingerprint)


def digest(fingerprint: Fingerprint) -> Digest:
    """A fingerprint in two ints: result ids and "already pushed" are decided on it, so no table
    keeps a fingerprint (a tuple per diagnostic) for a file nobody has open."""
    return (len(fingerprint), hash(fingerprint))


def fingerprint(
    diagnostics: Iterable[types.Diagnostic],
    memo: DiagnosticMemo | None = None,
    previous: DiagnosticMemo | None = None,
) -> Fingerprint:
    """A value equal for equal diagnostic lists (for result ids: "unchanged" reports). With
    ``memo`` (this result's) and ``previous`` (the memo the conversion reused from), the part of a
    diagnostic the conversion reused is taken from the previous result's, not computed again: a
    keystroke in a suite with 12,555 diagnostics computed every part (``repr`` of each data)."""
    if memo is None:
        return tuple(fresh_print(diagnostic) for diagnostic in diagnostics)
    parts = tuple(memo.print_of(diagnostic, previous) for diagnostic in diagnostics)
    memo.printed_all()
    return parts


def moved_print(part: DiagnosticPrint, lines: int) -> DiagnosticPrint:
    """The fingerprint part of a diagnostic ``lines`` lines further down (same columns)."""
    start_line, start_char, end_line, end_char, severity, code, message, data, related = part
    return (
        start_line + lines,
        start_char,
        end_line + lines,
        end_char,
        severity,
        code,
        message,
        data,
        related,
    )


def fresh_print(diagnostic: types.Diagnostic) -> DiagnosticPrint:
    rng = diagnostic.range
    related = tuple(
        (r.location.uri, r.location.range.start.line, r.location.range.start.character, r.message)
        for r in diagnostic.related_information or ()
    )
    return (
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


class CaseDiagnostics:
    """One cached case's diagnostics for the findings tuple of its cache entry (``findings``, by
    identity), with its case's first character at ``line``/``character`` (in ``encoding``): the
    same object wherever the case moves on that line and column (where is kept beside it, in the
    memo's ``cases``)."""

    __slots__ = (
        "findings", "encoding", "line", "character", "diagnostics", "groups_before",
        "prints", "movable", "fixed", "_pieces", "_texts", "_moved_from",
    )  # fmt: skip

    def __init__(
        self,
        findings: tuple[Finding, ...],
        encoding: Encoding,
        where: tuple[int, int],
        diagnostics: list[types.Diagnostic],
        groups_before: list[int],
        prints: list[DiagnosticPrint],
        moved_from: CaseDiagnostics | None = None,
    ) -> None:
        self.findings, self.encoding = findings, encoding
        self.line, self.character = where
        self.diagnostics, self.groups_before, self.prints = diagnostics, groups_before, prints
        # Without related places its diagnostics move with the case; with places in other files
        # (read again per analysis) it is converted every time.
        self.movable = not any(f.related for f in findings)
        self.fixed = all(r.path is None for f in findings for r in f.related)
        self._pieces: list[tuple[str, int]] | None = None
        self._texts: list[str] | None = None
        self._moved_from = moved_from  # whose JSON after the range this one shares

    def pieces(self) -> list[tuple[str, int]]:
        """Each diagnostic's JSON and the length of its range's JSON (``encoded.py``)."""
        pieces = self._pieces
        if pieces is None:
            source = self._moved_from
            if source is not None and source._pieces is not None:
                pieces = [moved_piece(d, p) for d, p in zip(self.diagnostics, source._pieces, strict=True)]
            else:
                pieces = [encoded_piece(d) for d in self.diagnostics]
            self._texts = [piece for piece, _ in pieces]
            self._pieces, self._moved_from = pieces, None
        return pieces

    def texts(self) -> list[str]:
        """Each diagnostic's JSON, as a report's array joins them."""
        texts = self._texts
        if texts is None:
            self.pieces()
            texts = self._texts
            assert texts is not None
        return texts
