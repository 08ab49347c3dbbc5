"""``QuickTrees``: the tree a completion reads before the analysis of the new version is done
(in-process; the document store, the diagnostics' edit log and result cache)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsprotocol import types

from evalfix_ls.analysis import Analysis, analyze
from evalfix_ls.lsp.diagnostics.edit_log import EditLog
from evalfix_ls.lsp.diagnostics.results import ResultCache
from evalfix_ls.lsp.diagnostics.worker import Result
from evalfix_ls.lsp.features.quick_trees import QuickTrees
from evalfix_ls.lsp.session.documents import DocumentStore
from evalfix_ls.parser import parse
from evalfix_ls.parser.tree import Node
from evalfix_ls.text.line_index import Encoding

URI = "untitled:evals.json"


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


def analyzed_result(analysis: Analysis, revision: int) -> Result:
    """The result cache's entry for the opened text, as the analysis of its snapshot leaves it."""
    assert isinstance(analysis.text, str)
    return Result(
        uri=URI,
        path=None,
        version=1,
        key=(),
        text=analysis.text,
        kind=analysis.kind,
        diagnostics=[],
        fingerprint=(),
        analysis=analysis,
        revision=revision,
    )


def test_successive_requests_start_from_the_analyzed_tree() -> None:
    """Each keystroke's tree is the exact tree of its text, and built from the analysed tree, not
    from the previous keystroke's (whose lazily shifted arrays would chain one level per
    keystroke: fails with the bases ordered newest first)."""
    cases = [{"id": n, "prompt": f"prompt {n} 中🎉", "assertions": ["ok"]} for n in range(40)]
    text = json.dumps({"skill_name": "s", "evals": cases}, indent=2, ensure_ascii=False)
    store = DocumentStore()
    opened = store.open(URI, 1, text)
    cache, edits = ResultCache(), EditLog()
    edits.opened(opened)
    cache.store_open(URI, analyzed_result(analyze(text), opened.revision))
    quick = QuickTrees(cache, edits)
    previous, at = opened, text.index("prompt 20") + len("prompt")
    for version in range(2, 9):
        lines = previous.line_index
        line, character = lines.position(at, Encoding.UTF16)
        point = types.Position(line=line, character=character)
        change = types.TextDocumentContentChangePartial(range=types.Range(start=point, end=point), text="x")
        snapshot = store.change(URI, version, [change], Encoding.UTF16)
        edits.record(snapshot)
        analysis = quick.analysis_now(snapshot)
        assert analysis is not None and analysis.tree is not None and analysis.tree.root is not None
        evals = analysis.tree.root.props["evals"].value
        assert evals is not None and tail_depth(evals.items) <= 1
        reparsed = parse(snapshot.text).root
        assert reparsed is not None and spans(analysis.tree.root) == spans(reparsed)
        again = quick.analysis_now(snapshot)
        assert again is not None and again.tree is analysis.tree
        previous, at = snapshot, at + 1


def test_a_quick_tree_says_why_its_contract_applies(tmp_path: Path) -> None:
    """The root hover answers from a quick tree while the user types: it keeps the analysed text's
    classification (reason, deciding line, shape), on a first and on a repeated request."""
    text = json.dumps({"schema_version": "x.v2", "cases": [{"kind": "capability"}]}, indent=2)
    store = DocumentStore()
    opened = store.open(URI, 1, text)
    cache, edits = ResultCache(), EditLog()
    edits.opened(opened)
    path = tmp_path / "skills/demo/evals/capability-cases.json"  # a repository without the walk
    analyzed = analyze(text, path=path, repo_root=tmp_path)
    assert analyzed.classification is not None and "skill-local shape" in analyzed.reason
    cache.store_open(URI, analyzed_result(analyzed, opened.revision))
    quick = QuickTrees(cache, edits)
    at = text.index("capability")
    line, character = opened.line_index.position(at, Encoding.UTF16)
    point = types.Position(line=line, character=character)
    change = types.TextDocumentContentChangePartial(range=types.Range(start=point, end=point), text="x")
    snapshot = store.change(URI, 2, [change], Encoding.UTF16)
    edits.record(snapshot)
    for _ in range(2):  # built from the analysed tree, then the same tree asked again
        now = quick.analysis_now(snapshot)
        assert now is not None and now.tree is not None and now.tree.root is not None
        assert now.classification == analyzed.classification
