"""Values only the workspace knows: coverage tags in use, repository paths for ``source_refs``
(segment by segment, ``#`` heading anchors of Markdown files), paths inside a suite's ``evals/``
folder, the workspace files a case's setup creates, and the skill's folder name."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ..contracts.detection import EVALS, WORKFLOW
from ..contracts.workflow.refs import GENERATED_OR_HISTORICAL_PREFIXES
from ..parser.tree import OBJECT, STRING, Node, join_pointer, resolve_pointer
from ..parser.values import member_value, string_of
from ..text.pieces import Text
from ..workspace.confine import resolve_within
from ..workspace.walk import walk_directories
from .cases import case_path_strings, flattens, is_assertion_path
from .completion_context import CompletionContext
from .cursor import JsonPath
from .document import DocumentView
from .markdown_anchors import MAX_HEADINGS, file_headings
from .markdown_code import code
from .schema_nodes import listed, schema_for, table
from .snippets import json_text
from .suggestion import FILE, FOLDER, TAG, VALUE, Suggestion, replacing
from .workspace_facts import WorkspaceFacts, skill_of

MAX_WALKED_FILES = 300  # files listed below evals/ or below a seeded source
_CASE_ARRAYS = ("cases", "examples")


def workspace_values(
    document: DocumentView, ctx: CompletionContext, facts_of: Callable[[], WorkspaceFacts]
) -> list[Suggestion] | None:
    """The suggestions of a workspace-backed position, or None when the position is not one
    (``facts_of`` is called only for a position that needs the workspace)."""
    path = ctx.path
    if document.kind == WORKFLOW:
        if _is_tag_item(path):
            return tag_suggestions(document, ctx, facts_of())
        if _is_ref_item(path):
            return ref_suggestions(document, ctx, facts_of())
        if path == ("skill",):
            return _skill_name(document, ctx)
    if document.kind == EVALS:
        if path == ("skill_name",):
            return _skill_name(document, ctx)
        if _is_suite_source(path):
            return path_suggestions(document.text, ctx, facts_of(), _evals_dir(document))
        if is_assertion_path(path):
            return _assertion_paths(document, ctx, facts_of())
    return None


# -- where ------------------------------------------------------------------------------------


def _is_tag_item(path: JsonPath) -> bool:
    return _list_item_of(path, "coverage_tags")


def _is_ref_item(path: JsonPath) -> bool:
    return _list_item_of(path, "source_refs")


def _list_item_of(path: JsonPath, name: str) -> bool:
    """``name`` at the top level or in a case, as a list item or as the single-string form."""
    if path and isinstance(path[-1], int):
        path = path[:-1]
    return path == (name,) or (len(path) == 3 and path[0] in _CASE_ARRAYS and path[2] == name)


def _is_suite_source(path: JsonPath) -> bool:
    if len(path) < 3 or path[0] != "evals":
        return False
    rest = path[2:]
    return (
        (len(rest) == 2 and rest[0] == "files" and isinstance(rest[1], int))
        or rest[:2] == ("setup", "sources")
        and (len(rest) == 3 or rest[3:] == ("from",))
        or rest == ("setup", "fixture", "source")
    )


# -- coverage tags ----------------------------------------------------------------------------


def tag_suggestions(
    document: DocumentView, ctx: CompletionContext, facts: WorkspaceFacts
) -> list[Suggestion]:
    """The documented tags (readiness buckets first) with what each requires, then every tag
    used in the workspace's fixtures, most used first; never one the array already holds."""
    known = _known_tags()
    present = set(ctx.present_items)
    out: list[Suggestion] = []
    for order, (tag, doc) in enumerate(known.items()):
        if tag not in present:
            out.append(_tag_item(ctx, tag, f"0{order:03d}", "documented tag", doc))
    uses = facts.coverage_tags(exclude_file=document.rel_path)
    for order, use in enumerate(u for u in uses if u.tag not in known and u.tag not in present):
        cases = f"{use.count} case{'s' if use.count != 1 else ''}"
        doc = f"Used in {cases} of this workspace, e.g. {code(use.example)}."
        detail = f"used in {cases}"
        out.append(_tag_item(ctx, use.tag, f"1{order:05d}", detail, doc))
    return out


