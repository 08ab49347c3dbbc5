"""Typed reads of a positioned JSON tree, for features that meet any shape: the user's JSON may be
malformed or half-typed, so each accessor answers "not there" (None, no items) instead of raising,
and gives a type the checker can follow (``Node.value`` is any decoded scalar)."""

from __future__ import annotations

from ..contracts.node_values import items_of, string_of
from ..parser.tree import OBJECT, Member, Node

# The reads the contracts' rules use too, from the layer below (one definition each).
__all__ = ["items_of", "member_value", "members_of", "string_of"]


def members_of(node: Node | None) -> list[Member]:
    """Every member of an object node, in order (duplicates included); none for anything else."""
    if node is None or node.kind != OBJECT:
        return []
    members = node.members
    return [] if members is None else members


def member_value(node: Node | None, name: str) -> Node | None:
    """The value of member ``name`` when ``node`` is an object that has it."""
    return node.get(name) if node is not None and node.kind == OBJECT else None
