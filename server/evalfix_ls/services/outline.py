"""The outline of a document (document symbols), its folding ranges and selection ranges.

Symbols: the suite or fixture, then one symbol per case named by its id (by its index without
one), with its prompt/input as detail and its kind visible (setup kind, coverage tags), and the
assertions as children. Results are capped on huge files as the JSON server caps them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..contracts.detection import EVALS, WORKFLOW
from ..parser.tree import ARRAY, OBJECT, Node, path_at
from ..parser.values import items_of, member_value, members_of, string_of
from .cases import CaseView, case_text, first_line, iter_cases
from .document import DocumentView

MAX_SYMBOLS = 5000  # vscode-json-languageservice's default resultLimit
MAX_FOLDING_RANGES = 5000
# Selection ranges nest (each the parent of the next); the answer's encoder recurses once per level.
MAX_SELECTION_LEVELS = 100


@dataclass(slots=True)
class Symbol:
    name: str
    kind: str  # "file", "case", "assertion"
    start: int
    end: int
    selection_start: int
    selection_end: int
    detail: str = ""
    children: list[Symbol] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Outline:
    symbols: list[Symbol]
    truncated: bool  # the cap was reached: some cases or assertions are left out


def document_symbols(document: DocumentView, limit: int = MAX_SYMBOLS) -> Outline:
    root = document.root
    if root is None or root.kind != OBJECT or document.kind not in (EVALS, WORKFLOW):
        return Outline([], False)
    budget = [limit - 1]
    top = Symbol(
        _file_name(document), "file", root.start, root.end, root.start, min(root.start + 1, root.end)
    )
    for case in iter_cases(document.kind, root):
        if budget[0] <= 0:
            return Outline([top], True)
        budget[0] -= 1
        top.children.append(_case_symbol(document.kind, case, budget))
    return Outline([top], budget[0] < 0)


def _file_name(document: DocumentView) -> str:
    root = document.root
    member = "skill_name" if document.kind == EVALS else "skill"
    name = string_of(root.get(member) if root is not None else None)
    if name is not None and name.strip():
        return name
    return (
        document.path.name
        if document.path is not None
        else ("suite" if document.kind == EVALS else "fixture")
    )


def _case_symbol(kind: str, case: CaseView, budget: list[int]) -> Symbol:
    node = case.node
    name = case.id if case.id is not None and case.id != "" else f"#{case.index}"
    selection = case.id_node or node
    detail = " · ".join(part for part in (_case_kind(kind, node), case_text(kind, node)) if part)
    symbol = Symbol(name, "case", node.start, node.end, selection.start, selection.end, detail)
    assertions = member_value(node, "assertions") if kind == EVALS else None
    if assertions is not None and assertions.kind == ARRAY:
        for index, item in enumerate(items_of(assertions)):
            if budget[0] <= 0:
                budget[0] = -1
                break
            budget[0] -= 1
            symbol.children.append(
                Symbol(_assertion_name(item, index), "assertion", item.start, item.end, item.start, item.end)
            )
    return symbol


def _case_kind(kind: str, case: Node) -> str:
    if case.kind != OBJECT:
        return ""
    if kind == EVALS:
        setup_kind = string_of(member_value(case.get("setup"), "kind"))
        return f"setup: {setup_kind}" if setup_kind is not None else ""
    words = [word for item in items_of(case.get("coverage_tags")) if (word := string_of(item)) is not None]
    return "[" + ", ".join(words) + "]" if words else ""


def _assertion_name(item: Node, index: int) -> str:
    text = string_of(item)
    if text is not None:
        return first_line(text, 60) or f"assertion {index}"
    if item.kind == OBJECT:
        for member in ("type", "kind"):
            value = string_of(item.get(member))
            if value is not None:
                method = string_of(item.get("method")) if member == "kind" else None
                return value if method is None else f"{value} · {method}"
    return f"assertion {index}"


# -- folding and selection ----------------------------------------------------------------------


def folding_ranges(document: DocumentView, limit: int = MAX_FOLDING_RANGES) -> list[tuple[int, int]]:
    """(start, end) offsets of every object and array, outermost first, at most ``limit``; the
    caller drops those on one line (it knows the lines)."""
    root = document.root
    if root is None:
        return []
    out: list[tuple[int, int]] = []
    pending = deque([root])  # breadth first: when the cap cuts, the outer levels stay foldable
    while pending and len(out) < limit:
        node = pending.popleft()
        if node.kind == OBJECT:
            out.append((node.start, node.end))
            pending.extend(
                m.value for m in members_of(node) if m.value is not None and m.value.kind in (OBJECT, ARRAY)
            )
        elif node.kind == ARRAY:
            out.append((node.start, node.end))
            pending.extend(item for item in items_of(node) if item.kind in (OBJECT, ARRAY))
    return out


def selection_ranges(document: DocumentView, offset: int) -> list[tuple[int, int]]:
    """Innermost first: the value (or member name) at ``offset``, its member, the container, its
    member, … up to the root. Duplicates (a member equal to its value's span) are skipped; past
    ``MAX_SELECTION_LEVELS``, the levels between the innermost ones and the root are left out."""
    steps, node, member = path_at(document.root, offset)
    spans: list[tuple[int, int]] = []
    if member is not None and member.key_start <= offset <= member.key_end:
        spans.append((member.key_start, member.key_end))
        node = None
    chain: list[tuple[int, int]] = []
    if node is not None:
        chain.append((node.start, node.end))
    for step in reversed(steps):
        if step.member is not None and step.member.value is not None:
            chain.append((step.member.key_start, step.member.value.end))
        chain.append((step.container.start, step.container.end))
    for span in chain:
        if not spans or span != spans[-1]:
            spans.append(span)
    return spans if len(spans) <= MAX_SELECTION_LEVELS else spans[: MAX_SELECTION_LEVELS - 1] + spans[-1:]
