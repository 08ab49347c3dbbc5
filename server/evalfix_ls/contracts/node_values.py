"""Typed reads of a tree node: what a rule knows after checking ``node.kind``, said so the type
checker knows it too (``Node.value`` is any decoded scalar, ``items``/``props`` are None outside
their container kind). The rules, the fixers and — through ``services.json_values`` — the editor
features read the tree with these.

Each accessor answers the "not that kind" case with a value the caller can test (None, or an empty
container), never by raising: the tree may be of text mid-typing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parser.tree import ARRAY, NUMBER, OBJECT, STRING, Member, Node


def string_of(node: Node | None) -> str | None:
    """The decoded text of a string node; None for anything else (absent included)."""
    if node is None or node.kind != STRING:
        return None
    value = node.value
    return value if isinstance(value, str) else None


def number_of(node: Node | None) -> float | None:
    """The IEEE double of a number node; None for anything else (absent included)."""
    if node is None or node.kind != NUMBER:
        return None
    value = node.value
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def items_of(node: Node | None) -> Sequence[Node]:
    """The elements of an array node; empty for anything else."""
    if node is None or node.kind != ARRAY:
        return ()
    return node.items or ()


def props_of(node: Node | None) -> dict[str, Member]:
    """Member name → the last member of that name, for an object node; empty for anything else."""
    if node is None or node.kind != OBJECT:
        return {}
    return node.props or {}
