"""The cases of a document as its (possibly recovered) tree shows them: the case array, each
case's id node and display name. Navigation reads these, so a broken document still shows every
case that parsed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..contracts.detection import EVALS, WORKFLOW
from ..contracts.workflow.normalize import INPUT_ALIASES
from ..js.values import js_number_to_string
from ..parser.line_index import text_lines
from ..parser.tree import ARRAY, NUMBER, OBJECT, STRING, Node

# Where each contract keeps its cases, in the order the references look.
CASE_ARRAYS = {EVALS: ("evals",), WORKFLOW: ("cases", "examples")}
ID_MEMBERS = {EVALS: ("id",), WORKFLOW: ("id", "name")}
TEXT_MEMBERS = {EVALS: ("prompt",), WORKFLOW: INPUT_ALIASES}


@dataclass(frozen=True, slots=True)
class CaseView:
    index: int
    node: Node  # the case element
    array_member: str  # "evals", "cases" or "examples"
    id_node: Node | None  # the string or number that names it, if any

    @property
    def id(self) -> str | None:
        """The id as the references compare it (``String(id)`` for numbers)."""
        return id_text(self.id_node)


def id_text(node: Node | None) -> str | None:
    if node is None:
        return None
    if node.kind == STRING:
        return node.value
    if node.kind == NUMBER:
        return js_number_to_string(node.value)
    return None


def case_array(kind: str, root: Node | None) -> tuple[str, Node] | None:
    """(member name, array node) of the document's case array."""
    if root is None or root.kind != OBJECT:
        return None
    for name in CASE_ARRAYS.get(kind, ()):
        candidate = root.get(name)
        if candidate is not None and candidate.kind == ARRAY:
            return name, candidate
    return None


def iter_cases(kind: str, root: Node | None) -> Iterator[CaseView]:
    found = case_array(kind, root)
    if found is None:
        return
    name, array = found
    for index, element in enumerate(array.items):
        yield CaseView(index, element, name, _id_node(kind, element))


def _id_node(kind: str, case: Node) -> Node | None:
    if case.kind != OBJECT:
        return None
    for member in ID_MEMBERS.get(kind, ()):
        node = case.get(member)
        if node is not None and node.kind in (STRING, NUMBER):
            return node
    return None


def case_text(kind: str, case: Node, limit: int = 80) -> str:
    """The first line of the case's prompt (evals) or input (workflow), at most ``limit`` chars."""
    if case.kind != OBJECT:
        return ""
    for member in TEXT_MEMBERS.get(kind, ()):
        node = case.get(member)
        if node is not None and node.kind == STRING:
            line = first_line(node.value, limit)
            if line:
                return line
    return ""


def first_line(value: str, limit: int) -> str:
    """The first non-blank line of ``value``, at most ``limit`` characters (``…`` when cut). Reads
    a bounded prefix only: prompts of huge suites can be megabytes long."""
    head = value[: 4 * limit + 256].strip()
    if not head:
        return ""
    line = text_lines(head)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"
