"""Hover: the schema's documentation of a member and of an enum value, and what only the analysis
knows — a workflow case's effective values after inheritance and the readiness buckets it counts
for, whether a referenced file exists (with its first lines), what a regex's flags do and whether
JavaScript accepts it. Every hover has the range of the node it describes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..contracts.detection import EVALS, UNKNOWN, WORKFLOW
from ..contracts.workflow.normalize import NormalizedCase
from ..contracts.workflow.readiness import counted_buckets
from ..contracts.workflow.rules import MISSING_COVERAGE_TAGS, case_errors
from ..js.regex import check_regex
from ..parser.tree import ARRAY, OBJECT, STRING, Node, join_pointer, resolve_pointer
from ..parser.values import string_of
from ..text.line_index import text_lines
from .cursor import Cursor, JsonPath, locate
from .document import DocumentView
from .markdown_code import code
from .schema_nodes import schema_at, schema_for, table
from .snippets import json_text
from .workspace_facts import WorkspaceFacts

PREVIEW_LINES = 8
PREVIEW_CHARS = 600
PREVIEW_READ_BYTES = 4096
_CASE_ARRAYS = ("cases", "examples")


@dataclass(frozen=True, slots=True)
class HoverInfo:
    markdown: str
    start: int
    end: int


def hover(document: DocumentView, offset: int, facts: WorkspaceFacts | None = None) -> HoverInfo | None:
    """The hover at ``offset``, or None where there is nothing to say. On the root object itself
    (its brackets, the space between its members): which contract applies and why, or why the
    file is not checked (``document_info``)."""
    if document.root is None:
        return None
    facts = facts or WorkspaceFacts.empty()
    cursor = locate(document.root, offset)
    root = document.root
    if cursor.node is root and not cursor.on_key and root.kind in (OBJECT, ARRAY):
        from .document_info import document_info

        return HoverInfo(document_info(document, facts).markdown(), root.start, root.start + 1)
    if document.kind == UNKNOWN:
        return None
    if document.kind == WORKFLOW and _on_case(cursor):
        case_hover = _case(document, cursor, facts)
        if case_hover is not None:
            return case_hover
    if cursor.on_key and cursor.member is not None:
        member = cursor.member
        text = _member_doc(document, cursor.path)
        return HoverInfo(text, member.key_start, member.key_end) if text else None
    node = cursor.node
    if node is None or node.kind == OBJECT or (node.kind != STRING and node.items is not None):
        return None
    parts = [_value_doc(document, cursor.path, node), *_analysis_notes(document, cursor.path, node, facts)]
    text = "\n\n".join(part for part in parts if part)
    return HoverInfo(text, node.start, node.end) if text else None


# -- schema documentation -----------------------------------------------------------------------


def _member_doc(document: DocumentView, path: JsonPath) -> str | None:
    schema = schema_at(document.kind, document.root, path)
    description = schema.description()
    if not description or not path or not isinstance(path[-1], str):
        return description
    return f"**{code(path[-1])}**\n\n{description}"


def _value_doc(document: DocumentView, path: JsonPath, node: Node) -> str | None:
    """The member's documentation and, on an enum value, what that value means."""
    schema = schema_at(document.kind, document.root, path)
    meaning = schema.enum_descriptions().get(node.value) if node.kind != "object" else None
    member = _member_doc(document, path)
    if meaning and node.value in schema.enum():
        return f"`{json_text(node.value)}`: {meaning}" + (f"\n\n---\n\n{member}" if member else "")
    return member


def _analysis_notes(document: DocumentView, path: JsonPath, node: Node, facts: WorkspaceFacts) -> list[str]:
    value = string_of(node)
    if value is None:
        return []
    if document.kind == WORKFLOW and _is_ref(path):
        return [_file_note(facts, facts.resolve(value.split("#", 1)[0]) if value else None)]
    if document.kind == EVALS and _is_seeded(path) and document.path is not None and value:
        return [_file_note(facts, facts.resolve(value, document.path.parent))]
    if document.kind == EVALS and path and path[-1] in ("pattern", "flags"):
        return [_regex_note(document, path)]
    return []


# -- files ------------------------------------------------------------------------------------


def _is_ref(path: JsonPath) -> bool:
    if path and isinstance(path[-1], int):
        path = path[:-1]
    return path == ("source_refs",) or (
        len(path) == 3 and path[0] in _CASE_ARRAYS and path[2] == "source_refs"
    )


def _is_seeded(path: JsonPath) -> bool:
    if len(path) < 4 or path[0] != "evals":
        return False
    rest = path[2:]
    return (rest[0] == "files" and len(rest) == 2) or (rest[:2] == ("setup", "sources") and rest[-1] != "to")


def _file_note(facts: WorkspaceFacts, path: Path | None) -> str:
    if path is None:
        return "The path leaves the repository (or there is no repository to resolve it in)."
    if facts.leaves(path):
        return f"{code(_shown(facts, path))} leads outside the repository (a symbolic link): not looked at."
    if not facts.exists(path):
        return f"{code(_shown(facts, path))} does not exist."
    if facts.is_dir(path):
        entries = ", ".join(code(e.name + ("/" if e.is_dir else "")) for e in facts.list_dir(path)[:12])
        return f"Folder {code(_shown(facts, path) + '/')} exists" + (
            f": {entries}" if entries else " (empty)."
        )
    return f"{code(_shown(facts, path))} exists.\n\n```\n{preview(facts, path)}\n```"


