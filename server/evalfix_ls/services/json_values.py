"""Typed reads of a positioned JSON tree, for features that meet any shape: the user's JSON may be
malformed or half-typed, so each accessor answers "not there" (None, no items) instead of raising,
and gives a type the checker can follow (``Node.value`` is any decoded scalar)."""

from __future__ import annotations

from ..parser.tree import ARRAY, OBJECT, STRING, Member, Node


def string_of(node: Node | None) -> str | None:
    """The decoded text of a string node; None for anything else."""
    if node is None or node.kind != STRING:
        return None
    value = node.value
    return value if isinstance(value, str) else None


def items_of(node: Node | None) -> list[Node]:
    """The items of an array node; none for anything else (an object, a scalar, nothing)."""
    if node is None or node.kind != ARRAY:
        return []
    items = node.items
    return [] if items is None else items


def members_of(node: Node | None) -> list[Member]:
    """Every member of an object node, in order (duplicates included); none for anything else."""
    if node is None or node.kind != OBJECT:
        return []
    members = node.members
    return [] if members is None else members


def member_value(node: Node | None, name: str) -> Node | None:
    """The value of member ``name`` when ``node`` is an object that has it."""
    return node.get(name) if node is not None and node.kind == OBJECT else None
