"""The positioned JSON tree: values and member names with their character offsets, the syntax
errors and duplicate keys of a parse, JSON pointers and the path at an offset.

The parsers that build it live beside it (``fast``, ``tolerant``, ``incremental``; ``parse`` in the
package picks one); this module imports none of them. Containers never recurse on nesting depth
anywhere here: 100,000-deep arrays are walked like any other file.

Semantics follow JavaScript's ``JSON.parse``: numbers are IEEE doubles (a 400-digit integer
overflows to ``inf``), duplicate member names keep the last value and every occurrence is recorded."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..text.pieces import Text

OBJECT = "object"
ARRAY = "array"
STRING = "string"
NUMBER = "number"
BOOLEAN = "boolean"
NULL = "null"
INVALID = "invalid"  # a value token that is not JSON (NaN, 'single', an identifier…)
SEPARATOR = ","  # ``SyntaxIssue.missing`` of a comma missing between two items


class Node:
    """A JSON value with its offsets ``[start, end)`` in the document text (code points).

    ``value`` is the decoded scalar for strings (``str``), numbers (``float``), booleans and null
    (``None``). Objects keep ``members`` (every occurrence, in order) and ``props`` (name → the last
    member with that name, as ``JSON.parse`` keeps it). Arrays keep ``items``: a list, except in
    an array an edit moved (``shift.ShiftedNode``), whose items after the edit are created when
    read — so it is typed as a ``Sequence``, and only a parser filling its own lists appends.
    """

    __slots__ = ("kind", "start", "end", "value", "members", "props", "items")

    def __init__(self, kind: str, start: int, end: int, value: object = None) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
        self.members: list[Member] | None = None
        self.props: dict[str, Member] | None = None
        self.items: Sequence[Node] | None = None

    # -- convenience for rules ---------------------------------------------------------------
    def get(self, name: str) -> Node | None:
        """The value of member ``name`` (the last one, as JS keeps it), or None if absent."""
        props = self.props
        if props is None:
            return None
        member = props.get(name)
        return None if member is None else member.value

    def has(self, name: str) -> bool:
        props = self.props
        return props is not None and name in props

    def member(self, name: str) -> Member | None:
        props = self.props
        return None if props is None else props.get(name)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Node({self.kind}, {self.start}, {self.end}, {self.value!r})"


class Member:
    """One ``"name": value`` pair. ``value`` is None when recovery found no value."""

    __slots__ = ("key", "key_start", "key_end", "value")

    def __init__(self, key: str, key_start: int, key_end: int, value: Node | None = None) -> None:
        self.key = key
        self.key_start = key_start
        self.key_end = key_end
        self.value = value


@dataclass(frozen=True, slots=True)
class SyntaxIssue:
    """A place where ``JSON.parse`` would throw. ``start == end`` marks a zero-width position.

    A container left without its closer says so in fields (``missing``: the closer, ``opener``:
    where the container opened), which the incremental re-parse moves with the text; its message
    is written from them (``unclosed``), never read back. So does a comma missing before an item
    (``missing == ","``, reported on the item's first token): the container's error, not the item's."""

    message: str
    start: int
    end: int
    # "}" or "]": the closer a container never got; ",": the separator missing before this item
    missing: str | None = None
    opener: int | None = None  # the offset of that container's opening bracket

    @property
    def separator_missing(self) -> bool:
        """A comma missing before an item: its container's error (the item may well be intact)."""
        return self.missing == SEPARATOR

    @property
    def closed_implicitly(self) -> bool:
        """A container closed by an outer closer or by layout: reported at its opening bracket,
        but produced when it closes (after what it holds)."""
        return self.missing is not None and self.start == self.opener

    def moved(self, by: int, opener_by: int | None = None) -> SyntaxIssue:
        """The same issue ``by`` characters later; its opener ``opener_by`` later (default ``by``)."""
        if self.missing is None or self.opener is None:
            return SyntaxIssue(self.message, self.start + by, self.end + by, self.missing)
        opener = self.opener + (by if opener_by is None else opener_by)
        if self.closed_implicitly:
            return unclosed(self.missing, opener)
        return unclosed(self.missing, opener, end_of_text=self.start + by)


def unclosed(missing: str, opener: int, *, end_of_text: int | None = None) -> SyntaxIssue:
    """A container opened at ``opener`` that lacks ``missing``: closed implicitly (reported at its
    bracket), or still open where the text ends (reported there, ``end_of_text``)."""
    kind = OBJECT if missing == "}" else ARRAY
    if end_of_text is None:
        return SyntaxIssue(f"missing '{missing}' to close this {kind}", opener, opener + 1, missing, opener)
    message = f"unexpected end of text: missing '{missing}' to close the {kind} opened at offset {opener}"
    return SyntaxIssue(message, end_of_text, end_of_text, missing, opener)


Span = tuple[int, int]


class DuplicateKey:
    """Every occurrence of a member name that appears more than once in one object:
    ``occurrences`` holds the (key_start, key_end) of each, in order.

    While a parse records occurrences they grow in a list (``record_duplicate`` appends in place:
    copying a tuple per occurrence made 200,000 repetitions of one name quadratic); the first read
    freezes them into a tuple.
    """

    __slots__ = ("key", "_occurrences")

    def __init__(self, key: str, occurrences: tuple[Span, ...] | list[Span]) -> None:
        self.key = key
        self._occurrences = occurrences

    @property
    def occurrences(self) -> tuple[Span, ...]:
        occurrences = self._occurrences
        if isinstance(occurrences, list):
            occurrences = self._occurrences = tuple(occurrences)
        return occurrences

    def _append(self, span: Span) -> None:
        """Add one occurrence; amortised O(1) until the first read, a copy after it."""
        occurrences = self._occurrences
        if isinstance(occurrences, list):
            occurrences.append(span)
        else:
            self._occurrences = [*occurrences, span]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DuplicateKey):
            return NotImplemented
        return self.key == other.key and self.occurrences == other.occurrences

    def __hash__(self) -> int:
        return hash((self.key, self.occurrences))

    def __repr__(self) -> str:
        return f"DuplicateKey({self.key!r}, {self.occurrences!r})"


