"""References, highlights and rename of case ids over ``services.case_ids``."""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from . import FeatureServer, feature
from .context import FeatureContext


class RenameRefusedError(JsonRpcException):
    """The request failed (LSP ``RequestFailed``): the message says why the id cannot be renamed."""

    CODE = -32803


def register(server: FeatureServer) -> None:
    feature(server, types.TEXT_DOCUMENT_REFERENCES)(find_references)
    # Highlights read the tree only (the ids of the cases): answered from the new text's tree while
    # its analysis runs (VS Code asks on most cursor moves while the user types). Off an id they
    # read the one case under the cursor: the point lane, never queued behind a keystroke's
    # document-wide requests.
    feature(server, types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, wait_for_analysis=False, point=True)(highlight)
    feature(server, types.TEXT_DOCUMENT_PREPARE_RENAME)(prepare)
    feature(server, types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))(do_rename)


def find_references(ctx: FeatureContext, params: types.ReferenceParams) -> list[types.Location]:
    from ...services.case_ids import references

    sites = references(
        ctx.document, ctx.facts, ctx.offset(params.position), params.context.include_declaration
    )
    out = []
    for site in sites:
        path = ctx.facts.repo_root / site.rel_path if site.rel_path and ctx.facts.repo_root else None
        location = ctx.location(path, site.start, site.end)
        if location is not None:
            out.append(location)
    return out


def highlight(ctx: FeatureContext, params: types.DocumentHighlightParams) -> list[types.DocumentHighlight]:
    from ...services.case_ids import highlights

    return [
        types.DocumentHighlight(range=ctx.range(site.start, site.end), kind=types.DocumentHighlightKind.Text)
        for site in highlights(ctx.document, ctx.offset(params.position))
    ]


def prepare(ctx: FeatureContext, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder:
    from ...services.case_ids import RenameRefused, prepare_rename

    try:
        target = prepare_rename(ctx.document, ctx.facts, ctx.offset(params.position))
    except RenameRefused as refused:
        raise RenameRefusedError(message=str(refused)) from None
    return types.PrepareRenamePlaceholder(
        range=ctx.range(target.start, target.end), placeholder=target.placeholder
    )


def do_rename(ctx: FeatureContext, params: types.RenameParams) -> types.WorkspaceEdit:
    from ...services.case_ids import RenameRefused, rename

    try:
        start, end, text = rename(ctx.document, ctx.facts, ctx.offset(params.position), params.new_name)
    except RenameRefused as refused:
        raise RenameRefusedError(message=str(refused)) from None
    edit = types.TextEdit(range=ctx.range(start, end), new_text=text)
    if ctx.client.supports("workspace", "workspace_edit", "document_changes"):
        document = types.OptionalVersionedTextDocumentIdentifier(uri=ctx.uri, version=ctx.snapshot.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=[edit])]
        )
    return types.WorkspaceEdit(changes={ctx.uri: [edit]})
