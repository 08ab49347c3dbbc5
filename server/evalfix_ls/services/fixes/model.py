"""What a fix is, what a fixer sees, and the registry of fixers by finding code."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ...contracts.fix_data import FixData, Missing
from ...findings import Finding
from ...json_value import JsonValue
from ...parser.tree import ARRAY, OBJECT, Member, Node, resolve_pointer, split_pointer
from ...parser.values import items_of, string_of
from ...text.pieces import as_str
from ..document import DocumentView
from ..workspace_facts import WorkspaceFacts
from .edits import Layout, TextEdit, insert_member, json_text, remove_item, replace_node


@dataclass(frozen=True, slots=True)
class Fix:
    """One way to fix one finding.

    ``safe``: the loader/normalizer reads the same thing afterwards, or it is the only reading that
    makes the file valid; ``--fix`` and fix-all apply only these unless unsafe fixes are asked for.
    ``preferred``: the best of a finding's fixes (the one fix-all applies)."""

    title: str
    edits: tuple[TextEdit, ...]
    safe: bool
    preferred: bool = False
    code: str = ""


@dataclass(frozen=True)
class FixContext:
    """The finding being fixed and the document it is in (a document that parses)."""

    document: DocumentView
    finding: Finding
    facts: WorkspaceFacts

    @property
    def text(self) -> str:
        return as_str(self.document.text)  # a document that parses holds a str already

    @property
    def data(self) -> FixData:
        """What the rule handed the fix: read with the ``contracts.fix_data`` shape it wrote."""
        return self.finding.data or {}

    @cached_property
    def layout(self) -> Layout:
        return Layout.of(self.text)

    def node(self, pointer: str | None = None) -> Node | None:
        """The node at ``pointer`` (default: the finding's)."""
        return resolve_pointer(self.document.root, self.finding.pointer if pointer is None else pointer)

    def parent(self, pointer: str | None = None) -> tuple[Node | None, str]:
        """The container of the node at ``pointer`` and its last token."""
        pointer = self.finding.pointer if pointer is None else pointer
        head, token = split_pointer(pointer)
        return resolve_pointer(self.document.root, head), token

    def member(self, pointer: str | None = None) -> Member | None:
        """The member whose value is at ``pointer``."""
        container, token = self.parent(pointer)
        return container.member(token) if container is not None and container.kind == OBJECT else None

    def missing_member(self) -> str | None:
        """The member the finding says is absent (its pointer then names the parent object)."""
        node = self.node()
        missing = Missing.read(self.data)
        if node is None or node.kind != OBJECT or missing is None or node.has(missing.member):
            return None
        return missing.member

    def set_member(self, obj: Node, name: str, value: JsonValue) -> TextEdit:
        """Replace member ``name`` of ``obj`` by ``value``, or add it when absent."""
        existing = obj.get(name)
        if existing is not None:
            return replace_node(existing, value)
        return insert_member(self.text, obj, name, json_text(value), self.layout)

    def fix(self, title: str, *edits: TextEdit, safe: bool, preferred: bool = False) -> Fix:
        return Fix(title, tuple(edits), safe, preferred, self.finding.code)

    def change_to(self, node: Node, value: JsonValue, *, safe: bool, preferred: bool = True) -> Fix:
        """``node`` replaced by ``value``, titled as the user sees it (``Change to "seeded"``)."""
        return self.fix(
            f"Change to {json_text(value)}", replace_node(node, value), safe=safe, preferred=preferred
        )

    def remove_element(self, title: str, *, safe: bool, preferred: bool = False) -> list[Fix]:
        """The finding's array element removed (none when the finding is not on one)."""
        array, token = self.parent()
        if array is None or array.kind != ARRAY or not token.isdigit():
            return []
        edit = remove_item(self.text, array, int(token))
        return [self.fix(title, edit, safe=safe, preferred=preferred)]


Fixer = Callable[[FixContext], "list[Fix]"]
FIXERS: dict[str, Fixer] = {}


def fixer(*codes: str) -> Callable[[Fixer], Fixer]:
    """Register a fixer for finding ``codes``."""

    def register(function: Fixer) -> Fixer:
        for code in codes:
            FIXERS[code] = function
        return function

    return register


# -- choosing among allowed values ------------------------------------------------------------------

MAX_ENUM_CHOICES = 8


def close_values(value: str, allowed: Iterable[JsonValue]) -> list[str]:
    """The allowed strings ``value`` most likely meant: the same word in another case first, then
    spelling neighbours."""
    words = [a for a in allowed if isinstance(a, str)]
    same = [a for a in words if a.lower() == value.lower()]
    near = difflib.get_close_matches(value.lower(), words, n=3, cutoff=0.6)
    return list(dict.fromkeys(same + near))


def enum_fixes(
    ctx: FixContext, node: Node, allowed: Sequence[JsonValue], best: JsonValue = None
) -> list[Fix]:
    """Replace ``node`` by each close allowed value (all of them when none is close); a case-only
    difference (``"Empty"`` → ``"empty"``) is safe, any other choice unsafe."""
    choices: list[JsonValue] = []
    written = string_of(node)
    if written is not None:
        choices = list(close_values(written, allowed))
    if best is not None and best in allowed:
        choices = [best, *[c for c in choices if c != best]]
    preferred = best if best is not None else (choices[0] if choices else None)
    if not choices:  # nothing close: every value, none preferred (the user has to choose)
        choices = list(allowed)[:MAX_ENUM_CHOICES]
    fixes = []
    for choice in choices:
        case_only = written is not None and isinstance(choice, str) and choice.lower() == written.lower()
        fixes.append(
            ctx.fix(
                f"Change to {json_text(choice)}",
                replace_node(node, choice),
                safe=case_only,
                preferred=choice == preferred,
            )
        )
    return fixes


def unique_name(base: str, taken: set[str]) -> str:
    """``base`` itself when free, else ``base-2``, ``base-3`` … (the first free one)."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def string_items(node: Node | None) -> list[tuple[Node, str]]:
    """The string elements of an array, each with its text (none for anything else)."""
    return [(item, text) for item in items_of(node) if (text := string_of(item)) is not None]