@dataclass(slots=True)
class ParseResult:
    """The parse of ``text``: built by a full parse, or by the exact incremental re-parse, which
    gives the same result."""

    text: Text  # a ``PieceText`` only in an ``ApproximateParse``
    root: Node | None
    errors: list[SyntaxIssue]
    duplicates: list[DuplicateKey]
    # Starts of the containers the recovering parser closed without their own closer (at the end of
    # the text, with an outer container's closer, or by layout); always empty for valid text.
    unclosed: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass(slots=True)
class ApproximateParse(ParseResult):
    """The approximate incremental re-parse (``incremental.reparse(..., Mode.APPROXIMATE)``), for
    editing features: its tree is that of a full parse where features look (around the edit, and
    everything else shared or shifted), but ``errors`` are those of the re-parsed region only and
    duplicate names are not tracked. Never the base of an exact re-parse."""


def record_duplicate(
    index: dict[tuple[int, str], int],
    duplicates: list[DuplicateKey],
    obj: Node,
    key: str,
    previous: Member,
    current: Member,
) -> None:
    slot = (id(obj), key)
    at = index.get(slot)
    if at is None:
        index[slot] = len(duplicates)
        duplicates.append(
            DuplicateKey(key, [(previous.key_start, previous.key_end), (current.key_start, current.key_end)])
        )
    else:
        duplicates[at]._append((current.key_start, current.key_end))


# -- pointers and navigation -------------------------------------------------------------------


def escape_pointer_token(token: str | int) -> str:
    if isinstance(token, int):
        return str(token)
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_pointer_token(t) for t in tokens)


