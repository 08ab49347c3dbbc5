"""Re-parse after an edit by replacing only the innermost value that contains it.

Typing inside one case of a 10 MB suite must not cost a full parse. When the previous version parsed
cleanly and an edit lies strictly inside one value (its first and last characters untouched), only
that value's new text is parsed; if it is valid on its own, the document is valid too. The new tree
shares every node before the edit with the previous tree, holds the freshly parsed value, and
shifts what follows the edit (lazily: a moved container copies its children on first use), so both
versions stay immutable snapshots.
"""

from __future__ import annotations

import json
import threading

from .fast import parse_valid, reject_constant
from .gcpause import gc_paused
from .tree import ARRAY, OBJECT, DuplicateKey, Member, Node, ParseResult

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
                    member = _shift_member(member, delta)  # values shifted lazily
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
                *(shifted(item, delta) for item in items[index + 1 :]),
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
    value = None if member.value is None else shifted(member.value, delta)
    return Member(member.key, member.key_start + delta, member.key_end + delta, value)


# -- lazily shifted subtrees ---------------------------------------------------------------------
# Everything after an edit moves by ``delta``. Copying it eagerly costs a node per node of the rest
# of the document (≈100 ms on 2 MB); most of it is never looked at again (the cases whose findings
# come from the per-case cache). A shifted container copies its children one level at a time, the
# first time someone asks for them.

_MEMBERS, _PROPS, _ITEMS = Node.members, Node.props, Node.items  # the base class's slot descriptors
_MATERIALIZE_LOCK = threading.Lock()


def shifted(node: Node, delta: int) -> Node:
    """``node`` moved by ``delta``: scalars are copied, containers wrapped lazily."""
    if delta == 0:
        return node
    kind = node.kind
    if kind != OBJECT and kind != ARRAY:
        return Node(kind, node.start + delta, node.end + delta, node.value)
    if type(node) is ShiftedNode:
        source = node._source  # read once: another thread may materialise it meanwhile
        if source is not None:
            return ShiftedNode(source, node._delta + delta)
    return ShiftedNode(node, delta)


class ShiftedNode(Node):
    """A container equal to ``source`` moved by ``delta``; its children are created on first use."""

    __slots__ = ("_source", "_delta")

    def __init__(self, source: Node, delta: int) -> None:
        self.kind = source.kind
        self.start = source.start + delta
        self.end = source.end + delta
        self.value = source.value
        _MEMBERS.__set__(self, None)
        _PROPS.__set__(self, None)
        _ITEMS.__set__(self, None)
        self._delta = delta
        self._source: Node | None = source

    def _materialize(self) -> None:
        with _MATERIALIZE_LOCK:
            source = self._source
            if source is None:
                return
            delta = self._delta
            if source.kind == OBJECT:
                members = [_shift_member(member, delta) for member in source.members]
                props: dict[str, Member] = {}
                for member in members:
                    props[member.key] = member
                _PROPS.__set__(self, props)
                _MEMBERS.__set__(self, members)
            else:
                _ITEMS.__set__(self, [shifted(item, delta) for item in source.items])
            self._source = None

    @property
    def members(self) -> list[Member] | None:  # type: ignore[override]
        if self._source is not None:
            self._materialize()
        return _MEMBERS.__get__(self, Node)

    @members.setter
    def members(self, value: list[Member] | None) -> None:
        _MEMBERS.__set__(self, value)

    @property
    def props(self) -> dict[str, Member] | None:  # type: ignore[override]
        if self._source is not None:
            self._materialize()
        return _PROPS.__get__(self, Node)

    @props.setter
    def props(self, value: dict[str, Member] | None) -> None:
        _PROPS.__set__(self, value)

    @property
    def items(self) -> list[Node] | None:  # type: ignore[override]
        if self._source is not None:
            self._materialize()
        return _ITEMS.__get__(self, Node)

    @items.setter
    def items(self, value: list[Node] | None) -> None:
        _ITEMS.__set__(self, value)


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