def _known_tags() -> dict[str, str]:
    """Tag → documentation, from the schema's ``KnownCoverageTag`` (the readiness buckets'
    fuller ``ReadinessBucket`` texts where they exist)."""
    defs = table(schema_for(WORKFLOW) or {}, "$defs")
    known, buckets = table(defs, "KnownCoverageTag"), table(defs, "ReadinessBucket")
    texts = dict(zip(listed(known, "enum"), listed(known, "enumDescriptions"), strict=False))
    texts.update(zip(listed(buckets, "enum"), listed(buckets, "enumDescriptions"), strict=False))
    return {tag: str(texts.get(tag, "")) for tag in listed(known, "enum") if isinstance(tag, str)}


def _tag_item(ctx: CompletionContext, tag: str, sort: str, detail: str, doc: str) -> Suggestion:
    return replacing(ctx, tag, TAG, json_text(tag), sort=sort, detail=detail, documentation=doc)


# -- paths ------------------------------------------------------------------------------------


def ref_suggestions(
    document: DocumentView, ctx: CompletionContext, facts: WorkspaceFacts
) -> list[Suggestion]:
    """Repository-relative paths; under authority ``source`` the generated-mirror and plan
    folders the contract forbids are left out."""
    exclude = GENERATED_OR_HISTORICAL_PREFIXES if _authority_is_source(document, ctx) else ()
    return path_suggestions(document.text, ctx, facts, facts.repo_root, exclude=exclude, anchors=True)


def _authority_is_source(document: DocumentView, ctx: CompletionContext) -> bool:
    """The effective authority of the refs at the cursor: the case's own value, else the file's,
    else ``source`` (a falsy value means the default)."""
    root = document.root
    values: list[Node | None] = []
    if len(ctx.path) >= 3 and ctx.path[0] in _CASE_ARRAYS and root is not None:
        case = _at(root, ctx.path[:2])
        values.append(case.get("source_ref_authority") if case is not None and case.kind == OBJECT else None)
    values.append(root.get("source_ref_authority") if root is not None and root.kind == OBJECT else None)
    for value in values:
        if value is not None and value.value:  # falsy: absent
            return not (value.kind == STRING and value.value in ("historical", "advisory"))
    return True


def path_suggestions(
    text: Text,
    ctx: CompletionContext,
    facts: WorkspaceFacts,
    base: Path | None,
    *,
    exclude: tuple[str, ...] = (),
    anchors: bool = False,
) -> list[Suggestion]:
    """The entries of the folder the typed path names so far (folders end with ``/`` and ask
    for the next segment), or the headings of a Markdown file after ``#``. Each replaces only the
    segment being typed, inside the string's quotes."""
    if base is None:
        return []
    typed = ctx.token.prefix if ctx.token.quoted else ""
    if anchors and "#" in typed:
        return _anchor_suggestions(text, ctx, facts, base, typed)
    folder, _, _partial = typed.rpartition("/")
    directory = facts.resolve(folder, base) if folder else base
    if directory is None:
        return []
    start = ctx.token.start + 1 + (len(folder) + 1 if folder else 0)
    end = _segment_end(text, ctx)
    out = []
    for order, entry in enumerate(facts.list_dir(directory)):
        rel = f"{folder}/{entry.name}" if folder else entry.name
        if _excluded(rel, entry.is_dir, exclude):
            continue
        name = entry.name + ("/" if entry.is_dir else "")
        out.append(
            Suggestion(
                label=name,
                kind=FOLDER if entry.is_dir else FILE,
                insert=name,
                start=start,
                end=end,
                filter_text=name,
                sort=f"{0 if entry.is_dir else 1}{order:04d}",
                retrigger=entry.is_dir,
            )
        )
    return out if ctx.token.quoted else []


def _segment_end(text: Text, ctx: CompletionContext) -> int:
    """The end of the path segment the cursor is in: the next ``/`` or ``#``, else the end of
    the string (its closing quote kept)."""
    token = ctx.token
    limit = token.end - 1 if token.closed else token.end
    for index in range(ctx.offset, limit):
        if text[index] in "/#":
            return index
    return max(ctx.offset, limit)


def _excluded(rel: str, is_dir: bool, exclude: tuple[str, ...]) -> bool:
    candidate = rel + ("/" if is_dir else "")
    return any(candidate.startswith(prefix) for prefix in exclude)


