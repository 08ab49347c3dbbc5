"""Case ids: references, highlights and rename.

A case id's references are its other occurrences: duplicates in the same file, and for workflow
fixtures the cases of sibling fixture files of the same skill with the same ``skill:id`` key (the
cross-file duplicate rule's notion of "the same id"). Rename works within a file where the id is
unique; ``prepare_rename`` refuses otherwise, with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..contracts.detection import UNKNOWN, WORKFLOW
from ..js.values import js_id_string
from ..parser.tree import Node, path_at
from ..parser.values import string_of
from .cases import case_array, case_origins, id_node_of, iter_cases, path_strings
from .document import DocumentView
from .workspace_facts import WorkspaceFacts, skill_of


@dataclass(frozen=True, slots=True)
class Site:
    rel_path: str | None  # None: this document
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class RenameTarget:
    start: int  # the id's text inside the quotes
    end: int
    placeholder: str


class RenameRefused(Exception):
    """Why an id cannot be renamed here (shown to the user)."""


@dataclass(frozen=True, slots=True)
class CaseId:
    """A case's id where it is written."""

    node: Node  # the string or number
    text: str  # as the references compare it (``String(id)`` for numbers)


def case_id_at(document: DocumentView, offset: int) -> CaseId | None:
    """The id of the case whose id value contains ``offset``: found down the path to ``offset``
    (a cursor move on a 10 MB suite reads one case, not each one up to the cursor)."""
    found = case_array(document.kind, document.root)
    if found is None:
        return None
    array = found[1]
    steps, node, _member = path_at(document.root, offset)
    for depth, step in enumerate(steps[:-1]):
        if step.container is not array:
            continue
        case = steps[depth + 1].container  # the item the path went into
        if node is None or id_node_of(document.kind, case) is not node or len(steps) != depth + 2:
            return None
        text = js_id_string(node)
        return CaseId(node, text) if text is not None else None
    return None


def highlights(document: DocumentView, offset: int) -> list[Site]:
    """Every id node of this document equal to the one at ``offset`` (the cases read through
    their origins: none that an edit moved is built)."""
    found = case_id_at(document, offset)
    if found is None:
        return []
    sites = []
    for _index, origin, delta in case_origins(document.kind, document.root):
        node = id_node_of(document.kind, origin)
        if node is not None and js_id_string(node) == found.text:
            sites.append(Site(None, node.start + delta, node.end + delta))
    return sites


def references(
    document: DocumentView, facts: WorkspaceFacts, offset: int, include_declaration: bool = True
) -> list[Site]:
    found = case_id_at(document, offset)
    if found is None:
        return []
    sites = [s for s in highlights(document, offset) if include_declaration or s.start != found.node.start]
    if document.kind == WORKFLOW:
        sites.extend(_sibling_sites(document, facts, found.text))
    return sites


def _sibling_sites(document: DocumentView, facts: WorkspaceFacts, case_id: str) -> list[Site]:
    skill = skill_of(document.rel_path)
    if skill is None:
        return []
    sites = []
    for rel_path in facts.workflow_files(skill):
        if rel_path == document.rel_path:
            continue
        for start, end in facts.id_sites(rel_path, case_id):
            sites.append(Site(rel_path, start, end))
    return sites


def prepare_rename(document: DocumentView, facts: WorkspaceFacts, offset: int) -> RenameTarget:
    found = case_id_at(document, offset)
    if found is None:
        raise RenameRefused(_not_an_id(document, offset))
    node, value = found.node, string_of(found.node)
    if value is None:
        raise RenameRefused("numeric ids are not renamed: write the id as a string first")
    if len(highlights(document, offset)) > 1:
        raise RenameRefused(f"the id {value!r} is used by more than one case of this file")
    if document.kind == WORKFLOW and _sibling_sites(document, facts, value):
        raise RenameRefused(f"the id {value!r} is also used in another fixture file of this skill")
    if document.text[node.start + 1 : node.end - 1] != value:
        raise RenameRefused("the id contains escapes; edit it by hand")
    return RenameTarget(node.start + 1, node.end - 1, value)


def rename(document: DocumentView, facts: WorkspaceFacts, offset: int, new_id: str) -> tuple[int, int, str]:
    """(start, end, replacement) of the one edit that renames the id under ``offset``."""
    target = prepare_rename(document, facts, offset)
    if not new_id.strip():
        raise RenameRefused("a case id cannot be empty")
    taken = {c.id for c in iter_cases(document.kind, document.root)}
    if document.kind == WORKFLOW:
        skill = skill_of(document.rel_path)
        for rel_path in facts.workflow_files(skill) if skill else ():
            if rel_path != document.rel_path:
                taken.update(facts.case_ids(rel_path))
    if new_id in taken:
        raise RenameRefused(f"the id {new_id!r} is already used")
    return target.start - 1, target.end + 1, json.dumps(new_id, ensure_ascii=False)


def _not_an_id(document: DocumentView, offset: int) -> str:
    """Why the text under ``offset`` is not renamed here, in words that say what to do instead."""
    if document.kind == UNKNOWN:
        return "evalfix-ls does not check this file (no fixture contract applies): nothing to rename"
    _steps, node, member = path_at(document.root, offset)
    if node is not None and member is None and _is_path(document, node):
        return (
            "this is a path: rename or move the file itself (in the file explorer) and every "
            "fixture that cites it is updated"
        )
    return "only a case id can be renamed: place the cursor on the value of a case's id"


def _is_path(document: DocumentView, node: Node) -> bool:
    """Whether ``node`` is a string naming a file: renamed by moving the file, never as text."""
    return any(path.node is node for path in path_strings(document.kind, document.root))
