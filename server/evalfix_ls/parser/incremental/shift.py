"""Tree surgery for the incremental re-parse (both modes): the chain of containers around an edit,
new ancestors for a replaced subtree, and subtrees moved by an offset.

Everything after an edit moves by ``delta``. Copying it eagerly costs a node per node of the rest of
the document (≈100 ms on 2 MB); most of it is never looked at again (the cases whose findings come
from the per-case cache). So the one lazily moved type, ``ShiftedNode``, copies a container's
children one level at a time, the first time someone asks for them; ``shift_copy`` is the eager copy
of a freshly parsed (small) subtree.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Generic, Protocol, TypeVar, final, overload

from ..tree import ARRAY, OBJECT, Member, Node


def enclosing_chain(root: Node, start: int, end: int) -> list[Node]:
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
            child = item_containing(node.items, start, end)
        node = child
    return chain


def item_containing(items: Sequence[Node], start: int, end: int) -> Node | None:
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


def rebuild(chain: list[Node], replacement: Node, delta: int, *, lazy_items: bool = False) -> Node:
    """New ancestors from the replaced node up to the root: earlier children shared, later ones
    shifted copies (each made lazily by ``shifted``). With ``lazy_items`` an array's later items are
    not even wrapped until read (``ShiftedNode.edited``): the approximate re-parse answers a request
    on a 10 MB suite, whose thousands of cases after a mid-file edit cost more to wrap than the
    request itself."""
    new_child = replacement
    old_child = chain[-1]
    for parent in reversed(chain[:-1]):
        copy: Node
        if parent.members is not None:
            copy = Node(parent.kind, parent.start, parent.end + delta, parent.value)
            members: list[Member] = []
            after = False
            for member in parent.members:
                if after:
                    member = shift_member(member, delta)  # values shifted lazily
                elif member.value is old_child:
                    member = Member(member.key, member.key_start, member.key_end, new_child)
                    after = True
                members.append(member)
            copy.members, copy.props = members, props_like(parent, members)
        else:
            items = parent.items or []
            index = index_of(items, old_child)
            head = [*items[:index], new_child]
            if lazy_items:
                copy = ShiftedNode.edited(parent, delta, head, index + 1)
            else:
                copy = Node(parent.kind, parent.start, parent.end + delta, parent.value)
                copy.items = [*head, *(shifted(item, delta) for item in items[index + 1 :])]
        new_child, old_child = copy, parent
    return new_child


def shift_copy(node: Node, delta: int) -> Node:
    """A plain copy of ``node``'s subtree with every offset moved by ``delta`` (iterative): for a
    value just parsed on its own, whose offsets count from its first character."""
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
                shifted_member = Member(member.key, member.key_start + delta, member.key_end + delta, copy)
                members.append(shifted_member)
                props[member.key] = shifted_member
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


def props_like(source: Node, members: list[Member]) -> dict[str, Member]:
    """``props`` for ``members`` (copies of ``source.members``, in order) holding the copies of the
    members ``source.props`` holds. A recovered tree has members that are not in ``props`` (names
    that were not strings, values without a name), so "the last member of each name" is not enough."""
    props: dict[str, Member] = {}
    old_props, old_members = source.props or {}, source.members or []
    if len(old_props) == len(old_members):  # every member is the last of its name
        for member in members:
            props[member.key] = member
        return props
    for old, new in zip(old_members, members, strict=True):
        if old_props.get(old.key) is old:
            props[new.key] = new
    return props


def index_of(items: Sequence[Node], child: Node) -> int:
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if items[mid].start < child.start:
            lo = mid + 1
        else:
            hi = mid
    return lo


def shift_member(member: Member, delta: int) -> Member:
    value = None if member.value is None else shifted(member.value, delta)
    return Member(member.key, member.key_start + delta, member.key_end + delta, value)


# -- lazily shifted subtrees ---------------------------------------------------------------------

_Value = TypeVar("_Value")


class _Slot(Protocol, Generic[_Value]):
    """A slot descriptor of ``Node`` (a ``member_descriptor``), typed with what its slot holds."""

    def __get__(self, instance: Node, owner: type[Node]) -> _Value: ...
    def __set__(self, instance: Node, value: _Value) -> None: ...


# The base class's slot descriptors: a ``ShiftedNode`` reads and writes its slots through them, as its
# properties of the same names hide them.
_MEMBERS: _Slot[list[Member] | None] = vars(Node)["members"]
_PROPS: _Slot[dict[str, Member] | None] = vars(Node)["props"]
_ITEMS: _Slot[Sequence[Node] | None] = vars(Node)["items"]
_MATERIALIZE_LOCK = threading.Lock()


def shifted(node: Node, delta: int) -> Node:
    """``node`` moved by ``delta``: scalars are copied, containers wrapped lazily (around the node
    a moved one was moved from, materialised or not: a case moved by every keystroke stays one
    view of the node first parsed, never a chain of views)."""
    if delta == 0:
        return node
    kind = node.kind
    if kind != OBJECT and kind != ARRAY:
        return Node(kind, node.start + delta, node.end + delta, node.value)
    if type(node) is ShiftedNode:
        origin = node._origin
        if origin is not None:
            return ShiftedNode(origin, node._delta + delta)
    return ShiftedNode(node, delta)


def unshifted(node: Node) -> tuple[Node, int]:
    """``(origin, delta)``: ``node`` is ``origin`` moved by ``delta`` (itself and 0 when it is no
    moved view). A reader that walks ``origin`` and adds ``delta`` reads what ``node`` holds without
    building its children, and finds the same ``origin`` keystroke after keystroke (per-case
    results keyed by it, ``services.case_memo``)."""
    if type(node) is ShiftedNode:
        origin = node._origin
        if origin is not None:
            return origin, node._delta
    return node, 0


def item_origins(items: Sequence[Node]) -> Iterator[tuple[Node, int]]:
    """``unshifted`` of each of ``items``, without creating the moved items of an edited array."""
    if type(items) is _MovedItems:
        yield from items.origins()
    else:
        for item in items:
            yield unshifted(item)


class ShiftedNode(Node):
    """A container equal to ``source`` moved by ``delta``; its children are created on first use.

    ``ShiftedNode.edited`` makes the other kind of moved array, one edited inside: its first items
    are a given ``head`` (in place), the source's items from ``skip`` on follow, moved — each one
    only when read, not all on the first read of ``items``."""

    __slots__ = ("_source", "_delta", "_origin")

    def __init__(self, source: Node, delta: int) -> None:
        self.kind = source.kind
        self.start = source.start + delta
        self.end = source.end + delta
        self.value = source.value
        _MEMBERS.__set__(self, None)
        _PROPS.__set__(self, None)
        _ITEMS.__set__(self, None)
        self._delta = delta
        # The node moved, or (``edited``) the items it will have: an edited array keeps no slot of
        # its own, as every store here is paid by each of the thousands of cases a keystroke moves.
        self._source: Node | _MovedItems | None = source
        # The node moved, kept once the children are built (``_source`` is then None): what
        # ``shifted`` and ``unshifted`` see through. None for an edited array (no plain move).
        self._origin: Node | None = source

    @classmethod
    def edited(cls, source: Node, delta: int, head: list[Node], skip: int) -> ShiftedNode:
        """The array ``source`` after an edit inside it: ``head``, then ``source.items[skip:]``
        moved by ``delta``. Its opening bracket lies before the edit and stays."""
        node = cls(source, delta)
        node.start = source.start
        node._source = _MovedItems(head, source.items or [], skip, delta)
        node._origin = None
        return node

    def _materialize(self) -> None:
        # The children are built outside the lock, which only guards the hand-over: one lock is
        # shared by every node, and a worker materialising the thousands of cases of a moved
        # array held it for milliseconds while a hover on another thread waited to read one node.
        # Two threads racing on one node both build; the first to hand over wins, the other's
        # copy is dropped, so every reader sees the same children.
        source = self._source
        if source is None:
            return
        delta = self._delta
        members: list[Member] | None = None
        props: dict[str, Member] | None = None
        items: Sequence[Node] | None = None
        if type(source) is _MovedItems:
            items = source
        elif source.kind == OBJECT:
            members = [shift_member(member, delta) for member in source.members or ()]
            props = props_like(source, members)
        else:
            items = [shifted(item, delta) for item in source.items or ()]
        with _MATERIALIZE_LOCK:
            if self._source is not source:
                return
            if members is not None:
                _PROPS.__set__(self, props)
                _MEMBERS.__set__(self, members)
            else:
                _ITEMS.__set__(self, items)
            self._source = None

    @property
    def members(self) -> list[Member] | None:
        if self._source is not None:
            self._materialize()
        return _MEMBERS.__get__(self, Node)

    @members.setter
    def members(self, value: list[Member] | None) -> None:
        _MEMBERS.__set__(self, value)

    @property
    def props(self) -> dict[str, Member] | None:
        if self._source is not None:
            self._materialize()
        return _PROPS.__get__(self, Node)

    @props.setter
    def props(self, value: dict[str, Member] | None) -> None:
        _PROPS.__set__(self, value)

    @property
    def items(self) -> Sequence[Node] | None:
        if self._source is not None:
            self._materialize()
        return _ITEMS.__get__(self, Node)

    @items.setter
    def items(self, value: Sequence[Node] | None) -> None:
        _ITEMS.__set__(self, value)


@final  # so that ``type(source) is not _MovedItems`` (fast, on a hot path) tells a Node from it
class _MovedItems(Sequence[Node]):
    """The items of an edited ``ShiftedNode``: ``head + source[start:]``, the latter moved by
    ``delta``, each created on first read (and kept). ``source`` may itself be such a view: nothing
    is read from it before it is needed."""

    __slots__ = ("_head", "_source", "_start", "_delta", "_moved")

    def __init__(self, head: list[Node], source: Sequence[Node], start: int, delta: int) -> None:
        self._head = head
        self._source = source
        self._start = start
        self._delta = delta
        self._moved: dict[int, Node] = {}

    def __len__(self) -> int:
        return len(self._head) + len(self._source) - self._start

    @overload
    def __getitem__(self, position: int) -> Node: ...
    @overload
    def __getitem__(self, position: slice) -> list[Node]: ...
    def __getitem__(self, position: int | slice) -> Node | list[Node]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        if position < len(self._head):
            return self._head[position]
        node = self._moved.get(position)
        if node is None:
            source = self._source[self._start + position - len(self._head)]
            node = self._moved[position] = shifted(source, self._delta)
        return node

    def __iter__(self) -> Iterator[Node]:
        for position in range(len(self)):
            yield self[position]

    def origins(self) -> Iterator[tuple[Node, int]]:
        """``unshifted`` of each item, in order; a moved item not read yet is not created."""
        for item in self._head:
            yield unshifted(item)
        source, delta = self._source, self._delta
        later = source.origins() if type(source) is _MovedItems else map(unshifted, source)
        for origin, by in islice(later, self._start, None):
            yield origin, by + delta
