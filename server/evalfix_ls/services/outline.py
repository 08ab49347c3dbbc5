"""The outline of a document (document symbols), its folding ranges and selection ranges.

Symbols: the suite or fixture, then one symbol per case named by its id (by its index without
one), with its prompt/input as detail and its kind visible (setup kind, coverage tags), and the
assertions as children. Results are capped on huge files as the JSON server caps them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..contracts.detection import EVALS, WORKFLOW
from ..js.values import js_id_string
from ..parser.incremental.shift import item_origins, unshifted
from ..parser.tree import ARRAY, OBJECT, Node, path_at
from ..parser.values import items_of, member_value, members_of, string_of
from .case_memo import CaseMemo
from .cases import case_origins, case_text, first_line, id_node_of
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
    # For each case's symbol (the file symbol's children), the one it was placed from: the memo's,
    # the same object while the case is unchanged (so a caller can keep what it wrote of it).
    sources: list[Symbol] = field(default_factory=list)


def document_symbols(
    document: DocumentView, limit: int = MAX_SYMBOLS, memo: CaseMemo[Symbol] | None = None
) -> Outline:
    """``memo`` (kept per document by the caller) gives back the symbol of each case the previous
    request saw, moved: a keystroke costs the symbols of the cases it changed."""
    root = document.root
    kind = document.kind
    if root is None or root.kind != OBJECT or kind not in (EVALS, WORKFLOW):
        return Outline([], False)
    budget = limit - 1
    top = Symbol(
        _file_name(document), "file", root.start, root.end, root.start, min(root.start + 1, root.end)
    )
    sources: list[Symbol] = []
    with (memo or CaseMemo()).round(kind) as cases:
        for index, origin, delta in case_origins(kind, root):
            if budget <= 0:
                return Outline([top], True, sources)
            budget -= 1
            symbol = cases.result(origin, lambda node: _case_symbol(kind, node))
            shown = len(symbol.children)
            if shown > budget:  # the cap cuts its assertions
                shown, budget = budget, -1
            else:
                budget -= shown
            top.children.append(_placed(symbol, index, delta, shown))
            sources.append(symbol)
    return Outline([top], budget < 0, sources)


def _placed(symbol: Symbol, index: int, delta: int, shown: int) -> Symbol:
    """A case's symbol as computed on its origin (named ``""`` without an id), at ``index``, moved
    by ``delta``, with its first ``shown`` assertions. The memo's own is never changed."""
    name = symbol.name or f"#{index}"
    children = symbol.children[:shown]
    if delta:
        children = [_moved(child, delta) for child in children]
    elif name is symbol.name and shown == len(symbol.children):
        return symbol
    moved = _moved(symbol, delta)
    moved.name, moved.children = name, children
    return moved


def _moved(symbol: Symbol, delta: int) -> Symbol:
    return Symbol(
        symbol.name,
        symbol.kind,
        symbol.start + delta,
        symbol.end + delta,
        symbol.selection_start + delta,
        symbol.selection_end + delta,
        symbol.detail,
        symbol.children,
    )


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


def _case_symbol(kind: str, node: Node) -> Symbol:
    """The case's symbol with every assertion, named by its id (``""`` without one: the index
    names it, which an edit before it changes)."""
    id_node = id_node_of(kind, node)
    case_id = js_id_string(id_node)
    selection = id_node or node
    detail = " · ".join(part for part in (_case_kind(kind, node), case_text(kind, node)) if part)
    symbol = Symbol(case_id or "", "case", node.start, node.end, selection.start, selection.end, detail)
    assertions = member_value(node, "assertions") if kind == EVALS else None
    if assertions is not None and assertions.kind == ARRAY:
        for index, item in enumerate(items_of(assertions)):
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
    caller drops those on one line (it knows the lines).

    Breadth first (when the cap cuts, the outer levels stay foldable), each container counted when
    its parent is opened: the cases of a 10 MB suite are counted without opening one of the
    thousands the cap leaves closed. Containers are read through their origins (``unshifted``):
    the cases an edit moved are not built again to be walked."""
    root = document.root
    if root is None or root.kind not in (OBJECT, ARRAY) or limit <= 0:
        return []
    out = [(root.start, root.end)]
    pending = deque([unshifted(root)])
    while pending:
        node, delta = pending.popleft()
        for child, by in _containers(node):
            if len(out) >= limit:
                return out
            by += delta
            out.append((child.start + by, child.end + by))
            pending.append((child, by))
    return out


def _containers(node: Node) -> Iterator[tuple[Node, int]]:
    """The objects and arrays directly in ``node``, unshifted."""
    if node.kind == OBJECT:
        for member in members_of(node):
            value = member.value
            if value is not None and value.kind in _CONTAINERS:
                yield unshifted(value)
    elif node.kind == ARRAY:
        for origin, delta in item_origins(items_of(node)):
            if origin.kind in _CONTAINERS:
                yield origin, delta


_CONTAINERS = (OBJECT, ARRAY)


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
