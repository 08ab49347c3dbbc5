"""What a completion service returns: plain suggestions with code-point ranges (the LSP layer
maps their kinds to ``CompletionItemKind``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the language server imports the kinds below before ``initialize``, not this
    from .completion_context import CompletionContext

# Suggestion kinds (the LSP layer maps them to CompletionItemKind).
PROPERTY = "property"
VALUE = "value"
ENUM = "enum"
SNIPPET = "snippet"
FILE = "file"
FOLDER = "folder"
TAG = "tag"
KEYWORD = "keyword"


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One completion item: ``insert`` replaces ``[start, end)`` (code points); it is snippet
    syntax when ``snippet``. ``extra_edits`` are ``(start, end, text)`` edits elsewhere (a comma
    the previous member lacks). ``sort`` orders the list; ``retrigger`` asks the client for the
    next completion right away (a folder of a path)."""

    label: str
    kind: str
    insert: str
    start: int
    end: int
    snippet: bool = False
    filter_text: str | None = None
    sort: str = ""
    detail: str | None = None
    documentation: str | None = None
    extra_edits: tuple[tuple[int, int, str], ...] = ()
    retrigger: bool = False
    deprecated: bool = False


def replacing(
    ctx: CompletionContext,
    label: str,
    kind: str,
    insert: str,
    *,
    snippet: bool = False,
    filter_text: str | None = None,
    sort: str = "",
    detail: str | None = None,
    documentation: str | None = None,
    deprecated: bool = False,
) -> Suggestion:
    """A suggestion replacing the context's partial token. Its filter text is, unless given, the
    inserted text when the user typed the opening quote (so ``"em`` still matches), else the
    label."""
    token = ctx.token
    return Suggestion(
        label,
        kind,
        insert,
        token.start,
        token.end,
        snippet=snippet,
        filter_text=filter_text if filter_text is not None else (insert if token.quoted else label),
        sort=sort,
        detail=detail,
        documentation=documentation,
        deprecated=deprecated,
    )
