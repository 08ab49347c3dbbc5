"""``textDocument/codeAction`` and ``codeAction/resolve``: quick fixes for the diagnostics in the
request, and two source actions — ``source.fixAll.evalfix`` (every safe fix in one edit) and
``source.migrate.evalfix`` (a legacy workflow fixture rewritten in the canonical shape).

An editor asks for code actions on every cursor move (the lightbulb), so a request costs what it
shows: the quick fixes of the diagnostics it names, each finding found through the analysis'
index (``services/finding_index.py``), not by scanning every finding; an automatic request
(``triggerKind`` Automatic, no ``only``) gets nothing else. The source actions rewrite
the whole document: a client that resolves code actions gets them without edits, computed in
``codeAction/resolve`` when the user picks one; a client that cannot resolve gets them only when
its ``only`` asks for them.

The edits come from the core's fix engine (``services/fixes``), the same one ``--fix`` uses: what
its rounds applied (fix-all) or what the migrator rewrote, never a diff of whole texts. This
module only matches diagnostics to findings and converts offsets to the client's encoding. The
``WorkspaceEdit`` uses ``documentChanges`` (versioned) when the client says it supports them, else
``changes``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from . import FeatureServer, feature
from .context import FeatureContext

if TYPE_CHECKING:
    from ...findings import Finding
    from ...services.document import DocumentView
    from ...services.finding_index import FindingIndex
    from ...services.fixes import Fix
    from ...services.fixes.edits import TextEdit

FIX_ALL = "source.fixAll.evalfix"
MIGRATE = "source.migrate.evalfix"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL, MIGRATE]
FIX_ALL_TITLE = "Fix all safe evalfix problems"
MIGRATE_TITLE = "Migrate to spec-first.workflow-eval-fixtures.v1"


def register(server: FeatureServer) -> None:
    options = types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True)

    @feature(server, types.TEXT_DOCUMENT_CODE_ACTION, options)
    def code_actions(ctx: FeatureContext, params: types.CodeActionParams) -> list[types.CodeAction]:
        return actions(ctx, params)

    @feature(server, types.CODE_ACTION_RESOLVE, uri_of=resolve_uri)
    def resolve(ctx: FeatureContext, action: types.CodeAction) -> types.CodeAction:
        return resolved(ctx, action)


def wants_document_changes(ctx: FeatureContext) -> bool:
    """``workspace.workspaceEdit.documentChanges`` of the client's capabilities."""
    return bool(ctx.client.supports("workspace", "workspace_edit", "document_changes"))


def resolves_edits(ctx: FeatureContext) -> bool:
    """The client fills in a code action's edit through ``codeAction/resolve``."""
    support = ctx.client.supports("text_document", "code_action", "resolve_support")
    return "edit" in (getattr(support, "properties", None) or ())


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the request's ``only`` filter covers ``kind`` (``source`` covers ``source.fixAll.x``)."""
    if not only:
        return True
    return any(kind == prefix or kind.startswith(prefix + ".") for prefix in only)


def actions(ctx: FeatureContext, params: types.CodeActionParams) -> list[types.CodeAction]:
    from ...services.migrate import migration_applies

    only = params.context.only
    out: list[types.CodeAction | None] = []
    if wanted(types.CodeActionKind.QuickFix, only):
        out.extend(quick_fixes(ctx, params.context.diagnostics))
    if not only and params.context.trigger_kind == types.CodeActionTriggerKind.Automatic:
        # The lightbulb on a cursor move: editors show no source action there (VS Code filters
        # them out of it), and whether fix-all has anything to do is a scan of every finding
        # (at 10 MB, 5,800 findings without a safe fix: most of a 700 ms lightbulb request).
        return [action for action in out if action is not None]
    lazy = resolves_edits(ctx)
    if lazy or only:  # computing them costs a whole document: only when asked for
        if wanted(FIX_ALL, only) and _has_safe_fix(ctx):
            out.append(_lazy(ctx, FIX_ALL_TITLE, FIX_ALL) if lazy else _fix_all_action(ctx))
        if wanted(MIGRATE, only) and migration_applies(ctx.document):
            out.append(_lazy(ctx, MIGRATE_TITLE, MIGRATE) if lazy else _migrate_action(ctx))
    return [action for action in out if action is not None]


def _lazy(ctx: FeatureContext, title: str, kind: str) -> types.CodeAction:
    return types.CodeAction(title=title, kind=kind, data={"uri": ctx.uri, "version": ctx.snapshot.version})


def resolve_uri(action: types.CodeAction) -> str:
    """The document a code action to resolve belongs to (from the ``data`` we gave it)."""
    data = getattr(action, "data", None)
    uri = data.get("uri") if isinstance(data, dict) else None
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(message="codeAction/resolve: the action carries no document (data.uri)")
    return uri


def resolved(ctx: FeatureContext, action: types.CodeAction) -> types.CodeAction:
    """``action`` with its edit, computed on the document's current text (an action with nothing
    left to change comes back without an edit)."""
    if action.kind == FIX_ALL:
        edits = _fix_all_edits(ctx)[0]
    elif action.kind == MIGRATE:
        edits = _migration_edits(ctx)
    else:
        return action
    if edits:
        action.edit = workspace_edit(ctx, edits)
    return action


