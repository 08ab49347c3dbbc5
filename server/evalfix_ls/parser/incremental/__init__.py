"""The incremental re-parse: the parse of a new version built from the previous version's tree, so
that typing inside one case of a 10 MB suite does not cost a full parse. One entry, two modes:

* ``Mode.EXACT`` (the analysis) returns a ``ParseResult`` equal to a full parse of the new text:
  tree, errors, duplicate names (``tests/unit/test_splice_properties.py`` checks it over random
  edits). When the previous version parsed cleanly and an edit lies strictly inside one value
  (its first and last characters untouched), only that value's new text is parsed; if it is valid
  on its own, the document is valid too. Edits that make the document invalid, or keep it
  invalid, take the recovering path (``splice``): the tolerant parser is resumed inside the
  innermost container around the edit and stopped where its state meets the previous parse's.
* ``Mode.APPROXIMATE`` (completion, hover: the text a request was asked on, long before its
  analysis is done) returns an ``ApproximateParse``: the same tree where features look, for a
  few milliseconds whatever the size, but the errors of the re-parsed region only (``approximate``).

Either way the new tree shares every node before the edit with the previous tree and shifts what
follows (lazily, ``shift``), so both versions stay immutable snapshots. None means the edit is not
local: the caller parses from scratch.
"""

from __future__ import annotations

import enum
import json
from typing import Literal, overload

from ...memory.gc_pause import gc_paused
from ...text.pieces import Text
from ..fast import parse_valid, reject_constant
from ..tree import ApproximateParse, DuplicateKey, Node, ParseResult
from .approximate import reparse_local
from .shift import enclosing_chain, rebuild, shift_copy
from .splice import reparse_tolerant

# Beyond this size (code points) re-parsing the enclosing value is no cheaper than starting over.
MAX_LOCAL_FRACTION = 0.5
MAX_LEVELS_TRIED = 3


class Mode(enum.Enum):
    EXACT = "exact"  # equal to a full parse: errors and duplicate names included
    APPROXIMATE = "approximate"  # the tree only, for editing features


@overload
def reparse(
    prev: ParseResult, new_text: str, start: int, end: int, mode: Literal[Mode.EXACT] = ...
) -> ParseResult | None: ...
@overload
def reparse(
    prev: ParseResult, new_text: Text, start: int, end: int, mode: Literal[Mode.APPROXIMATE]
) -> ApproximateParse | None: ...
def reparse(
    prev: ParseResult, new_text: Text, start: int, end: int, mode: Mode = Mode.EXACT
) -> ParseResult | None:
    """``new_text`` is ``prev.text`` with ``[start, end)`` replaced. Returns the parse of
    ``new_text`` built from ``prev`` in ``mode``, or None when the edit is not local (the caller
    then parses from scratch)."""
    if mode is Mode.APPROXIMATE:
        return reparse_local(prev, new_text, start, end)
    if prev.root is None or isinstance(prev, ApproximateParse):
        return None  # an approximate tree lacks errors and duplicates an exact result must keep
    if not isinstance(new_text, str):
        return None  # the exact mode takes the text as one ``str`` (see the overloads)
    with gc_paused():
        if not prev.errors:
            result = _reparse_valid(prev, new_text, start, end)
            if result is not None:
                return result
        return reparse_tolerant(prev, new_text, start, end)


def _reparse_valid(prev: ParseResult, new_text: str, start: int, end: int) -> ParseResult | None:
    assert prev.root is not None
    delta = len(new_text) - len(prev.text)
    chain = enclosing_chain(prev.root, start, end)
    limit = max(4096, int(len(new_text) * MAX_LOCAL_FRACTION))
    for depth in range(len(chain) - 1, max(-1, len(chain) - 1 - MAX_LEVELS_TRIED), -1):
        target = chain[depth]
        new_end = target.end + delta
        if new_end - target.start > limit:
            return None
        sub = new_text[target.start : new_end]
        try:
            json.loads(sub, parse_constant=reject_constant)
        except (ValueError, RecursionError):
            continue
        local = parse_valid(sub)
        assert local.root is not None
        replacement = shift_copy(local.root, target.start)
        root = rebuild(chain[: depth + 1], replacement, delta)
        duplicates = _merge_duplicates(prev.duplicates, local.duplicates, target, delta)
        return ParseResult(new_text, root, [], duplicates)
    return None


def _merge_duplicates(
    previous: list[DuplicateKey], local: list[DuplicateKey], target: Node, delta: int
) -> list[DuplicateKey]:
    """Duplicate names outside the replaced value keep (shifted) offsets; those inside come from
    the local parse."""
    merged: list[DuplicateKey] = []
    for dup in previous:
        if all(target.start <= s and e <= target.end for s, e in dup.occurrences):
            continue  # inside the replaced value: superseded by the local parse
        merged.append(
            DuplicateKey(
                dup.key,
                tuple((s + delta, e + delta) if s >= target.end else (s, e) for s, e in dup.occurrences),
            )
        )
    merged.extend(
        DuplicateKey(d.key, tuple((s + target.start, e + target.start) for s, e in d.occurrences))
        for d in local
    )
    merged.sort(key=lambda d: d.occurrences[0])
    return merged
