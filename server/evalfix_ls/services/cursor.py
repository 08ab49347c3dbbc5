"""Where an offset lies in the JSON tree: the node, the member and the JSON path.

Works on any tree the parser produced, including the tolerant parser's recovered tree of a broken
document (an unterminated string, a missing comma, a trailing ``:`` with no value yet), so features
answer while the user is typing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..parser.tree import ARRAY, OBJECT, Member, Node, PathStep, join_pointer, path_at

JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Cursor:
    """The innermost node containing ``offset`` and how the root leads there.

    ``path`` is the JSON path of ``node``; when the offset lies on a member name, ``member`` is
    that member (``on_key``) and ``path`` ends with its name. ``container`` is the innermost object
    or array holding ``node`` (the node itself when it is a container the offset lies inside of).
    """

    offset: int
    steps: tuple[PathStep, ...]
    node: Node | None
    member: Member | None

    @property
    def on_key(self) -> bool:
        return self.member is not None and self.member.key_start <= self.offset <= self.member.key_end

    @property
    def path(self) -> JsonPath:
        return tuple(step.key for step in self.steps)

    @property
    def pointer(self) -> str:
        return join_pointer("", *self.path)

    @property
    def container(self) -> Node | None:
        node = self.node
        if node is not None and node.kind in (OBJECT, ARRAY) and node.start < self.offset < node.end:
            return node
        return self.steps[-1].container if self.steps else None

    @property
    def container_path(self) -> JsonPath:
        """The JSON path of ``container``."""
        node = self.node
        if node is not None and node.kind in (OBJECT, ARRAY) and node.start < self.offset < node.end:
            return self.path
        return self.path[:-1]

    def ancestors(self) -> list[Node]:
        """The containers from the root down to (excluding) ``node``."""
        return [step.container for step in self.steps]


def locate(root: Node | None, offset: int) -> Cursor:
    """The cursor at ``offset`` (code points) in the tree under ``root``."""
    steps, node, member = path_at(root, offset)
    if member is not None:
        # path_at stops on the member name with the object as node; the name's value is the node
        # the path names.
        return Cursor(offset, tuple(steps), member.value, member)
    if node is None and steps:
        node = steps[-1].container
    return Cursor(offset, tuple(steps), node, steps[-1].member if steps else None)