def _anchor_suggestions(
    text: Text, ctx: CompletionContext, facts: WorkspaceFacts, base: Path, typed: str
) -> list[Suggestion]:
    """The headings of the Markdown file before ``#``: labelled as written, inserting the anchor
    that links and go-to-definition resolve (``markdown_anchors``)."""
    file_part = typed.split("#", 1)[0]
    target = facts.resolve(file_part, base)
    if target is None or not facts.exists(target):
        return []
    start = ctx.token.start + 1 + len(file_part) + 1
    end = _segment_end(text, ctx)
    return [
        Suggestion(
            label=heading.text,
            kind=VALUE,
            insert=heading.anchor,
            start=start,
            end=end,
            filter_text=heading.anchor,
            sort=f"{order:04d}",
            detail=f"#{heading.anchor} (line {heading.line + 1})",
        )
        for order, heading in enumerate(file_headings(facts, target)[:MAX_HEADINGS])
    ]


def _evals_dir(document: DocumentView) -> Path | None:
    return document.path.parent if document.path is not None else None


# -- the workspace files a case's setup creates --------------------------------------------------


def _assertion_paths(
    document: DocumentView, ctx: CompletionContext, facts: WorkspaceFacts
) -> list[Suggestion]:
    evals_dir = _evals_dir(document)
    case = _at(document.root, ctx.path[:2])
    created = created_paths(case, evals_dir, facts.repo_root) if evals_dir is not None else []
    detail = "created by the case's setup" if created else "a file under evals/"
    if not created and evals_dir is not None:
        real = resolve_within(evals_dir, facts.repo_root or evals_dir)
        created = _walk(Path(real)) if real is not None else []
    return [
        replacing(ctx, rel, FILE, json_text(rel), sort=f"{order:04d}", detail=detail)
        for order, rel in enumerate(created)
    ]


def created_paths(case: Node | None, evals_dir: Path, repo_root: Path | None = None) -> list[str]:
    """Workspace-relative files the case's ``setup`` (seeded sources) or legacy ``files`` copy
    in, where they can be known from the file system; empty for other setups. A source is looked
    at only where it resolves inside the repository (else the skill folder): a linked folder
    leading out of it is not listed."""
    if case is None or case.kind != OBJECT:
        return []
    pairs: list[tuple[str, str | None, bool]] = []  # (from, to, flatten)
    flatten = flattens(case.get("setup"))
    for source in case_path_strings(EVALS, case):
        if not source.value:
            continue
        if source.field == "sources":
            pairs.append((source.value, string_of(member_value(source.entry, "to")), flatten))
        elif source.field == "files":
            pairs.append((source.value, None, False))
    out: list[str] = []
    for origin, to, copy_flattens in pairs:
        out.extend(p for p in _copied(evals_dir, origin, to, copy_flattens, repo_root) if p not in out)
    return out[:MAX_WALKED_FILES]


def _copied(evals_dir: Path, source: str, to: str | None, flatten: bool, repo_root: Path | None) -> list[str]:
    origin = Path(os.path.normpath(evals_dir / source))
    if not origin.is_relative_to(evals_dir.parent):
        return []
    real = resolve_within(origin, repo_root or evals_dir.parent)
    if real is None:
        return []
    destination = to if to is not None else ("." if flatten else source)
    if os.path.isfile(real):
        target = PurePosixPath(destination)
        return [str(target / origin.name) if flatten or destination.endswith("/") else str(target)]
    if os.path.isdir(real):
        return [_clean(PurePosixPath(destination) / rel) for rel in _walk(Path(real))]
    return []


def _clean(path: PurePosixPath) -> str:
    return os.path.normpath(str(path)).replace(os.sep, "/")


def _walk(directory: Path) -> list[str]:
    """Files below ``directory`` (relative POSIX paths, sorted, dot-entries skipped, bounded)."""
    found: list[str] = []
    for current, dirs, files in walk_directories(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            found.append(Path(current, name).relative_to(directory).as_posix())
            if len(found) >= MAX_WALKED_FILES:
                return found
    return found


# -- the skill's name -----------------------------------------------------------------------------


def _skill_name(document: DocumentView, ctx: CompletionContext) -> list[Suggestion]:
    name = skill_of(document.rel_path)
    if name is None and document.path is not None and document.path.parent.name == "evals":
        name = document.path.parent.parent.name  # evals/evals.json outside skills/: its folder
    if not name:
        return []
    return [replacing(ctx, name, VALUE, json_text(name), sort="0", detail="the skill folder's name")]


def _at(root: Node | None, path: JsonPath) -> Node | None:
    return resolve_pointer(root, join_pointer("", *path))
