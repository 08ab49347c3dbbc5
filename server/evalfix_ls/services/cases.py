"""The cases of a document as its (possibly recovered) tree shows them: the case array, each
case's id node and display name, and the strings that name files of the repository (``path_strings``).
Navigation reads these, so a broken document still shows every case that parsed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..contracts.detection import EVALS, WORKFLOW
from ..contracts.workflow.normalize import INPUT_ALIASES
from ..js.values import js_id_string
from ..parser.incremental.shift import item_origins, unshifted
from ..parser.tree import ARRAY, NUMBER, OBJECT, STRING, Node
from ..parser.values import items_of, member_value, string_of
from ..text.line_index import text_lines
from .cursor import JsonPath

# Where each contract keeps its cases, in the order the references look.
CASE_ARRAYS = {EVALS: ("evals",), WORKFLOW: ("cases", "examples")}
ID_MEMBERS = {EVALS: ("id",), WORKFLOW: ("id", "name")}
TEXT_MEMBERS = {EVALS: ("prompt",), WORKFLOW: INPUT_ALIASES}
# The members of an evals.json assertion that name a file of the case's workspace: ``path``
# (file-exists, json-valid, …) and a regex assertion's ``target.file``.
ASSERTION_PATH_MEMBERS = (("path",), ("target", "file"))
# The mount modes that copy a seeded source's contents instead of the source itself: the loader's
# spelling and the spec's (the loader rejects that one, `mount-mode-flatten`, but it means the same).
FLATTEN_MODES = ("flatten-contents", "flatten")


@dataclass(frozen=True, slots=True)
class CaseView:
    index: int
    node: Node  # the case element
    array_member: str  # "evals", "cases" or "examples"
    id_node: Node | None  # the string or number that names it, if any

    @property
    def id(self) -> str | None:
        """The id as the references compare it (``String(id)`` for numbers)."""
        return js_id_string(self.id_node)


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
    for index, element in enumerate(items_of(array)):
        yield CaseView(index, element, name, id_node_of(kind, element))


def case_origins(kind: str, root: Node | None) -> Iterator[tuple[int, Node, int]]:
    """``(index, origin, delta)`` of each case: the case is ``origin`` moved by ``delta``
    (``parser.shift.unshifted``). Reading an origin builds nothing, where reading a case an edit
    moved builds its moved children; and the origin is the same node keystroke after keystroke."""
    found = case_array(kind, root)
    if found is None:
        return
    array, by = unshifted(found[1])
    for index, (origin, delta) in enumerate(item_origins(array.items or ())):
        yield index, origin, delta + by


def id_node_of(kind: str, case: Node) -> Node | None:
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
        text = string_of(case.get(member))
        if text is not None:
            line = first_line(text, limit)
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


# -- strings that name files of the repository ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class PathString:
    """A string of a fixture that names a file or folder of the repository, as its contract reads
    it: workflow ``source_refs`` (relative to the repository, maybe with a ``#heading``); eval-suite
    ``setup.sources[]`` (a string or ``{"from": …}``), ``setup.fixture.source`` and legacy
    ``files[]`` (relative to ``evals/``). Empty strings included: each reader decides."""

    node: Node  # the string value
    value: str
    field: str  # "source_refs", "sources", "fixture" or "files"
    entry: Node  # the array item ("sources": the string or its ``{"from", "to"}`` object); else ``node``


def path_strings(kind: str, root: Node | None) -> Iterator[PathString]:
    """Every path string of a document: a workflow fixture's top-level refs, then each case's."""
    if kind == WORKFLOW and root is not None and root.kind == OBJECT:
        yield from source_refs(root)
    for case in iter_cases(kind, root):
        if case.node.kind == OBJECT:
            yield from case_path_strings(kind, case.node)


def case_path_strings(kind: str, case: Node) -> Iterator[PathString]:
    """The path strings of one case object (eval suites: sources, the fixture's source, files)."""
    if kind == WORKFLOW:
        yield from source_refs(case)
    elif kind == EVALS:
        setup = member_value(case, "setup")
        for item in items_of(member_value(setup, "sources")):
            yield from _path_string(item.get("from") if item.kind == OBJECT else item, "sources", item)
        yield from _path_string(member_value(member_value(setup, "fixture"), "source"), "fixture")
        for item in items_of(case.get("files")):
            yield from _path_string(item, "files")


def source_refs(holder: Node) -> Iterator[PathString]:
    for item in items_of(holder.get("source_refs")):
        yield from _path_string(item, "source_refs")


def _path_string(node: Node | None, field: str, entry: Node | None = None) -> Iterator[PathString]:
    value = string_of(node)
    if node is not None and value is not None:
        yield PathString(node, value, field, node if entry is None else entry)


def is_assertion_path(path: JsonPath) -> bool:
    """Whether ``path`` leads to an assertion's workspace file: ``evals[i].assertions[j]`` and then
    one of ``ASSERTION_PATH_MEMBERS`` (``evals`` and ``assertions`` arrays, as the loader reads them)."""
    if len(path) < 5 or path[0] != "evals" or path[2] != "assertions":
        return False
    return isinstance(path[1], int) and isinstance(path[3], int) and path[4:] in ASSERTION_PATH_MEMBERS


def assertion_path_nodes(assertion: Node) -> Iterator[Node]:
    """The values of ``assertion`` that name a workspace file (``ASSERTION_PATH_MEMBERS``)."""
    for members in ASSERTION_PATH_MEMBERS:
        node: Node | None = assertion
        for name in members:
            node = member_value(node, name)
        if node is not None:
            yield node


def flattens(setup: Node | None) -> bool:
    """Whether a seeded ``setup`` copies the contents of its sources (``mountMode``)."""
    return string_of(member_value(setup, "mountMode")) in FLATTEN_MODES
