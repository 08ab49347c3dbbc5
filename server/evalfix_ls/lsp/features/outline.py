"""``textDocument/documentSymbol``, ``workspace/symbol``, ``textDocument/foldingRange`` and
``textDocument/selectionRange`` over ``services.outline`` and ``services.workspace_symbols``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lsprotocol import types

from ..jsonrpc.encoded import EncodedResult
from ..scheduling.request_runner import RequestToken
from ..session.documents import path_to_uri, uri_to_path
from . import FeatureServer, feature, json_text
from .context import FeatureContext, WorkspaceContext
from .symbol_index import SymbolIndex

if TYPE_CHECKING:
    from ...services.outline import Outline, Symbol
    from .quick_trees import DocumentMemos

logger = logging.getLogger("evalfix_ls")

SYMBOL_KIND = {  # LSP's SymbolKind, as JSON text
    "file": str(int(types.SymbolKind.File)),
    "case": str(int(types.SymbolKind.Object)),
    "assertion": str(int(types.SymbolKind.Boolean)),
}


def register(server: FeatureServer) -> None:
    # None of them reads findings: answered from the current text's tree, never waiting for its
    # analysis (their cost does not depend on the findings of the suite).
    feature(server, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, wait_for_analysis=False)(symbols)
    feature(server, types.TEXT_DOCUMENT_FOLDING_RANGE, wait_for_analysis=False)(folding)
    feature(server, types.TEXT_DOCUMENT_SELECTION_RANGE, wait_for_analysis=False, point=True)(selection)

    symbol_index = SymbolIndex(server)
    server.diagnostics.started_listeners.append(symbol_index.start)

    @server.feature(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolOptions(resolve_provider=True))
    async def workspace_symbol(
        ls: FeatureServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        await symbol_index.ready()  # the start-up pass reads what this request would
        ctx = await ls.prepared_workspace_context()
        lazy = _resolves_ranges(ls)
        # The search parses closed suites: on a request worker, off the loop (see requests.py).
        return await ls.requests.run(RequestToken(), lambda: workspace_symbol_answer(ctx, params.query, lazy))

    @server.feature(types.WORKSPACE_SYMBOL_RESOLVE)
    async def workspace_symbol_resolve(
        ls: FeatureServer, symbol: types.WorkspaceSymbol
    ) -> types.WorkspaceSymbol:
        path = uri_to_path(symbol.location.uri)
        if path is None or ls.workspace_index.folder_for(path) is None:
            return symbol  # not one of ours: no file outside the workspace folders is read
        ctx = ls.workspace_context()
        return await ls.requests.run(RequestToken(), lambda: resolved(ctx, symbol))


def _resolves_ranges(ls: FeatureServer) -> bool:
    """The client asks for a symbol's range later (``workspaceSymbol/resolve``), as VS Code does:
    the answer then names each symbol's file only, and no closed file is read to place its
    symbol (1,000 symbols in a monorepo: 1,000 files read and indexed per request)."""
    properties = ls.client_features.supports("workspace", "symbol", "resolve_support", "properties")
    return isinstance(properties, (list, tuple)) and "location.range" in properties


def workspace_symbol_answer(
    ctx: WorkspaceContext, query: str, lazy: bool = False
) -> list[types.WorkspaceSymbol]:
    from ...services.workspace_symbols import workspace_symbols

    found, truncated = workspace_symbols(query, ctx.facts, ctx.evals_suites, ctx.open_text)
    if truncated:
        logger.info("workspace symbols: the first %d matches of %r are shown", len(found), query)
    out = []
    for symbol in found:
        location: types.Location | types.LocationUriOnly | None
        if lazy:
            location = types.LocationUriOnly(uri=path_to_uri(symbol.path))
        else:
            location = ctx.location(symbol.path, symbol.start, symbol.end)
        if location is not None:
            out.append(
                types.WorkspaceSymbol(
                    name=symbol.name,
                    kind=types.SymbolKind.Object,
                    location=location,
                    container_name=symbol.container,
                    data={"start": symbol.start, "end": symbol.end} if lazy else None,
                )
            )
    return out


def resolved(ctx: WorkspaceContext, symbol: types.WorkspaceSymbol) -> types.WorkspaceSymbol:
    """The symbol with its range (from the offsets kept in ``data``); as it came when the file is
    gone or the data is not ours."""
    data, path = symbol.data, uri_to_path(symbol.location.uri)
    if not isinstance(data, dict) or path is None:
        return symbol
    start, end = data.get("start"), data.get("end")
    if not isinstance(start, int) or not isinstance(end, int):
        return symbol
    location = ctx.location(path, start, end)
    if location is not None:
        symbol.location = location
    return symbol


def symbols(ctx: FeatureContext, params: types.DocumentSymbolParams) -> EncodedResult:
    """``DocumentSymbol``s (hierarchical clients) or ``SymbolInformation``s, written as JSON
    directly (``json_text``: a 10 MB suite has 5,000 symbols)."""
    from ...services.outline import document_symbols

    outline = document_symbols(ctx.document, memo=ctx.memos.symbols if ctx.memos is not None else None)
    if outline.truncated:
        logger.info("document symbols of %s: capped at %d", ctx.uri, len(list(_walk(outline.symbols))))
    tree = bool(
        ctx.client.supports("text_document", "document_symbol", "hierarchical_document_symbol_support")
    )
    if len(outline.symbols) != 1:  # (none: not a suite or fixture)
        return EncodedResult(json_text.array(_written(ctx, outline.symbols, None, tree)))
    return EncodedResult(_file_symbols(ctx, outline, ctx.memos, tree))


def _file_symbols(ctx: FeatureContext, outline: Outline, memos: DocumentMemos | None, tree: bool) -> str:
    """The answer for a suite or fixture. A case's part is written again only when the case
    changed or starts on another line or column: otherwise every position in it is what it was
    (the same text, moved as a whole), and its JSON of the previous request is taken as it is.
    Typing within a line moves no case to another line: a keystroke writes the edited case's."""
    top = outline.symbols[0]
    cases = top.children
    ctx.token.check_now()
    starts = ctx.snapshot.line_index.positions([case.start for case in cases], ctx.encoding)
    previous = memos.symbol_texts if memos is not None else {}
    kept: dict[int, tuple[Symbol, tuple[object, ...], str]] = {}
    texts: list[str] = []
    for case, source, start in zip(cases, outline.sources, starts, strict=True):
        ctx.token.check()
        # (a flat client's case names the file as its container)
        fits: tuple[object, ...] = (case.name, len(case.children), start, tree or top.name)
        entry = previous.get(id(source))
        if entry is not None and entry[0] is source and entry[1] == fits:
            text = entry[2]
        else:
            text = written_case(ctx, case, top.name, tree)
        texts.append(text)
        kept[id(source)] = (source, fits, text)
    if memos is not None:
        memos.symbol_texts = kept
    if not tree:
        return json_text.array([*_informations(ctx, [(top, None)]), *texts])
    rng, selection = ctx.range_texts([(top.start, top.end), (top.selection_start, top.selection_end)])
    return json_text.array([_symbol_json(top, rng, selection, texts)])


