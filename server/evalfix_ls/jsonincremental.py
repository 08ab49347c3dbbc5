"""Re-parse after an edit by replacing only the innermost value that contains it.

Typing inside one case of a 10 MB suite must not cost a full parse. When the previous version parsed
cleanly and an edit lies strictly inside one value (its first and last characters untouched), only
that value's new text is parsed; if it is valid on its own, the document is valid too. The new tree
shares every node before the edit with the previous tree, holds the freshly parsed value, and copies
(shifted) what follows the edit, so both versions stay immutable snapshots.
"""

from __future__ import annotations

import json

from .gcpause import gc_paused
from .jsontree import (
    DuplicateKey,
    Member,
    Node,
    ParseResult,
    parse_valid,
    reject_constant,
)

# Beyond this size (code points) re-parsing the enclosing value is no cheaper than starting over.
MAX_LOCAL_FRACTION = 0.5
MAX_LEVELS_TRIED = 3


def reparse(prev: ParseResult, new_text: str, start: int, end: int) -> ParseResult | None:
    """``new_text`` is ``prev.text`` with ``[start, end)`` replaced. Returns the parse of
    ``new_text`` built from ``prev``, or None when the edit is not local to one valid value (the
    caller then parses from scratch)."""
    if prev.errors or prev.root is None:
        return None
    with gc_paused():
        return _reparse(prev, new_text, start, end)


def _reparse(prev: ParseResult, new_text: str, start: int, end: int) -> ParseResult | None:
    delta = len(new_text) - len(prev.text)
    chain = _enclosing_chain(prev.root, start, end)
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
        root = _rebuild(chain[: depth + 1], replacement, delta)
        duplicates = _merge_duplicates(prev.duplicates, local.duplicates, target, delta)
        return ParseResult(new_text, root, [], duplicates)
    return None


def _enclosing_chain(root: Node, start: int, end: int) -> list[Node]:
    """Nodes from the root down that strictly contain ``[start, end)`` (their first and last
    characters untouched). Member names are never crossed: an edit on a name stays with its object."""
    chain: list[Node] = []
    node: Node | None = root
    while node is not None and node.start < start and end < node.end:
        chain.append(node)
        child = None
        if node.members is not None:
            for member in node.members:
                value = member.value
                if member.key_start <= end and start <= member.key_end:
                    break  # the edit touches a name: the object itself is the smallest value
                if value is not None and value.start < start and end < value.end:
                    child = value
                    break
        elif node.items is not None:
            child = _item_containing(node.items, start, end)
        node = child
    return chain


def _item_containing(items: list[Node], start: int, end: int) -> Node | None:
    lo, hi = 0, len(items)
    while lo < hi:  # last item starting before ``start``
        mid = (lo + hi) // 2
        if items[mid].start < start:
            lo = mid + 1
        else:
            hi = mid
    if lo and items[lo - 1].start < start and end < items[lo - 1].end:
        return items[lo - 1]
    return None


def _rebuild(chain: list[Node], replacement: Node, delta: int) -> Node:
    """New ancestors from the replaced node up to the root: earlier children shared, later ones
    shifted copies."""
    new_child = replacement
    old_child = chain[-1]
    for parent in reversed(chain[:-1]):
        copy = Node(parent.kind, parent.start, parent.end + delta, parent.value)
        if parent.members is not None:
            members: list[Member] = []
            props: dict[str, Member] = {}
            after = False
            for member in parent.members:
                if after:
                    member = _shift_member(member, delta)
                elif member.value is old_child:
                    member = Member(member.key, member.key_start, member.key_end, new_child)
                    after = True
                members.append(member)
                props[member.key] = member
            copy.members, copy.props = members, props
        else:
            items = parent.items
            index = _index_of(items, old_child)
            copy.items = [
                *items[:index],
                new_child,
                *(_shift_copy(item, delta) for item in items[index + 1 :]),
            ]
        new_child, old_child = copy, parent
    return new_child


def _index_of(items: list[Node], child: Node) -> int:
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if items[mid].start < child.start:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _shift_member(member: Member, delta: int) -> Member:
    value = None if member.value is None else _shift_copy(member.value, delta)
    return Member(member.key, member.key_start + delta, member.key_end + delta, value)


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
