"""Run results where the case is written: the lens on each case, a ✓/✗ hint after each assertion,
failed assertions as diagnostics, a hover with the evidence (run-results.md; ``results/``).

Protocol-free: the cases and assertions of one ``evals.json`` version (offsets, values) joined with
the results index's answers (``CaseLookup``), which the caller passes in — a keystroke computes
these from the index's kept answers and never opens a result file. An assertion whose graded copy
no longer equals it (edited, added) is *stale*: it gets "stale", never the old verdict.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..contracts.detection import EVALS
from ..js.values import js_id_string
from ..parser.tree import ARRAY, OBJECT
from ..parser.values import items_of, string_of
from ..results.matching import STALE, Verdict, canonical, match
from ..results.model import CaseLookup, CaseResult, VariantResult
from ..results.skill_creator import CaseKey
from ..text.pieces import as_str
from .cases import case_origins, id_node_of
from .document import DocumentView

ASSERTION_MEMBERS = ("assertions", "expectations")  # arc / skill-creator's schemas.md
_UNREADABLE = object()  # an assertion whose text is not JSON (a broken buffer): equals nothing

Lookup = Callable[[Path, str | None, Sequence[CaseKey]], list[CaseLookup]]


@dataclass(frozen=True, slots=True)
class AssertionSpan:
    start: int
    end: int
    value: object
    key: str | None  # ``matching.canonical(value)``; None when the text is not JSON


@dataclass(frozen=True, slots=True)
class SuiteCase:
    index: int
    start: int  # the case object's opening brace
    end: int
    key: CaseKey
    assertions: tuple[AssertionSpan, ...]


@dataclass(frozen=True, slots=True)
class Suite:
    skill_dir: Path
    skill_name: str | None
    cases: tuple[SuiteCase, ...]


@dataclass(frozen=True, slots=True)
class ResultNote:
    """A verdict placed at an assertion (hint, diagnostic)."""

    start: int
    end: int
    verdict: Verdict
    result: CaseResult


def suite_of(
    document: DocumentView, has_runs: Callable[[Path, str | None], bool] | None = None
) -> Suite | None:
    """The eval suite's cases with their ids and assertions (None: not an ``evals/evals.json``-like
    suite inside a skill folder, or ``has_runs(skill folder, skill_name)`` says its skill has no
    run: a 10 MB suite's 37,000 assertions are then not read at every keystroke's lenses)."""
    root = document.root
    if document.kind != EVALS or document.path is None or root is None or root.kind != OBJECT:
        return None
    skill_dir = document.path.parent.parent
    if has_runs is not None and not has_runs(skill_dir, string_of(root.get("skill_name"))):
        return None
    cases = []
    for index, origin, delta in case_origins(EVALS, root):
        case_id = js_id_string(id_node_of(EVALS, origin))
        if case_id is None:
            continue
        prompt = string_of(origin.get("prompt"))
        spans = tuple(_assertion_spans(document, origin.get, delta))
        key = CaseKey(case_id, prompt, index)
        cases.append(SuiteCase(index, origin.start + delta, origin.end + delta, key, spans))
    return Suite(skill_dir, string_of(root.get("skill_name")), tuple(cases))


def _assertion_spans(
    document: DocumentView, member: Callable[[str], object], delta: int
) -> list[AssertionSpan]:
    array = next((node for name in ASSERTION_MEMBERS if (node := member(name)) is not None), None)
    if array is None or getattr(array, "kind", None) != ARRAY:
        return []
    out = []
    for item in items_of(array):  # type: ignore[arg-type]
        start, end = item.start + delta, item.end + delta
        value, key = _parsed(as_str(document.text[start:end]))
        out.append(AssertionSpan(start, end, value, key))
    return out


@lru_cache(maxsize=8192)
def _parsed(text: str) -> tuple[object, str | None]:
    """An assertion's value and canonical key, by its source text: each keystroke's lenses and
    hints read the assertions of every case again, and all but the edited one are the same text
    as before. Values are read-only here."""
    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError):
        return _UNREADABLE, None
    return value, canonical(value)


def lookups(suite: Suite, lookup: Lookup) -> list[CaseLookup]:
    return lookup(suite.skill_dir, suite.skill_name, [case.key for case in suite.cases])


def verdicts(case: SuiteCase, result: CaseResult) -> list[Verdict]:
    """One verdict per assertion of the case; none at all when the run did not grade it (a
    skill-creator configuration with only timing.json: not graded yet, or crashed)."""
    if not result.primary.graded:
        return []
    return match(
        result.primary.rows, [span.value for span in case.assertions], [span.key for span in case.assertions]
    )


def graded_assertions(case: SuiteCase, result: CaseResult) -> list[tuple[AssertionSpan, Verdict]]:
    """Each assertion with its verdict (empty when the run did not grade the case)."""
    found = verdicts(case, result)
    return list(zip(case.assertions, found, strict=True)) if found else []


# -- the lens ------------------------------------------------------------------------------------


def lens_title(case: SuiteCase, found: CaseLookup, now: float | None = None) -> str | None:
    """``3/6 passed · 41 s · 12.3k tokens · $0.12 · 2 h ago · +0.33 vs without skill``; None when
    the skill has no run at all."""
    if found.newest is None:
        return None
    result = found.result
    parts: list[str] = []
    if result is None:
        parts.append("no result in any run")
    elif found.from_older_run:
        parts.append(f"no result in the newest run ({found.newest.label}) · from {result.run.label}:")
    if found.newest_error and (result is None or result.error != found.newest_error):
        parts.append(f"error in the newest run: {found.newest_error}")
    if found.pending:
        parts.append("results being written")
    if result is not None:
        parts.extend(_result_parts(case, result, time.time() if now is None else now))
    return " · ".join(parts).replace(": · ", ": ")


def _result_parts(case: SuiteCase, result: CaseResult, now: float) -> list[str]:
    primary = result.primary
    parts = [_score(primary)]
    stale = sum(1 for verdict in verdicts(case, result) if verdict.state == STALE)
    if stale:
        parts.append(f"{stale} stale")
    if primary.repeats > 1:
        parts.append(f"run 1 of {primary.repeats}")
    timing = primary.timing
    if timing is not None:
        if timing.duration_ms is not None:
            parts.append(duration_text(timing.duration_ms))
        if timing.total_tokens is not None:
            parts.append(tokens_text(timing.total_tokens))
        if timing.cost_usd:
            parts.append(cost_text(timing.cost_usd))
    parts.append(age_text(now - result.run.when))
    if result.delta is not None and result.baseline is not None:
        parts.append(f"{result.delta:+.2f} vs {result.baseline.name.replace('_', ' ')}")
    if result.error:
        parts.append(f"error: {result.error}")
    return parts


def _score(variant: VariantResult) -> str:
    if not variant.graded:
        return "not graded yet"
    if not variant.total:
        return "no assertions graded"
    return f"{variant.passed}/{variant.total} passed"


def duration_text(ms: float) -> str:
    seconds = ms / 1000
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{round(seconds)} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def tokens_text(tokens: int) -> str:
    if tokens < 1000:
        return f"{tokens} tokens"
    if tokens < 1_000_000:
        return f"{tokens / 1000:.1f}k tokens"
    return f"{tokens / 1_000_000:.1f}M tokens"


def cost_text(usd: float) -> str:
    return f"${usd:.2f}" if usd >= 0.01 else f"${usd:.4f}"


def age_text(seconds: float) -> str:
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} d ago"


# -- hints, diagnostics, hover -------------------------------------------------------------------


def notes(
    suite: Suite, found: Sequence[CaseLookup], start: int = 0, end: int | None = None
) -> list[ResultNote]:
    """A verdict for each assertion of each case with a result, within ``[start, end]``."""
    out = []
    for case, lookup in zip(suite.cases, found, strict=True):
        result = lookup.result
        if result is None or case.end < start or (end is not None and case.start > end):
            continue
        for span, verdict in graded_assertions(case, result):
            out.append(ResultNote(span.start, span.end, verdict, result))
    return out


def hint_label(verdict: Verdict) -> str:
    return {"passed": "✓", "failed": "✗"}.get(verdict.state, "stale")


def hint_tooltip(note: ResultNote) -> str:
    verdict = note.verdict
    if verdict.stale:
        return f"stale: {verdict.note} (run {note.result.run.label})"
    evidence = verdict.row.evidence if verdict.row is not None else ""
    return f"{verdict.state} in run {note.result.run.label}: {evidence}".rstrip(": ")


def diagnostic_message(note: ResultNote) -> str:
    """A failed assertion: the run and its evidence."""
    row = note.verdict.row
    evidence = row.evidence if row is not None else ""
    variant = f" ({note.result.primary.name})" if note.result.primary.name else ""
    return f"failed in run {note.result.run.label}{variant}: {evidence}"


def hover_markdown(note: ResultNote) -> str:
    verdict = note.verdict
    result = note.result
    variant = f" · {result.primary.name}" if result.primary.name else ""
    lines = []
    if verdict.stale:
        lines.append(f"**stale** — {verdict.note}; run `{result.run.label}`{variant}")
        if verdict.row is not None:
            graded = "✓ passed" if verdict.row.passed else "✗ failed"
            lines.append(f"The run graded “{verdict.row.text}”: {graded}")
    else:
        mark = "✓ passed" if verdict.state == "passed" else "✗ failed"
        lines.append(f"**{mark}** in run `{result.run.label}`{variant}")
        if verdict.row is not None and verdict.row.evidence:
            lines.append(f"Evidence: {verdict.row.evidence}")
        if verdict.note:
            lines.append(f"({verdict.note})")
    lines.append(" · ".join(_artifact_links(result.primary)))
    return "\n\n".join(lines)


def _artifact_links(variant: VariantResult) -> list[str]:
    links = []
    assistant = variant.folder / "assistant.md"
    if assistant.is_file():
        links.append(f"[assistant.md]({assistant.as_uri()})")
    outputs = variant.folder / "outputs"
    if outputs.is_dir():
        links.append(f"[outputs/]({outputs.as_uri()})")
    return links


def note_at(notes_found: Sequence[ResultNote], offset: int) -> ResultNote | None:
    return next((note for note in notes_found if note.start <= offset <= note.end), None)
