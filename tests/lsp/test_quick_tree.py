"""``QuickTrees``: the tree a completion reads before the analysis of the new version is done
(in-process; the document store and a stand-in for the diagnostics core)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from lsprotocol import types

from evalfix_ls.analysis import analyze
from evalfix_ls.lsp.diagnostics.core import ResultCore
from evalfix_ls.lsp.documents import DocumentStore, Edit
from evalfix_ls.lsp.quick_tree import QuickTrees
from evalfix_ls.parser import parse
from evalfix_ls.parser.line_index import Encoding
from evalfix_ls.parser.tree import Node

URI = "untitled:evals.json"


class Core:
    """What ``QuickTrees`` asks the diagnostics core: the latest result and the edits since."""

    def __init__(self) -> None:
        self.results: dict[str, Any] = {}
        self.edits: list[tuple[int, int, Edit | None]] = []

    def edit_between(self, uri: str, from_revision: int, to_revision: int) -> Edit | None:
        return ResultCore.edit_between(self, uri, from_revision, to_revision)  # type: ignore[arg-type]

    @property
    def _edits(self) -> dict[str, list[tuple[int, int, Edit | None]]]:
        return {URI: self.edits}

    def same_text(self, uri: str, text: Any, revision: int | None, snapshot: Any) -> bool:
        return ResultCore.same_text(self, uri, text, revision, snapshot)  # type: ignore[arg-type]


def spans(node: Node) -> list[tuple[str, int, int]]:
    out = [(node.kind, node.start, node.end)]
    for member in node.members or ():
        if member.value is not None:
            out += spans(member.value)
    for item in node.items or ():
        out += spans(item)
    return out


def tail_depth(items: Any) -> int:
    """How many lazily moved item views are stacked (a plain list ends the chain)."""
    depth = 0
    while not isinstance(items, list):
        depth += 1
        items = items._source
    return depth


def test_successive_requests_start_from_the_analysed_tree() -> None:
    """Each keystroke's tree is the exact tree of its text, and built from the analysed tree, not
    from the previous keystroke's (whose lazily shifted arrays would chain one level per
    keystroke: fails with the bases ordered newest first)."""
    cases = [{"id": n, "prompt": f"prompt {n} 中🎉", "assertions": ["ok"]} for n in range(40)]
    text = json.dumps({"skill_name": "s", "evals": cases}, indent=2, ensure_ascii=False)
    store = DocumentStore()
    opened = store.open(URI, 1, text)
    core = Core()
    core.results[URI] = SimpleNamespace(analysis=analyze(text), text=text, revision=opened.revision)
    quick = QuickTrees(core)
    previous, at = opened, text.index("prompt 20") + len("prompt")
    for version in range(2, 9):
        lines = previous.line_index
        line, character = lines.position(at, Encoding.UTF16)
        point = types.Position(line=line, character=character)
        change = types.TextDocumentContentChangePartial(range=types.Range(start=point, end=point), text="x")
        snapshot = store.change(URI, version, [change], Encoding.UTF16)
        core.edits.append((previous.revision, snapshot.revision, snapshot.edit))
        analysis = quick.analysis_now(snapshot)
        assert analysis is not None and analysis.tree is not None and analysis.tree.root is not None
        evals = analysis.tree.root.props["evals"].value
        assert evals is not None and tail_depth(evals.items) <= 1
        assert spans(analysis.tree.root) == spans(parse(snapshot.text).root)  # type: ignore[arg-type]
        assert quick.analysis_now(snapshot).tree is analysis.tree  # type: ignore[union-attr]
        previous, at = snapshot, at + 1
