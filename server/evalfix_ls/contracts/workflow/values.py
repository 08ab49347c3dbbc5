"""Values of workflow fixtures as the reference reads them, each kept with the node it came from.

The reference's small helpers (``stringArray``, ``new Set``, the slug, ``isNonEmptyExpected``,
``String(value)`` throwing) with JavaScript semantics, plus ``Anchor``: where a finding about a value
is shown. ``normalize`` builds records from them; rules and hints point with the anchors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...js.values import js_trim
from ...json_value import JsonValue, is_json_value
from ...parser.tree import ARRAY, NULL, OBJECT, STRING, Node, join_pointer
from ...parser.values import items_of, props_of, string_of

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a finding is attached: an RFC 6901 pointer and the code-point range shown.

    For a missing member the pointer is the parent and the range its opening ``{`` (one character).
    """

    pointer: str
    start: int
    end: int


def anchor_at(node: Node, pointer: str) -> Anchor:
    return Anchor(pointer, node.start, node.end)


def anchor_missing(parent: Node, pointer: str) -> Anchor:
    """The anchor for a member that is absent from ``parent`` (a case that is not an object has no
    ``{`` to point at, so its whole range is used)."""
    if parent.kind == OBJECT:
        return Anchor(pointer, parent.start, parent.start + 1)
    return Anchor(pointer, parent.start, parent.end)


@dataclass(frozen=True, slots=True)
class Located:
    """A string the normalizer kept from a list member, with its node. ``inherited`` marks a
    top-level value that every case receives."""

    value: str
    node: Node
    pointer: str
    inherited: bool = False

    @property
    def anchor(self) -> Anchor:
        return anchor_at(self.node, self.pointer)


def is_non_empty_string(node: Node | None) -> bool:
    """``typeof v === "string" && v.trim().length > 0`` with JavaScript's ``trim``."""
    return non_empty_text(node) is not None


def non_empty_text(node: Node | None) -> str | None:
    """The string of ``node`` when ``is_non_empty_string`` holds (as written, untrimmed), else None."""
    text = string_of(node)
    return text if text is not None and js_trim(text) != "" else None


def string_array(node: Node | None, pointer: str, *, inherited: bool = False) -> list[Located]:
    """The reference's ``stringArray``: absent/null → []; an array → its non-empty strings (others
    dropped silently); a non-empty string → itself; anything else → []."""
    if node is None or node.kind == NULL:
        return []
    if node.kind == ARRAY:
        return [
            Located(text, item, join_pointer(pointer, index), inherited)
            for index, item in enumerate(items_of(node))
            if (text := non_empty_text(item)) is not None
        ]
    text = non_empty_text(node)
    return [] if text is None else [Located(text, node, pointer, inherited)]


def unique(items: list[Located]) -> list[Located]:
    """``[...new Set(values)]``: exact string equality, first occurrence kept."""
    seen: set[str] = set()
    out = []
    for item in items:
        if item.value not in seen:
            seen.add(item.value)
            out.append(item)
    return out


def slugify(value: str) -> str:
    """``trim → toLowerCase → /[^a-z0-9]+/g → "-" → /^-|-$/g → ""``."""
    slug = _NOT_SLUG.sub("-", js_trim(value).lower())
    if slug.startswith("-"):
        slug = slug[1:]
    if slug.endswith("-"):
        slug = slug[:-1]
    return slug


def is_non_empty_outcome(node: Node | None) -> bool:
    """``isNonEmptyExpected``: a non-empty string somewhere in the value, looking through arrays and
    object values (the last value of a repeated member name, as ``JSON.parse`` keeps it).
    Iterative, so deep nesting is safe."""
    pending = [node] if node is not None else []
    while pending:
        current = pending.pop()
        if current.kind == STRING:
            if non_empty_text(current) is not None:
                return True
        elif current.kind == ARRAY:
            pending.extend(items_of(current))
        elif current.kind == OBJECT:
            pending.extend(member.value for member in props_of(current).values() if member.value is not None)
    return False


def js_string_throws(node: Node | None) -> bool:
    """Whether ``String(value)`` throws a TypeError: an object with an own ``toString`` member (never
    callable in JSON, and ``valueOf`` then returns the object itself), or an array holding one
    (``join`` converts its elements). The reference converts ``skill`` for every case and an invalid
    authority for its message, so such a value makes it throw (§8)."""
    pending = [node] if node is not None else []
    while pending:
        current = pending.pop()
        if current.kind == OBJECT:
            if current.has("toString"):
                return True
        elif current.kind == ARRAY:
            pending.extend(items_of(current))
    return False


def to_python(node: Node | None) -> JsonValue:
    """A plain Python value for a node (objects keep the last value of a repeated name).
    Iterative, so deep nesting is safe."""
    if node is None:
        return None
    if node.kind not in (OBJECT, ARRAY):
        return _scalar(node)
    result = _empty_container(node)
    pending = [(node, result)]
    while pending:
        current, target = pending.pop()
        children = (
            [(name, member.value) for name, member in props_of(current).items() if member.value is not None]
            if current.kind == OBJECT
            else list(enumerate(items_of(current)))
        )
        for key, child in children:
            value: JsonValue
            if child.kind in (OBJECT, ARRAY):
                container = _empty_container(child)
                pending.append((child, container))
                value = container
            else:
                value = _scalar(child)
            if isinstance(target, dict):
                target[str(key)] = value  # (a member name: already a str)
            else:
                target.append(value)
    return result


def _empty_container(node: Node) -> dict[str, JsonValue] | list[JsonValue]:
    return {} if node.kind == OBJECT else []


def _scalar(node: Node) -> JsonValue:
    """The decoded value of a string, number, literal or invalid token (the parser's values are
    all JSON scalars; anything else would be written as its text, like ``String(value)``)."""
    value = node.value
    return value if is_json_value(value) else str(value)