def written_case(ctx: FeatureContext, case: Symbol, container: str, tree: bool) -> str:
    """A case's symbol (with its assertions) as JSON: a ``DocumentSymbol``, or its and its
    assertions' ``SymbolInformation``s (items of the answer's array)."""
    return ", ".join(_written(ctx, [case], container, tree))


def _written(ctx: FeatureContext, symbols: list[Symbol], container: str | None, tree: bool) -> list[str]:
    """``symbols`` as ``DocumentSymbol``s (with their children), or each with its children as
    ``SymbolInformation``s in walk order."""
    if tree:
        in_order = iter(ctx.range_texts(_spans(s for s, _ in _walk(symbols))))  # each, then its children
        return [_document_symbol(s, in_order) for s in symbols]
    return _informations(ctx, list(_walk(symbols, container)))


def _informations(ctx: FeatureContext, walked: list[tuple[Symbol, str | None]]) -> list[str]:
    """Each ``(symbol, container name)`` as a ``SymbolInformation``."""
    ranges = ctx.range_texts([(s.start, s.end) for s, _ in walked])
    uri = json_text.string(ctx.uri)
    return [
        json_text.members(
            (
                ("name", json_text.string(s.name)),
                ("kind", SYMBOL_KIND[s.kind]),
                ("location", f'{{"uri": {uri}, "range": {rng}}}'),
                ("containerName", json_text.string(parent) if parent is not None else None),
            )
        )
        for (s, parent), rng in zip(walked, ranges, strict=True)
    ]


