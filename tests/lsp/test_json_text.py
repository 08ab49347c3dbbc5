"""Symbols, code lenses and document links are written as JSON text directly (``lsp/features/json_text.py``,
issue 19): the text must be the answer pygls writes for the same ``lsprotocol`` objects, parsed —
here built from the same service results with ``ctx.range`` and lsprotocol's converter, on a suite
whose names and details hold CJK, emoji, quotes, backslashes and control characters (UTF-16
positions), for hierarchical and flat clients, in every position encoding. The work is counted too:
no answer goes through the converter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsp_support import make_repo, write_json
from lsprotocol import types

from evalfix_ls.analysis import analyze
from evalfix_ls.config.model import Config
from evalfix_ls.lsp.features import inline, links, outline
from evalfix_ls.lsp.features.context import FeatureContext, document_view
from evalfix_ls.lsp.jsonrpc import encoded as encoded_module
from evalfix_ls.lsp.jsonrpc.encoded import EncodedResult, encoded, lsp_converter
from evalfix_ls.lsp.server import EvalfixServer
from evalfix_ls.lsp.session.client_features import ClientFeatures
from evalfix_ls.lsp.session.documents import path_to_uri
from evalfix_ls.services.inline_facts import code_lenses
from evalfix_ls.services.links import document_links
from evalfix_ls.services.outline import document_symbols
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.text.line_index import Encoding

NAMES = ['写 "🎉" \\ tab\there', "plain", "", "ctl\x01\x7f\u2028end"]


def suite(root: Path) -> Path:
    (root / "evals" / "files").mkdir(parents=True)
    (root / "evals" / "files" / "there.txt").write_text("x\n", encoding="utf-8")
    cases = [
        {
            "id": name or None,
            "prompt": f'写 🎉 {n} "quoted"\nsecond line 😀 {name}',
            "setup": {"kind": "seeded", "sources": ["files/there.txt", f"files/gone-{n}"]},
            "assertions": [f"the reply says 文件 {n}", {"type": "file", "text": "x"}],
        }
        for n, name in enumerate(NAMES)
    ]
    return write_json(root / "evals" / "evals.json", {"skill_name": "演示 😀", "evals": cases})


def context(tmp_path: Path, encoding: Encoding, caps: dict[str, Any]) -> FeatureContext:
    """The feature context of ``suite`` in a repository, for a client with ``caps``."""
    root = make_repo(tmp_path / "repo")
    path = suite(root)
    server = EvalfixServer()
    try:
        text = path.read_text(encoding="utf-8")
        snapshot = server.documents.open(path_to_uri(path), 1, text)
    finally:
        server.executor.shutdown(wait=False)
    document = document_view(snapshot, analyze(text, path=path, repo_root=root), root, text=text)
    structured = lsp_converter().structure(caps, types.ClientCapabilities)
    ctx = FeatureContext(snapshot, document, encoding, Config(), ClientFeatures.from_capabilities(structured))
    ctx.__dict__["facts"] = WorkspaceFacts(root)  # the repository, without a workspace index
    return ctx


def pygls_json(value: Any) -> Any:
    """What pygls writes for ``value``, parsed."""
    return json.loads(json.dumps(lsp_converter().unstructure(value)))


def written(answer: EncodedResult) -> Any:
    return json.loads(encoded(answer).to_json())


def reference_symbols(ctx: FeatureContext, hierarchical: bool) -> Any:
    kinds = {"file": types.SymbolKind.File, "case": types.SymbolKind.Object}
    kinds["assertion"] = types.SymbolKind.Boolean

    def tree(s: Any) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=s.name or " ",
            detail=s.detail or None,
            kind=kinds[s.kind],
            range=ctx.range(s.start, s.end),
            selection_range=ctx.range(s.selection_start, s.selection_end),
            children=[tree(child) for child in s.children] or None,
        )

    def flat(symbols: list[Any], parent: str | None = None) -> list[types.SymbolInformation]:
        out = []
        for s in symbols:
            location = types.Location(uri=ctx.uri, range=ctx.range(s.start, s.end))
            out.append(
                types.SymbolInformation(
                    name=s.name, kind=kinds[s.kind], location=location, container_name=parent
                )
            )
            out += flat(s.children, s.name)
        return out

    symbols = document_symbols(ctx.document).symbols
    return pygls_json([tree(s) for s in symbols] if hierarchical else flat(symbols))


def reference_lenses(ctx: FeatureContext) -> Any:
    return pygls_json(
        [
            types.CodeLens(
                range=ctx.range(lens.start, lens.end),
                command=types.Command(
                    title=lens.title,
                    command=lens.command or "",
                    arguments=list(lens.arguments) if lens.command else None,
                ),
            )
            for lens in code_lenses(ctx.document, ctx.facts)
        ]
    )


def reference_links(ctx: FeatureContext, tooltips: bool) -> Any:
    return pygls_json(
        [
            types.DocumentLink(
                range=ctx.range(link.start, link.end),
                target=links._target_uri(link),
                tooltip=(link.tooltip or None) if tooltips else None,
            )
            for link in document_links(ctx.document, ctx.facts)
        ]
    )


@pytest.fixture
def no_converter(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the answers written through lsprotocol's converter (``jsonrpc.encoded.encoded`` asks
    ``lsp_converter`` for it)."""
    asked: list[int] = []

    def counting() -> Any:
        asked.append(1)
        return lsp_converter()

    monkeypatch.setattr(encoded_module, "lsp_converter", counting)
    return asked


@pytest.mark.parametrize("encoding", list(Encoding))
@pytest.mark.parametrize("hierarchical", [True, False])
def test_symbols_written_as_pygls_writes_them(
    tmp_path: Path, encoding: Encoding, hierarchical: bool, no_converter: list[int]
) -> None:
    caps = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": hierarchical}}}
    ctx = context(tmp_path, encoding, caps)
    params = types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=ctx.uri))
    answer = written(outline.symbols(ctx, params))
    assert no_converter == []
    expected = reference_symbols(ctx, hierarchical)
    assert len(json.dumps(expected)) > 1000  # names, details, assertions: a real outline
    assert answer == expected


@pytest.mark.parametrize("encoding", list(Encoding))
@pytest.mark.parametrize("tooltips", [True, False])
def test_lenses_and_links_written_as_pygls_writes_them(
    tmp_path: Path, encoding: Encoding, tooltips: bool, no_converter: list[int]
) -> None:
    caps = {"textDocument": {"documentLink": {"tooltipSupport": tooltips}}}
    ctx = context(tmp_path, encoding, caps)
    document = types.TextDocumentIdentifier(uri=ctx.uri)
    lenses = written(inline.lenses(ctx, types.CodeLensParams(text_document=document)))
    found = written(links.links(ctx, types.DocumentLinkParams(text_document=document)))
    assert no_converter == []
    assert len(lenses) == len(NAMES) - 1  # a case without an id gets no lens
    assert any(lens["command"].get("arguments") for lens in lenses)
    assert lenses == reference_lenses(ctx)
    assert len(found) == len(NAMES)  # files/there.txt of each case (missing files and SKILL.md: none)
    assert found == reference_links(ctx, tooltips)
