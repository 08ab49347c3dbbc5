"""Typed reads of a tree node — the one accessor module of every layer (parser, contracts, services).

Each says what a caller knows after checking ``node.kind``, so the type checker knows it too
(``Node.value`` is any decoded scalar, ``items``/``members``/``props`` are None outside their
container kind). Each answers the "not there / not that kind" case with a value the caller can test
(None, or an empty container), never by raising: the tree may be of text mid-typing, malformed or
half-typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from .tree import ARRAY, NUMBER, OBJECT, STRING, Member, Node


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


def members_of(node: Node | None) -> Sequence[Member]:
    """Every member of an object node, in order (duplicates included); none for anything else."""
    if node is None or node.kind != OBJECT:
        return ()
    return node.members or ()


def valued_members(node: Node | None) -> list[tuple[Member, Node]]:
    """Each member of an object node with its value, leaving out any that recovery found no value for."""
    return [(member, value) for member in members_of(node) if (value := member.value) is not None]


def member_value(node: Node | None, name: str) -> Node | None:
    """The value of member ``name`` when ``node`` is an object that has it (only objects have members)."""
    return None if node is None else node.get(name)