def _shown(facts: WorkspaceFacts, path: Path) -> str:
    try:
        return path.relative_to(facts.repo_root).as_posix() if facts.repo_root else path.name
    except ValueError:
        return path.name


def preview(facts: WorkspaceFacts, path: Path) -> str:
    """The first lines of a file, bounded in lines and characters (never more than a few KiB
    read, a regular file inside the repository only: a FIFO would block the worker); backticks
    broken so the fence holds."""
    head = facts.read_head(path, PREVIEW_READ_BYTES)
    if head is None:
        return "(cannot be read: not a regular file)"
    lines = text_lines(head)[:PREVIEW_LINES]
    text = "\n".join(lines)[:PREVIEW_CHARS]
    return text.replace("```", "`\u200b``")


# -- regular expressions -------------------------------------------------------------------------


def _regex_note(document: DocumentView, path: JsonPath) -> str:
    owner = _at(document.root, path[:-1])
    if owner is None or owner.kind != OBJECT:
        return ""
    pattern, flag_text = string_of(owner.get("pattern")), string_of(owner.get("flags")) or ""
    notes = [_flag_meanings(flag_text)] if flag_text else []
    if pattern is not None:
        verdict = check_regex(pattern, flag_text)
        if verdict.ok:
            notes.append(f"JavaScript accepts `new RegExp(pattern, {json_text(flag_text)})`.")
        else:
            notes.append(f"JavaScript rejects it ({verdict.status}): {verdict.detail}")
    return "\n\n".join(notes)


def _flag_meanings(flags: str) -> str:
    meanings = table(schema_for(EVALS) or {}, "$defs", "RegexFlags", "x-flagDescriptions")
    rows = [
        f"* {code(flag)} — {meanings.get(flag, 'not a JavaScript RegExp flag')}"
        for flag in dict.fromkeys(flags)
    ]
    return "Flags:\n\n" + "\n".join(rows)


# -- workflow cases ------------------------------------------------------------------------------


def _on_case(cursor: Cursor) -> bool:
    path = cursor.path
    if len(path) == 2 and path[0] in _CASE_ARRAYS and isinstance(path[1], int):
        return not cursor.on_key  # inside the case object, between its members
    return len(path) == 3 and path[0] in _CASE_ARRAYS and path[2] == "id"


def _case(document: DocumentView, cursor: Cursor, facts: WorkspaceFacts) -> HoverInfo | None:
    index = cursor.path[1]
    case = next((c for c in document.workflow().cases if c.index == index), None)
    if case is None:
        return None
    node = cursor.node if cursor.path[-1] == "id" and cursor.node is not None else case.node
    if cursor.on_key and cursor.member is not None:
        start, end = cursor.member.key_start, cursor.member.key_end
    else:
        start, end = node.start, node.end
    return HoverInfo(case_summary(case, document, facts), start, end)


def case_summary(case: NormalizedCase, document: DocumentView, facts: WorkspaceFacts) -> str:
    """The case as the normalizer sees it: id, effective tags and refs (inherited marked),
    authority, and the readiness buckets it counts for."""
    lines = [f"**Case {code(case.id)}** (skill {code(case.skill.text)}, id from {case.id_source})", ""]
    tags = ", ".join(code(t.value) + (" (inherited)" if t.inherited else "") for t in case.coverage_tags)
    lines.append(f"* coverage tags: {tags or 'none'}")
    authority = case.authority.value + (" (this case)" if case.authority.from_case else "")
    lines.append(
        f"* source refs, authority {code(authority)}:" if case.source_refs else "* source refs: none"
    )
    for ref in case.source_refs:
        target = facts.resolve(ref.value.split("#", 1)[0]) if ref.value else None
        state = "exists" if target is not None and facts.exists(target) else "missing"
        lines.append(f"  * {code(ref.value)}" + (" (inherited)" if ref.inherited else "") + f" — {state}")
    if document.rel_path is not None and facts.repo_root is not None:  # a path in a repository
        buckets = counted_buckets(case, document.rel_path, facts.repo_root, facts.fs)
        shown = ", ".join(
            f"`{name}`" + (" (file-name fallback)" if "fallback" in basis else "")
            for name, basis in buckets.items()
        )
        lines.append(f"* readiness: counts for {shown}" if shown else _no_bucket(case, facts))
    return "\n".join(lines)


def _no_bucket(case: NormalizedCase, facts: WorkspaceFacts) -> str:
    codes = sorted(
        {error.code for error in case_errors(case, facts.repo_root, facts.fs)} - {MISSING_COVERAGE_TAGS}
    )
    reason = f" (the reference rejects it: {', '.join(f'`{code}`' for code in codes)})" if codes else ""
    return f"* readiness: counts for no bucket{reason}"


def _at(root: Node | None, path: JsonPath) -> Node | None:
    return resolve_pointer(root, join_pointer("", *path))
