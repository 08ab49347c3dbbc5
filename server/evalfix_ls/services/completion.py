"""Completion: member names, values, enums and snippets from the schemas, plus what only the
workspace knows (coverage tags in use, paths, the skill's name — ``completion_workspace``).

Every suggestion replaces exactly the partial token of the context (``completion_context``):
the range includes the opening quote and, when present, the closing one. Documentation and enum
descriptions come from ``schemas/``; nothing here carries contract text of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from ..contracts.detection import UNKNOWN
from ..text.pieces import Text
from .completion_context import KEY, CompletionContext, find_context, line_start_of, next_significant
from .completion_workspace import workspace_values
from .document import DocumentView
from .schema_nodes import SchemaNode, listed, schema_at
from .snippets import json_text, render, value_placeholder
from .suggestion import ENUM, KEYWORD, PROPERTY, SNIPPET, Suggestion, replacing
from .workspace_facts import WorkspaceFacts, skill_of

FactsSource = WorkspaceFacts | Callable[[], WorkspaceFacts] | None


def complete(
    document: DocumentView, offset: int, facts: FactsSource = None, *, snippets: bool = True
) -> list[Suggestion]:
    """The suggestions at ``offset`` of ``document`` (empty outside a fixture file). ``facts``
    may be a function: the workspace is then consulted only at a position that needs it."""
    if document.kind == UNKNOWN:
        return []
    ctx = find_context(document.text, document.root, offset)
    if ctx.at == KEY:
        found = key_suggestions(document, ctx, snippets=snippets)
    else:
        in_workspace = workspace_values(document, ctx, _facts_of(facts))
        found = (
            in_workspace if in_workspace is not None else value_suggestions(document, ctx, snippets=snippets)
        )
    return _with_comma(ctx, found)


def _facts_of(source: FactsSource) -> Callable[[], WorkspaceFacts]:
    if source is None:
        return WorkspaceFacts.empty
    if isinstance(source, WorkspaceFacts):
        return lambda: source
    return source


def _with_comma(ctx: CompletionContext, found: list[Suggestion]) -> list[Suggestion]:
    """A member or item typed after another without a comma gets that comma too."""
    if ctx.comma_missing is None:
        return found
    comma = ((ctx.comma_missing, ctx.comma_missing, ","),)
    return [replace(item, extra_edits=item.extra_edits + comma) for item in found]


# -- member names ------------------------------------------------------------------------------


def key_suggestions(document: DocumentView, ctx: CompletionContext, *, snippets: bool) -> list[Suggestion]:
    schema = schema_at(document.kind, document.root, ctx.container_path)
    required = schema.required()
    token = ctx.token
    trailing = "," if _member_follows(document.text, token.end) else ""
    out: list[Suggestion] = []
    for order, name in enumerate(schema.properties()):
        if name in ctx.present_keys or name.startswith("$"):
            continue
        sub = schema_at(document.kind, document.root, (*ctx.container_path, name))
        if ctx.colon_follows:
            insert, is_snippet = json_text(name), False
        else:
            insert, is_snippet = f"{json_text(name)}: {_placeholder(sub, snippets)}{trailing}", snippets
        deprecated = _deprecated(sub)
        rank = 0 if name in required else (2 if deprecated else 1)
        out.append(
            replacing(
                ctx,
                name,
                PROPERTY,
                insert,
                snippet=is_snippet,
                filter_text=json_text(name) if token.quoted else name,
                sort=f"{rank}{order:03d}",
                detail="required" if name in required else None,
                documentation=sub.description(),
                deprecated=deprecated,
            )
        )
    if not ctx.present_keys and not ctx.colon_follows:
        out.extend(_member_snippets(document, ctx, schema, snippets))
    return out


def _placeholder(sub: SchemaNode, snippets: bool) -> str:
    return value_placeholder(
        enum=sub.enum(),
        types=sub.types(),
        array=any("items" in f or "prefixItems" in f for f in sub.fragments),
        object_=any("properties" in f for f in sub.fragments),
        snippet=snippets,
    )


def _member_snippets(
    document: DocumentView, ctx: CompletionContext, schema: SchemaNode, snippets: bool
) -> list[Suggestion]:
    """Inside an object with nothing written yet: the members of each object snippet."""
    out = []
    indent = _indent_of(document.text, ctx.token.start)
    for order, snippet in enumerate(schema.default_snippets()):
        body = snippet.get("body")
        if not isinstance(body, dict) or not body:
            continue
        text = render(body, snippet=snippets, indent=indent, defaults=_defaults(document), members_only=True)
        out.append(_snippet_item(ctx, snippet, text, snippets, order, quoted_filter=True))
    return out


def _member_follows(text: Text, offset: int) -> bool:
    return next_significant(text, offset) == '"'


def _deprecated(sub: SchemaNode) -> bool:
    return any(fragment.get("deprecated") is True for fragment in sub.fragments)


# -- values ------------------------------------------------------------------------------------


def value_suggestions(document: DocumentView, ctx: CompletionContext, *, snippets: bool) -> list[Suggestion]:
    if ctx.member_key == "":
        return []
    schema = schema_at(document.kind, document.root, ctx.path)
    out = _enum_items(ctx, schema)
    if "boolean" in schema.types() and not any(isinstance(v, bool) for v in schema.enum()):
        out.extend(_literal(ctx, value, KEYWORD, f"5{value}") for value in (True, False))
    indent = _indent_of(document.text, ctx.token.start)
    for order, snippet in enumerate(schema.default_snippets()):
        if "body" not in snippet:
            continue
        body = snippet["body"]
        if isinstance(body, str) and body in {s.label for s in out}:
            continue  # an enum value already offered (e.g. "assistant-text")
        text = render(body, snippet=snippets, indent=indent, defaults=_defaults(document))
        out.append(_snippet_item(ctx, snippet, text, snippets, order, quoted_filter=isinstance(body, str)))
    if ctx.in_array:
        out = [item for item in out if item.label not in ctx.present_items or item.kind == SNIPPET]
    return out


def _enum_items(ctx: CompletionContext, schema: SchemaNode) -> list[Suggestion]:
    """The enum's values, then the schema's ``examples`` where it has no enum (``schema_version``:
    the canonical id)."""
    descriptions = schema.enum_descriptions()
    values = schema.enum() or _examples(schema)
    out = []
    for order, value in enumerate(values):
        if value == "" or value is None or value is False or value == 0:
            continue  # the "falsy means absent" alternatives are no value to write
        item = _literal(ctx, value, ENUM, f"2{order:03d}")
        out.append(replace(item, documentation=descriptions.get(value) or schema.description()))
    return out


def _examples(schema: SchemaNode) -> list[str]:
    found: list[str] = []
    for fragment in schema.fragments:
        found.extend(v for v in listed(fragment, "examples") if isinstance(v, str) and v not in found)
    return found


def _literal(ctx: CompletionContext, value: object, kind: str, sort: str) -> Suggestion:
    text = json_text(value)
    return replacing(ctx, value if isinstance(value, str) else text, kind, text, sort=sort)


def _snippet_item(
    ctx: CompletionContext,
    snippet: Mapping[str, object],
    text: str,
    snippets: bool,
    order: int,
    *,
    quoted_filter: bool,
) -> Suggestion:
    label = str(snippet.get("label") or text.split("\n", 1)[0])
    filter_text = f'"{label}' if ctx.token.quoted and quoted_filter else label
    return replacing(
        ctx,
        label,
        SNIPPET,
        text,
        snippet=snippets,
        filter_text=filter_text,
        sort=f"3{order:03d}",
        detail=_string(snippet.get("description")),
        documentation=_string(snippet.get("markdownDescription") or snippet.get("description")),
    )


def _string(value: object) -> str | None:
    """A snippet's text field (the bundled schemas write strings; anything else is no text)."""
    return value if isinstance(value, str) else None


def _defaults(document: DocumentView) -> dict[str, str]:
    """Placeholder defaults the document knows better than the schema: the skill's name."""
    skill = skill_of(document.rel_path)
    return {"skill-name": skill} if skill else {}


def _indent_of(text: Text, offset: int) -> str:
    line_start = line_start_of(text, offset)
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]
