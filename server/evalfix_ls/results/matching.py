"""The graded copies against the assertions in the file now: a verdict, or "stale".

arc-skill-eval (A.6): ``assertion_results[i]`` belongs to ``assertions[i]`` as they were when the
run happened, and each row carries a verbatim copy. Row ``i`` answers assertion ``i`` when the copy
deep-equals it (key order ignored, ``1.0`` = ``1`` as ``JSON.stringify`` writes it, ``true`` ≠
``1``); otherwise the first unused row whose copy equals it answers (the assertion moved: the run
graded exactly this assertion, so its verdict still applies, and the hover says where it was);
otherwise the assertion is **stale** — edited since the run, or added after it — and no verdict
is shown for it.

skill-creator (B.5): rows hold only text, in any order: exact text → whitespace-collapsed,
case-folded text → the same index when the counts match (flagged) → stale.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .model import GradedRow

PASSED, FAILED, STALE = "passed", "failed", "stale"


@dataclass(frozen=True, slots=True)
class Verdict:
    state: str  # PASSED, FAILED or STALE
    row: GradedRow | None
    note: str = ""  # why stale, or how a moved/paraphrased row was matched

    @property
    def stale(self) -> bool:
        return self.state == STALE


def _integral(value: object) -> object:
    """``value`` with integral floats as ints (``JSON.stringify(1.0)`` is ``1``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def canonical(value: object) -> str | None:
    """One text per JSON value regardless of key order; None when it cannot be written."""
    try:
        return json.dumps(_integral(value), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _verdict(row: GradedRow, note: str = "") -> Verdict:
    return Verdict(PASSED if row.passed else FAILED, row, note)


def match_copies(
    rows: Sequence[GradedRow], current: Sequence[object], keys: Sequence[str | None] | None = None
) -> list[Verdict]:
    """arc-skill-eval: one verdict per current assertion (``current[i]`` a JSON value, ``keys[i]``
    its ``canonical`` text when the caller has it; a value that could not be read is never equal
    to anything)."""
    copies = [(row.copy_key or canonical(row.assertion)) if row.has_copy else None for row in rows]
    wanted = list(keys) if keys is not None else [canonical(value) for value in current]
    used: set[int] = set()
    out: list[Verdict | None] = [None] * len(current)
    for index, key in enumerate(wanted):
        if key is not None and index < len(copies) and copies[index] == key:
            out[index] = _verdict(rows[index])
            used.add(index)
    for index, key in enumerate(wanted):
        if out[index] is not None:
            continue
        moved = next(
            (j for j, copy in enumerate(copies) if j not in used and key is not None and copy == key), None
        )
        if moved is not None:
            used.add(moved)
            out[index] = _verdict(rows[moved], f"graded as assertion {moved + 1} of the run")
        elif index < len(rows):
            out[index] = Verdict(
                STALE, rows[index], "edited since the run (the run graded another assertion here)"
            )
        else:
            out[index] = Verdict(STALE, None, "added after the run (not graded)")
    return [verdict for verdict in out if verdict is not None]


_SPACES = re.compile(r"\s+")


def _loose(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


def match_texts(rows: Sequence[GradedRow], current: Sequence[object]) -> list[Verdict]:
    """skill-creator: rows matched by text (exact, then loose, then by index when counts match)."""
    used: set[int] = set()
    out: list[Verdict | None] = [None] * len(current)
    texts = [value if isinstance(value, str) else None for value in current]
    for index, text in enumerate(texts):
        found = next((j for j, row in enumerate(rows) if j not in used and row.text == text), None)
        if found is not None:
            used.add(found)
            out[index] = _verdict(rows[found])
    for index, text in enumerate(texts):
        if out[index] is not None or text is None:
            continue
        found = next(
            (j for j, row in enumerate(rows) if j not in used and _loose(row.text) == _loose(text)), None
        )
        if found is not None:
            used.add(found)
            out[index] = _verdict(rows[found], "matched ignoring case and spacing")
    same_count = len(rows) == len(current)
    for index in range(len(current)):
        if out[index] is not None:
            continue
        if same_count and index not in used:
            used.add(index)
            out[index] = _verdict(rows[index], f"matched by position: the run graded “{rows[index].text}”")
        else:
            out[index] = Verdict(STALE, None, "not among the graded expectations of the run")
    return [verdict for verdict in out if verdict is not None]


def match(
    rows: Sequence[GradedRow], current: Sequence[object], keys: Sequence[str | None] | None = None
) -> list[Verdict]:
    """Verdicts for the current assertions: by graded copy when the rows carry one, else by text."""
    if any(row.has_copy for row in rows):
        return match_copies(rows, current, keys)
    return match_texts(rows, current)