def quick_fixes(ctx: FeatureContext, diagnostics: Iterable[types.Diagnostic]) -> list[types.CodeAction]:
    from ...services.fixes.engine import fixes_for_repeats

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
                    edit=workspace_edit(ctx, fix.edits),
                    data={"code": fix.code, "safe": fix.safe},
                )
            )
    return out


def _repeats(ctx: FeatureContext, finding: Finding, diagnostic: types.Diagnostic) -> list[Finding]:
    """``finding`` and its repeats for the other cases the diagnostic stands for (``data.cases``:
    an inherited problem shown once)."""
    from ...services.finding_index import finding_index

    cases = diagnostic.data.get("cases") if isinstance(diagnostic.data, dict) else None
    if not isinstance(cases, list) or len(cases) < 2:
        return [finding]
    same = [
        f
        for f in finding_index(ctx.document.analysis).at(finding.code, finding.pointer)
        if f.start == finding.start and f.case in cases
    ]
    return [finding, *[f for f in same if f is not finding]]


def finding_for(ctx: FeatureContext, diagnostic: types.Diagnostic) -> Finding | None:
    """The document's finding a diagnostic stands for: same code and, from the diagnostic's
    ``data``, the same pointer (and case); clients that drop ``data`` are matched by range."""
    from ...services.finding_index import finding_index

    if diagnostic.source not in (None, "evalfix-ls") or not isinstance(diagnostic.code, str):
        return None
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    pointer = data.get("pointer")
    case = data.get("case")
    index = finding_index(ctx.document.analysis)
    if not isinstance(pointer, str):
        start = ctx.offset(diagnostic.range.start)
        candidates = [f for f in index.starting_at(diagnostic.code, start)]
        candidates = [f for f in candidates if ctx.range(f.start, f.end) == diagnostic.range]
        return candidates[0] if candidates else None
    at_pointer = index.at(diagnostic.code, pointer)
    candidates = [f for f in at_pointer if case is None or f.case == case] or at_pointer
    if len(candidates) > 1:  # one pointer for several places (each occurrence of a repeated key)
        candidates = [f for f in candidates if ctx.range(f.start, f.end) == diagnostic.range] or candidates
    return candidates[0] if candidates else None


def workspace_edit(ctx: FeatureContext, edits: Sequence[TextEdit]) -> types.WorkspaceEdit:
    text_edits = [types.TextEdit(range=ctx.range(e.start, e.end), new_text=e.new_text) for e in edits]
    if wants_document_changes(ctx):
        document = types.OptionalVersionedTextDocumentIdentifier(uri=ctx.uri, version=ctx.snapshot.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=text_edits)]
        )
    return types.WorkspaceEdit(changes={ctx.uri: text_edits})


def _reanalyze(ctx: FeatureContext) -> Callable[[str], DocumentView]:
    from ...services.fixes import reanalyzer

    repo = ctx.repo
    return reanalyzer(
        ctx.document,
        fs=repo.fs if repo is not None else None,
        workspace=repo.workflow_index() if repo is not None else None,
        apply=ctx.config.apply,
    )


def _has_safe_fix(ctx: FeatureContext) -> bool:
    """Whether fix-all has something to do, decided once per analysis (at 10 MB a scan of
    thousands of findings): the first finding with a safe fix answers (its fixers run only for
    findings whose code has one)."""
    from ...services.finding_index import finding_index

    if not ctx.document.parses:
        return False
    index = finding_index(ctx.document.analysis)
    if index.has_safe_fix is None:  # a request stopped half-way decides nothing
        index.has_safe_fix = _any_safe_fix(ctx, index)
    return index.has_safe_fix


def _any_safe_fix(ctx: FeatureContext, index: FindingIndex) -> bool:
    from ...services.fixes import fixable_codes, fixes_for
    from ...services.fixes.engine import chosen_fix

    for code in set(fixable_codes()) & index.codes():
        for finding in index.of_code(code):
            ctx.token.check()
            if chosen_fix(fixes_for(ctx.document, finding, ctx.facts), unsafe=False):
                return True
    return False


def _fix_all_edits(ctx: FeatureContext) -> tuple[list[TextEdit], list[Fix]]:
    from ...services.fixes import fix_all

    if not ctx.document.parses:
        return [], []
    result = fix_all(ctx.document, _reanalyze(ctx), facts=ctx.facts)
    return result.edits, result.applied


def _migration_edits(ctx: FeatureContext) -> list[TextEdit]:
    from ...services.migrate import migrate_document

    migrated = migrate_document(ctx.document)
    return migrated.edits if migrated is not None else []


def _fix_all_action(ctx: FeatureContext) -> types.CodeAction | None:
    edits, applied = _fix_all_edits(ctx)
    if not edits:
        return None
    title = f"{FIX_ALL_TITLE} ({_count(applied)})"
    return types.CodeAction(title=title, kind=FIX_ALL, edit=workspace_edit(ctx, edits))


def _migrate_action(ctx: FeatureContext) -> types.CodeAction | None:
    edits = _migration_edits(ctx)
    if not edits:
        return None
    return types.CodeAction(title=MIGRATE_TITLE, kind=MIGRATE, edit=workspace_edit(ctx, edits))


def _count(applied: Sequence[Fix]) -> str:
    return f"{len(applied)} fix{'es' if len(applied) != 1 else ''}"