def pointer_tokens(pointer: str) -> list[str]:
    """The reference tokens of an RFC 6901 pointer, unescaped (``""``, the whole document: none)."""
    return [unescape_pointer_token(raw) for raw in pointer.split("/")[1:]]


def split_pointer(pointer: str) -> tuple[str, str]:
    """The pointer of the parent and the last reference token, unescaped."""
    head, _, raw = pointer.rpartition("/")
    return head, unescape_pointer_token(raw)


def unescape_pointer_token(raw: str) -> str:
    return raw.replace("~1", "/").replace("~0", "~")  # in this order: "~01" is "~1"


def resolve_pointer(root: Node | None, pointer: str) -> Node | None:
    """The node at an RFC 6901 pointer, or None."""
    node = root
    if pointer == "":
        return node
    for token in pointer_tokens(pointer):
        if node is None:
            return None
        if node.kind == OBJECT:
            node = node.get(token)
        elif node.kind == ARRAY and token.isdigit():
            items, index = node.items, int(token)
            node = items[index] if items is not None and index < len(items) else None
        else:
            return None
    return node


@dataclass(frozen=True, slots=True)
class PathStep:
    """One step from the root towards an offset: the container and how we went into it."""

    container: Node
    key: str | int  # member name or array index
    member: Member | None  # the member, for objects


def path_at(root: Node | None, offset: int) -> tuple[list[PathStep], Node | None, Member | None]:
    """Descend from the root to the innermost node containing ``offset``.

    Returns the steps taken, the innermost node (or None), and — when the offset lies on a member
    name — that member. Iterative, so any depth works; uses binary search in big containers.
    """
    steps: list[PathStep] = []
    if root is None or not (root.start <= offset <= root.end):
        return steps, None, None
    node = root
    while True:
        members = node.members if node.kind == OBJECT else None
        if members:
            found: Member | None = None
            found_value: Node | None = None
            for member in _candidates(members, offset):
                value = member.value
                if member.key_start <= offset <= member.key_end:
                    steps.append(PathStep(node, member.key, member))
                    return steps, node, member
                if value is not None and value.start <= offset <= value.end:
                    found, found_value = member, value
                    break
            if found is None or found_value is None:
                return steps, node, None
            steps.append(PathStep(node, found.key, found))
            node = found_value
            continue
        items = node.items if node.kind == ARRAY else None
        if items:
            found_index = -1
            lo, hi = 0, len(items)
            while lo < hi:  # last item whose start <= offset
                mid = (lo + hi) // 2
                if items[mid].start <= offset:
                    lo = mid + 1
                else:
                    hi = mid
            for idx in (lo - 1, lo):
                if 0 <= idx < len(items) and items[idx].start <= offset <= items[idx].end:
                    found_index = idx
                    break
            if found_index < 0:
                return steps, node, None
            steps.append(PathStep(node, found_index, None))
            node = items[found_index]
            continue
        return steps, node, None


def _candidates(members: list[Member], offset: int) -> Iterator[Member]:
    """Members that may contain ``offset``: binary search on their names' starts, then neighbours."""
    lo, hi = 0, len(members)
    while lo < hi:
        mid = (lo + hi) // 2
        if members[mid].key_start <= offset:
            lo = mid + 1
        else:
            hi = mid
    for idx in (lo - 1, lo, lo - 2):
        if 0 <= idx < len(members):
            yield members[idx]


def pointer_of(steps: list[PathStep]) -> str:
    return join_pointer("", *(step.key for step in steps))


def iter_nodes(root: Node | None) -> Iterator[Node]:
    """Every node of the tree, depth first, without recursion."""
    if root is None:
        return
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        if node.kind == OBJECT:
            members = node.members
            if members is not None:
                pending.extend(m.value for m in reversed(members) if m.value is not None)
        elif node.kind == ARRAY:
            items = node.items
            if items is not None:
                pending.extend(reversed(items))
