"""Diagnostics of an analysis whose cached cases are kept as blocks (``contracts/placed.py``),
converted, fingerprinted and encoded block by block.

Each cached case keeps its diagnostics, their fingerprint parts and their JSON where the case
stood (``CaseDiagnostics``, in the result's ``DiagnosticMemo``). On the next keystroke a case the
edit did not move gets them back as they are; one the edit moved by whole lines only (an edit in
another case: its first character keeps its column) gets copies with their lines moved, every
other field and the JSON after the range shared; only a case checked again (a new block) is
converted. The other findings (syntax errors, duplicate ids, top-level ones) go through
``convert.to_diagnostics`` with its reuse. The report is joined from the pieces
(``ReportPart``), so a keystroke costs the findings it changed, plus one step per case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ...findings import Finding
from ...text.line_index import Encoding, LineIndex
from .convert import (
    CaseDiagnostics,
    DiagnosticMemo,
    DiagnosticPrint,
    RelatedResolver,
    Reuse,
    after_edit_line,
    lines_moved,
    merge_case_repeats,
    moved_print,
    to_diagnostics,
)
from .encoded import ReportPart

if TYPE_CHECKING:  # the analysis core is imported by the first analysis, not at start-up
    from ...contracts.case_cache import PlacedCase
    from ...contracts.placed import Piece


@dataclass(frozen=True, slots=True)
class Conversion:
    """What ``to_diagnostics`` needs besides the findings (the same for every block)."""

    index: LineIndex
    encoding: Encoding
    repo_root: Path | None
    self_uri: str
    related_support: bool
    resolve_related: RelatedResolver | None


@dataclass(slots=True)
class PlacedReport:
    diagnostics: list[types.Diagnostic]
    parts: list[ReportPart]
    fingerprint: tuple[DiagnosticPrint, ...]
    built: int  # diagnostics of cases converted anew (work counted)
    moved: int  # diagnostics of cases moved by lines (copied with new lines)


def placed_diagnostics(
    pieces: Sequence[Piece], conversion: Conversion, reuse: Reuse | None, memo: DiagnosticMemo
) -> PlacedReport:
    """The diagnostics of ``pieces`` in order, and the parts of the report they make. One step
    per case (the common one: a dictionary lookup, the case's diagnostics joined as they are);
    findings converted only where a case is new or the edit changed its columns."""
    loose = [piece for piece in pieces if isinstance(piece, Finding)]
    converted = convert_findings(loose, conversion, reuse, memo)
    first_of = {id(finding): k for k, (finding, _cases) in enumerate(merge_case_repeats(loose))}
    placer = _Placer(conversion, reuse, memo)
    held = memo.cases
    out: list[types.Diagnostic] = []
    parts: list[ReportPart] = []
    run: list[types.Diagnostic] = []
    for piece in pieces:
        if isinstance(piece, Finding):
            k = first_of.get(id(piece))
            if k is not None:
                run.append(converted[k])
            continue
        if run:
            out.extend(run)
            parts.append(run)
            run = []
        place = held.get(id(piece.entry.findings))
        if place is None or place[1] != piece.base or place[0].findings is not piece.entry.findings:
            place = held[id(piece.entry.findings)] = (placer.case(piece), piece.base)
        case = place[0]
        if piece.hi < 0:
            out.extend(case.diagnostics)
            parts.append(case)
        else:
            start, stop = case.groups_before[piece.lo], case.groups_before[piece.hi]
            out.extend(case.diagnostics[start:stop])
            parts.append((case, start, stop))
    if run:
        out.extend(run)
        parts.append(run)
    prints = _prints(parts, memo, reuse.memo if reuse is not None else None)
    memo.printed_all()
    return PlacedReport(out, parts, prints, placer.built, placer.moved)


def _prints(
    parts: list[ReportPart], memo: DiagnosticMemo, previous: DiagnosticMemo | None
) -> tuple[DiagnosticPrint, ...]:
    """The result's fingerprint (``convert.fingerprint``): a case's parts as it keeps them."""
    runs: list[Sequence[DiagnosticPrint]] = []
    for part in parts:
        if isinstance(part, list):
            runs.append([memo.print_of(d, previous) for d in part])
            continue
        case, start, stop = part if isinstance(part, tuple) else (part, 0, None)
        assert isinstance(case, CaseDiagnostics)  # the only case block this module builds
        runs.append(case.prints[start:stop])
    return tuple(chain.from_iterable(runs))


def convert_findings(
    findings: list[Finding], conversion: Conversion, reuse: Reuse | None, memo: DiagnosticMemo | None
) -> list[types.Diagnostic]:
    """``convert.to_diagnostics`` of ``findings`` with what ``conversion`` holds."""
    return to_diagnostics(
        findings,
        conversion.index,
        conversion.encoding,
        repo_root=conversion.repo_root,
        self_uri=conversion.self_uri,
        related_support=conversion.related_support,
        resolve_related=conversion.resolve_related,
        reuse=reuse,
        memo=memo,
    )


class _Placer:
    """Each block's ``CaseDiagnostics``: the previous result's where the case kept its line and
    column, copies moved by lines where it moved by whole lines, converted anew otherwise."""

    def __init__(self, conversion: Conversion, reuse: Reuse | None, memo: DiagnosticMemo) -> None:
        self.conversion, self.memo, self.reuse = conversion, memo, reuse
        self.previous = reuse.memo.cases if reuse is not None else {}
        self.edit = reuse.edit if reuse is not None else None
        self.after_edit_line = after_edit_line(conversion.index, self.edit) if self.edit is not None else 0
        self.lines = conversion.index.line_count - reuse.memo.line_count if reuse is not None else 0
        self.built = self.moved = 0

    def case(self, block: PlacedCase) -> CaseDiagnostics:
        findings, base = block.entry.findings, block.base
        place = self.previous.get(id(findings))
        if (
            place is None
            or place[0].findings is not findings
            or place[0].encoding != self.conversion.encoding
        ):
            return self._built(block)
        earlier, earlier_base = place
        lines = self._lines_since(earlier_base, block)
        if not earlier.movable:  # related places: kept only where nothing before them moved
            unmoved = lines == 0 and base == earlier_base and earlier.fixed
            return earlier if unmoved else self._built(block)
        if lines is None:
            line, character = self.conversion.index.position(base, self.conversion.encoding)
            if character != earlier.character:
                return self._built(block)
            lines = line - earlier.line
        if lines == 0:
            return earlier
        self.moved += len(earlier.diagnostics)
        return _moved(earlier, lines)

    def _lines_since(self, earlier_base: int, block: PlacedCase) -> int | None:
        """How many lines the edit moved the case by, when that follows from the edit alone: 0
        for a case wholly before it, the lines it added for a case starting on a later line than
        its end; None when the case's position has to be looked up."""
        edit = self.edit
        if edit is None:
            return None
        if block.base == earlier_base and earlier_base + block.entry.high <= edit.start:
            return 0
        shift = edit.new_end - edit.old_end
        if earlier_base >= edit.old_end and block.base == earlier_base + shift >= self.after_edit_line:
            return self.lines
        return None

    def _built(self, block: PlacedCase) -> CaseDiagnostics:
        """Converted (each finding's diagnostic the previous result's where it did not move, see
        ``convert.to_diagnostics``), run by run of one (start, code): merges stay inside a run,
        and a block is split only between runs."""
        absolute = block.cache.placed(block.entry, block.base)
        diagnostics: list[types.Diagnostic] = []
        groups_before = [-1] * (len(absolute) + 1)
        groups_before[0] = run_start = 0
        for k in range(1, len(absolute) + 1):
            if k < len(absolute) and _same_run(absolute[k - 1], absolute[k]):
                continue
            run = list(absolute[run_start:k])
            diagnostics.extend(convert_findings(run, self.conversion, self.reuse, self.memo))
            groups_before[k] = len(diagnostics)
            run_start = k
        self.built += len(diagnostics)
        previous = self.reuse.memo if self.reuse is not None else None
        prints = [self.memo.print_of(d, previous) for d in diagnostics]
        where = self.conversion.index.position(block.base, self.conversion.encoding)
        return CaseDiagnostics(
            block.entry.findings, self.conversion.encoding, where, diagnostics, groups_before, prints
        )


def _same_run(a: Finding, b: Finding) -> bool:
    return a.start == b.start and a.code == b.code


def _moved(earlier: CaseDiagnostics, lines: int) -> CaseDiagnostics:
    """``earlier`` ``lines`` lines further down (same columns): copies of its diagnostics, their
    JSON after the range shared."""
    diagnostics = [lines_moved(d, lines) for d in earlier.diagnostics]
    prints = [moved_print(p, lines) for p in earlier.prints]
    where = (earlier.line + lines, earlier.character)
    source = earlier if earlier._pieces is not None else earlier._moved_from
    return CaseDiagnostics(
        earlier.findings, earlier.encoding, where, diagnostics, earlier.groups_before, prints, source
    )
