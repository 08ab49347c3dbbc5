"""Re-parse after an edit by replacing only the part of the tree the edit can affect.

Typing inside one case of a 10 MB suite must not cost a full parse. When the previous version parsed
cleanly and an edit lies strictly inside one value (its first and last characters untouched), only
that value's new text is parsed; if it is valid on its own, the document is valid too. The new tree
shares every node before the edit with the previous tree, holds the freshly parsed value, and
shifts what follows the edit (lazily: a moved container copies its children on first use), so both
versions stay immutable snapshots.

Edits that make the document invalid, or keep it invalid, take the recovering path
(``splice``): the tolerant parser is resumed inside the innermost container around the
edit, in the state a full parse has there, and stopped where its state meets the previous parse's
again: where that container closes, or (arrays: the case array of a large suite) at the first item
boundary after the edit that was an item boundary before. Everything after that point is the
previous parse shifted; the result equals a full tolerant parse of the new text.
"""

from __future__ import annotations

import json

from .fast import parse_valid, reject_constant
from .gcpause import gc_paused
from .shift import enclosing_chain, rebuild
from .splice import reparse_tolerant
from .tree import DuplicateKey, Member, Node, ParseResult

# Beyond this size (code points) re-parsing the enclosing value is no cheaper than starting over.
MAX_LOCAL_FRACTION = 0.5
MAX_LEVELS_TRIED = 3


def reparse(prev: ParseResult, new_text: str, start: int, end: int) -> ParseResult | None:
    """``new_text`` is ``prev.text`` with ``[start, end)`` replaced. Returns the parse of
    ``new_text`` built from ``prev``, or None when the edit is not local (the caller then parses
    from scratch)."""
    if prev.root is None:
        return None
    with gc_paused():
        if not prev.errors:
            result = _reparse(prev, new_text, start, end)
            if result is not None:
                return result
        return reparse_tolerant(prev, new_text, start, end)


def _reparse(prev: ParseResult, new_text: str, start: int, end: int) -> ParseResult | None:
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
        replacement = _shift_copy(local.root, target.start)
        root = rebuild(chain[: depth + 1], replacement, delta)
        duplicates = _merge_duplicates(prev.duplicates, local.duplicates, target, delta)
        return ParseResult(new_text, root, [], duplicates)
    return None


def _shift_copy(node: Node, delta: int) -> Node:
    """A copy of ``node``'s subtree with every offset moved by ``delta`` (iterative)."""
    top = Node(node.kind, node.start + delta, node.end + delta, node.value)
    pending = [(node, top)]
    while pending:
        old, new = pending.pop()
        if old.members is not None:
            members: list[Member] = []
            props: dict[str, Member] = {}
            for member in old.members:
                value = member.value
                copy = None
                if value is not None:
                    copy = Node(value.kind, value.start + delta, value.end + delta, value.value)
                    if value.members is not None or value.items is not None:
                        pending.append((value, copy))
                shifted = Member(member.key, member.key_start + delta, member.key_end + delta, copy)
                members.append(shifted)
                props[member.key] = shifted
            new.members, new.props = members, props
        elif old.items is not None:
            items: list[Node] = []
            for item in old.items:
                copy = Node(item.kind, item.start + delta, item.end + delta, item.value)
                if item.members is not None or item.items is not None:
                    pending.append((item, copy))
                items.append(copy)
            new.items = items
    return top


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
