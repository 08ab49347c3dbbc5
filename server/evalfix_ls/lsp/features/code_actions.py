"""``textDocument/codeAction``: quick fixes for the diagnostics in the request, and two source
actions — ``source.fixAll.evalfix`` (every safe fix in one edit) and ``source.migrate.evalfix``
(a legacy workflow fixture rewritten in the canonical shape).

The edits come from the core's fix engine (``services/fixes``), the same one ``--fix`` uses; this
module only matches diagnostics to findings and converts offsets to the client's encoding. The
``WorkspaceEdit`` uses ``documentChanges`` (versioned) when the client says it supports them, else
``changes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lsprotocol import types

from ...findings import Finding
from ...services.fixes import Fix, fix_all, fixes_for, reanalyzer
from ...services.fixes.edits import TextEdit, diff_edits
from ...services.fixes.engine import chosen_fix, fixes_for_repeats
from ...services.migrate import migrate_document
from ..context import FeatureContext
from . import feature

FIX_ALL = "source.fixAll.evalfix"
MIGRATE = "source.migrate.evalfix"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL, MIGRATE]


def register(server: Any) -> None:
    options = types.CodeActionOptions(code_action_kinds=KINDS)

    @feature(server, types.TEXT_DOCUMENT_CODE_ACTION, options)
    def code_actions(ctx: FeatureContext, params: types.CodeActionParams) -> list[types.CodeAction]:
        return actions(ctx, params, versioned=wants_document_changes(server.client_capabilities))


def wants_document_changes(capabilities: Any) -> bool:
    """``workspace.workspaceEdit.documentChanges`` of the client's capabilities."""
    workspace = getattr(capabilities, "workspace", None)
    workspace_edit = getattr(workspace, "workspace_edit", None)
    return bool(getattr(workspace_edit, "document_changes", False))


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the request's ``only`` filter covers ``kind`` (``source`` covers ``source.fixAll.x``)."""
    if not only:
        return True
    return any(kind == prefix or kind.startswith(prefix + ".") for prefix in only)


def actions(
    ctx: FeatureContext, params: types.CodeActionParams, *, versioned: bool
) -> list[types.CodeAction]:
    """``versioned``: answer edits as ``documentChanges`` (the client supports them)."""
    only = params.context.only
    out: list[types.CodeAction] = []
    if wanted(types.CodeActionKind.QuickFix, only):
        out.extend(quick_fixes(ctx, params.context.diagnostics, versioned))
    if wanted(FIX_ALL, only):
        out.extend(_fix_all_action(ctx, versioned))
    if wanted(MIGRATE, only):
        out.extend(_migrate_action(ctx, versioned))
    return out


def quick_fixes(
    ctx: FeatureContext, diagnostics: Iterable[types.Diagnostic], versioned: bool
) -> list[types.CodeAction]:
    out = []
    for diagnostic in diagnostics:
        finding = finding_for(ctx, diagnostic)
        if finding is None:
            continue
        for fix in fixes_for_repeats(ctx.document, _repeats(ctx, finding, diagnostic), ctx.facts):
            out.append(
                types.CodeAction(
                    title=fix.title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=True if fix.preferred else None,
                    edit=workspace_edit(ctx, fix.edits, versioned),
                    data={"code": fix.code, "safe": fix.safe},
                )
            )
    return out


def _repeats(ctx: FeatureContext, finding: Finding, diagnostic: types.Diagnostic) -> list[Finding]:
    """``finding`` and its repeats for the other cases the diagnostic stands for (``data.cases``:
    an inherited problem shown once)."""
    cases = diagnostic.data.get("cases") if isinstance(diagnostic.data, dict) else None
    if not isinstance(cases, list) or len(cases) < 2:
        return [finding]
    same = [
        f
        for f in ctx.document.analysis.findings
        if f.code == finding.code
        and f.pointer == finding.pointer
        and f.start == finding.start
        and f.case in cases
    ]
    return [finding, *[f for f in same if f is not finding]]


def finding_for(ctx: FeatureContext, diagnostic: types.Diagnostic) -> Finding | None:
    """The document's finding a diagnostic stands for: same code and, from the diagnostic's
    ``data``, the same pointer (and case); clients that drop ``data`` are matched by range."""
    if diagnostic.source not in (None, "evalfix-ls"):
        return None
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    pointer = data.get("pointer")
    case = data.get("case")
    candidates = [f for f in ctx.document.analysis.findings if f.code == diagnostic.code]
    if not isinstance(pointer, str):
        candidates = [f for f in candidates if ctx.range(f.start, f.end) == diagnostic.range]
        return candidates[0] if candidates else None
    exact = [f for f in candidates if f.pointer == pointer and (case is None or f.case == case)]
    candidates = exact or [f for f in candidates if f.pointer == pointer]
    if len(candidates) > 1:  # one pointer for several places (each occurrence of a repeated key)
        candidates = [f for f in candidates if ctx.range(f.start, f.end) == diagnostic.range] or candidates
    return candidates[0] if candidates else None


def workspace_edit(ctx: FeatureContext, edits: Sequence[TextEdit], versioned: bool) -> types.WorkspaceEdit:
    text_edits = [types.TextEdit(range=ctx.range(e.start, e.end), new_text=e.new_text) for e in edits]
    if versioned:
        document = types.OptionalVersionedTextDocumentIdentifier(uri=ctx.uri, version=ctx.snapshot.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=text_edits)]
        )
    return types.WorkspaceEdit(changes={ctx.uri: text_edits})


def _reanalyze(ctx: FeatureContext) -> Any:
    repo = ctx.repo
    return reanalyzer(
        ctx.document,
        fs=repo.fs if repo is not None else None,
        workspace=repo.workflow_index() if repo is not None else None,
        apply=ctx.config.apply,
    )


def _has_safe_fix(ctx: FeatureContext) -> bool:
    """A cheap test before running fix-all's rounds (it re-analyses the document each round)."""
    return any(
        chosen_fix(fixes_for(ctx.document, f, ctx.facts), unsafe=False)
        for f in ctx.document.analysis.findings
    )


def _fix_all_action(ctx: FeatureContext, versioned: bool) -> list[types.CodeAction]:
    if not ctx.document.parses or not _has_safe_fix(ctx):
        return []
    result = fix_all(ctx.document, _reanalyze(ctx), facts=ctx.facts)
    if result.text == ctx.document.text:
        return []
    title = f"Fix all safe evalfix problems ({_count(result.applied)})"
    return [_source_action(ctx, title, FIX_ALL, result.text, versioned)]


def _migrate_action(ctx: FeatureContext, versioned: bool) -> list[types.CodeAction]:
    migrated = migrate_document(ctx.document)
    if migrated is None or migrated.text == ctx.document.text:
        return []
    return [
        _source_action(
            ctx, "Migrate to spec-first.workflow-eval-fixtures.v1", MIGRATE, migrated.text, versioned
        )
    ]


def _source_action(
    ctx: FeatureContext, title: str, kind: str, new_text: str, versioned: bool
) -> types.CodeAction:
    edits = diff_edits(ctx.document.text, new_text)
    return types.CodeAction(title=title, kind=kind, edit=workspace_edit(ctx, edits, versioned))


def _count(applied: Sequence[Fix]) -> str:
    return f"{len(applied)} fix{'es' if len(applied) != 1 else ''}"