def _document_symbol(symbol: Symbol, ranges: Iterator[str]) -> str:
    rng, selection = next(ranges), next(ranges)  # before the children's: the walk's order
    children = [_document_symbol(child, ranges) for child in symbol.children]
    return _symbol_json(symbol, rng, selection, children)


def _symbol_json(symbol: Symbol, rng: str, selection: str, children: list[str]) -> str:
    return json_text.members(
        (
            ("name", json_text.string(symbol.name or " ")),
            ("detail", json_text.string(symbol.detail) if symbol.detail else None),
            ("kind", SYMBOL_KIND[symbol.kind]),
            ("range", rng),
            ("selectionRange", selection),
            ("children", json_text.array(children) if children else None),
        )
    )


def _spans(symbols: Iterable[Symbol]) -> list[tuple[int, int]]:
    """Each symbol's range and selection range, in order (as ``_document_symbol`` reads them)."""
    return [span for s in symbols for span in ((s.start, s.end), (s.selection_start, s.selection_end))]


def _walk(symbols: list[Symbol], parent: str | None = None) -> Iterator[tuple[Symbol, str | None]]:
    for symbol in symbols:
        yield symbol, parent
        yield from _walk(symbol.children, symbol.name)


def folding(ctx: FeatureContext, params: types.FoldingRangeParams) -> EncodedResult:
    """Written as JSON directly (``json_text``): a 10 MB suite has 5,000 folding ranges."""
    from ...services.outline import folding_ranges

    declared = ctx.client.supports("text_document", "folding_range", "range_limit")
    limit = declared if isinstance(declared, int) and declared else 5000
    line_only = bool(ctx.client.supports("text_document", "folding_range", "line_folding_only"))
    spans = folding_ranges(ctx.document, limit=limit * 2)
    ctx.token.check_now()
    points = ctx.snapshot.line_index.positions(
        [offset for start, end in spans for offset in (start, max(start, end - 1))], ctx.encoding
    )
    out = []
    for at in range(0, len(points), 2):
        ctx.token.check()
        (start_line, start_char), (end_line, end_char) = points[at], points[at + 1]
        if line_only:
            end_line -= 1  # keep the closing bracket's line visible
        if end_line <= start_line:
            continue
        if line_only:
            out.append(f'{{"startLine": {start_line}, "endLine": {end_line}}}')
        else:
            out.append(
                f'{{"startLine": {start_line}, "startCharacter": {start_char + 1}, '
                f'"endLine": {end_line}, "endCharacter": {end_char}}}'
            )
        if len(out) >= limit:
            logger.info("folding ranges of %s: capped at %d", ctx.uri, limit)
            break
    return EncodedResult(json_text.array(out))


def selection(ctx: FeatureContext, params: types.SelectionRangeParams) -> list[types.SelectionRange]:
    from ...services.outline import selection_ranges

    out = []
    for position in params.positions:
        spans = selection_ranges(ctx.document, ctx.offset(position))
        chain: types.SelectionRange | None = None
        for start, end in reversed(spans):
            chain = types.SelectionRange(range=ctx.range(start, end), parent=chain)
        out.append(chain or types.SelectionRange(range=types.Range(start=position, end=position)))
    return out
