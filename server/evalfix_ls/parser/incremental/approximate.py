"""The approximate mode of the incremental re-parse (``incremental.reparse(..., Mode.APPROXIMATE)``):
a cheap tree of a new version for editing features, built from an earlier version's tree.

A completion request arrives right after the keystroke that made the text invalid (``"kind":
"em``), long before the analysis of a 10 MB suite is done; it must not parse the whole text again.
``reparse_local`` keeps the earlier tree and re-parses only the region around the edit with the
recovering parser: the innermost value that contains the edit when it is small, else the children
of the innermost container between the last untouched one before the edit and the first
untouched one after it. Everything before is shared, everything after shifted (lazily; the items
of an array edited inside are not even wrapped until read, ``ShiftedNode.edited``).

The result, an ``ApproximateParse``, is for features only (completion, hover): its ``errors`` are
those of the re-parsed region, not of the document, and duplicate names are not tracked. ``new_text`` may be a
``PieceText`` (the version's ``str`` not built yet): only the re-parsed region is sliced out.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from ...memory.gc_pause import gc_paused
from ...text.pieces import Text
from ..tolerant import parse_tolerant
from ..tree import ARRAY, OBJECT, ApproximateParse, Member, Node, ParseResult, SyntaxIssue
from .shift import ShiftedNode, enclosing_chain, rebuild, shift_copy, shift_member

LOCAL_LIMIT = 16384  # code points re-parsed by the recovering parser (about 2 ms)
_CLOSER = {OBJECT: "}", ARRAY: "]"}
_OPENER = {OBJECT: "{", ARRAY: "["}


def reparse_local(prev: ParseResult, new_text: Text, start: int, old_end: int) -> ApproximateParse | None:
    """The tree of ``new_text`` (``prev.text`` with ``[start, old_end)`` replaced), re-parsing
    only around the edit; None when no small enough region can be found (the caller then parses
    the whole text)."""
    if prev.root is None:
        return None
    with gc_paused():  # see gcpause: nodes allocated here must not trigger full collections
        return _reparse_recovering(prev, prev.root, new_text, start, old_end)


def _reparse_recovering(
    prev: ParseResult, root: Node, new_text: Text, start: int, old_end: int
) -> ApproximateParse | None:
    delta = len(new_text) - len(prev.text)
    chain = enclosing_chain(root, start, old_end)
    if not chain:
        return None
    for depth in range(len(chain) - 1, -1, -1):
        target = chain[depth]
        if target.kind not in _CLOSER or not _bracketed(target, new_text, delta):
            continue
        if target.end + delta - target.start <= LOCAL_LIMIT:
            replacement, errors = _reparse_value(target, new_text, delta)
        else:
            window = _reparse_window(target, new_text, start, old_end, delta)
            if window is None:
                return None
            replacement, errors = window
        root = rebuild(chain[: depth + 1], replacement, delta, lazy_items=True)
        return ApproximateParse(new_text, root, errors, [])
    return None


def _bracketed(node: Node, text: Text, delta: int) -> bool:
    """The container's first and last characters are still its brackets in the new text."""
    end = node.end + delta
    return 0 <= node.start < end <= len(text) and (
        text[node.start] == _OPENER[node.kind] and text[end - 1] == _CLOSER[node.kind]
    )


def _reparse_value(target: Node, text: Text, delta: int) -> tuple[Node, list[SyntaxIssue]]:
    local = parse_tolerant(text[target.start : target.end + delta])
    root = local.root
    if root is None:  # pragma: no cover - a bracketed text always yields a container
        root = Node(target.kind, 0, target.end + delta - target.start)
    return shift_copy(root, target.start), _shift_errors(local.errors, target.start)


def _reparse_window(
    target: Node, text: Text, start: int, old_end: int, delta: int
) -> tuple[Node, list[SyntaxIssue]] | None:
    """A big container: keep its children before and after the edit, re-parse those between."""
    if target.kind == ARRAY:
        spans = [(item.start, item.end) for item in target.items or ()]
    else:
        spans = [
            (m.key_start, m.value.end if m.value is not None else m.key_end) for m in target.members or ()
        ]
    ends = [end for _, end in spans]
    starts = [begin for begin, _ in spans]
    before = bisect_right(ends, start)  # children ending at or before the edit
    after = bisect_left(starts, old_end)  # the first child starting at or after its end
    gap_start = spans[before - 1][1] if before else target.start + 1
    gap_end = (spans[after][0] if after < len(spans) else target.end - 1) + delta
    if gap_end - gap_start > LOCAL_LIMIT or gap_end < gap_start:
        return None
    # The commas joining the window to the kept children on either side are theirs, not its.
    if before:
        gap_start = _past_comma(text, gap_start, gap_end)
    if after < len(spans):
        gap_end = _before_comma(text, gap_start, gap_end)
    opener = _OPENER[target.kind]
    local = parse_tolerant(opener + text[gap_start:gap_end] + _CLOSER[target.kind])
    if local.root is None or local.root.kind != target.kind:
        return None
    middle = shift_copy(local.root, gap_start - 1)
    if target.kind == ARRAY:
        head = [*(target.items or [])[:before], *(middle.items or ())]
        copy: Node = ShiftedNode.edited(target, delta, head, after)
    else:
        copy = Node(target.kind, target.start, target.end + delta, target.value)
        members = target.members or []
        kept: list[Member] = [
            *members[:before],
            *(middle.members or ()),
            *(shift_member(m, delta) for m in members[after:]),
        ]
        copy.members, copy.props = kept, {m.key: m for m in kept}
    return copy, _shift_errors(local.errors, gap_start - 1)


def _past_comma(text: Text, start: int, end: int) -> int:
    index = start
    while index < end and text[index] in " \t\r\n":
        index += 1
    return index + 1 if index < end and text[index] == "," else start


def _before_comma(text: Text, start: int, end: int) -> int:
    index = end - 1
    while index >= start and text[index] in " \t\r\n":
        index -= 1
    return index if index >= start and text[index] == "," else end


def _shift_errors(errors: list[SyntaxIssue], by: int) -> list[SyntaxIssue]:
    return [e.moved(by) for e in errors]
