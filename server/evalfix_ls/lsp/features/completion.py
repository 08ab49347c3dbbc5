"""``textDocument/completion``: the service's suggestions as LSP items.

The request answers from the text of the version it was asked on, without waiting for that
version's analysis (``wait_for_analysis=False``: a local re-parse around the latest edits). Every
item carries a ``textEdit`` over exactly the partial token, in the negotiated position encoding;
snippet syntax only for clients that declare ``snippetSupport``.
"""

from __future__ import annotations

from lsprotocol import types

from ...services.suggestion import ENUM, FILE, FOLDER, KEYWORD, PROPERTY, SNIPPET, TAG, VALUE, Suggestion
from . import FeatureServer, feature
from .context import FeatureContext

# '"' opens a key or value, ':' starts a value, '/' the next path segment, '#' a heading anchor.
TRIGGER_CHARACTERS = ['"', ":", "/", "#"]

_KIND = {
    PROPERTY: types.CompletionItemKind.Property,
    VALUE: types.CompletionItemKind.Value,
    ENUM: types.CompletionItemKind.EnumMember,
    SNIPPET: types.CompletionItemKind.Snippet,
    FILE: types.CompletionItemKind.File,
    FOLDER: types.CompletionItemKind.Folder,
    TAG: types.CompletionItemKind.Constant,
    KEYWORD: types.CompletionItemKind.Keyword,
}
_RETRIGGER = types.Command(title="Suggest", command="editor.action.triggerSuggest")


def register(server: FeatureServer) -> None:
    options = types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=False)

    @feature(
        server, types.TEXT_DOCUMENT_COMPLETION, options, wait_for_analysis=False, whole_text=False, point=True
    )
    def completion(ctx: FeatureContext, params: types.CompletionParams) -> types.CompletionList:
        from ...services.completion import complete

        offset = ctx.offset(params.position)
        found = complete(ctx.document, offset, lambda: ctx.facts, snippets=ctx.client.snippets)
        return types.CompletionList(is_incomplete=False, items=[to_item(ctx, s) for s in found])


def to_item(ctx: FeatureContext, suggestion: Suggestion) -> types.CompletionItem:
    text = suggestion.documentation or None
    documentation: types.MarkupContent | str | None = text
    if text and ctx.client.completion_markdown:
        documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    extra = [
        types.TextEdit(range=ctx.range(start, end), new_text=text)
        for start, end, text in suggestion.extra_edits
    ]
    return types.CompletionItem(
        label=suggestion.label,
        kind=_KIND.get(suggestion.kind),
        detail=suggestion.detail,
        documentation=documentation,
        sort_text=suggestion.sort or None,
        filter_text=suggestion.filter_text,
        insert_text_format=(
            types.InsertTextFormat.Snippet if suggestion.snippet else types.InsertTextFormat.PlainText
        ),
        text_edit=types.TextEdit(
            range=ctx.range(suggestion.start, suggestion.end), new_text=suggestion.insert
        ),
        additional_text_edits=extra or None,
        tags=[types.CompletionItemTag.Deprecated] if suggestion.deprecated else None,
        command=_RETRIGGER if suggestion.retrigger and ctx.client.vscode else None,
    )
