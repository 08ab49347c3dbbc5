"""Inlay hints and code lenses: what the file does not say but the tools will read.

* Inlay hints on workflow cases: the coverage tags, source refs and authority a case inherits
  from the top level (only what it does not state itself); on an evals.json seeded ``setup``, the
  defaults the loader applies (``mountMode: preserve-path``, each object source's ``to`` =
  ``from``). Only the requested range is computed.
* Code lenses: on a workflow fixture, its skill's readiness (bucket counts and status, as
  ``--readiness`` computes it, across every fixture file of the skill); on each evals.json case,
  the command that runs it alone.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from ..contracts.detection import EVALS, WORKFLOW
from ..contracts.workflow.normalize import NormalizedCase, NormalizedFile
from ..contracts.workflow.readiness import REQUIRED_BUCKETS, skill_dir_of, skill_readiness
from ..js.values import js_id_string
from ..parser.tree import OBJECT, Node
from ..parser.values import string_of
from .cases import case_origins, case_path_strings, id_node_of
from .commands import CASE_COMMAND
from .document import DocumentView
from .workspace_facts import WorkspaceFacts


@dataclass(frozen=True, slots=True)
class InlayHint:
    offset: int
    label: str
    tooltip: str = ""


@dataclass(frozen=True, slots=True)
class CodeLens:
    start: int
    end: int
    title: str
    command: str | None = None
    arguments: tuple[str, ...] = ()


def inlay_hints(document: DocumentView, start: int, end: int) -> list[InlayHint]:
    if document.kind == WORKFLOW:
        return _workflow_hints(document.workflow(), start, end)
    if document.kind == EVALS:
        return _setup_hints(document, start, end)
    return []


def _workflow_hints(normalized: NormalizedFile, start: int, end: int) -> list[InlayHint]:
    out = []
    for case in normalized.cases:
        node = case.node
        if node.end < start or node.start > end or node.kind != OBJECT:
            continue
        label = _inherited_label(case)
        if label:
            out.append(InlayHint(node.start + 1, label, "inherited from the top level of this file"))
    return out


def _inherited_label(case: NormalizedCase) -> str:
    parts = []
    tags = [t.value for t in case.coverage_tags if t.inherited]
    if tags and not any(not t.inherited for t in case.coverage_tags):
        parts.append("coverage_tags: " + json.dumps(tags, ensure_ascii=False))
    refs = [r.value for r in case.source_refs if r.inherited]
    if refs and not any(not r.inherited for r in case.source_refs):
        parts.append("source_refs: " + json.dumps(refs, ensure_ascii=False))
    authority = case.authority
    if not authority.from_case:
        inherited = authority.node is not None
        parts.append(f"source_ref_authority: {authority.value}" + ("" if inherited else " (default)"))
    return " · ".join(parts)


def _setup_hints(document: DocumentView, start: int, end: int) -> list[InlayHint]:
    out: list[InlayHint] = []
    for _index, origin, delta in case_origins(EVALS, document.root):  # (moved cases not built)
        if origin.end + delta < start or origin.start + delta > end or origin.kind != OBJECT:
            continue
        out += (
            InlayHint(hint.offset + delta, hint.label, hint.tooltip) for hint in _case_setup_hints(origin)
        )
    return out


def _case_setup_hints(node: Node) -> Iterator[InlayHint]:
    setup = node.get("setup")
    if setup is None or setup.kind != OBJECT or string_of(setup.get("kind")) != "seeded":
        return
    if not setup.has("mountMode"):
        yield InlayHint(setup.end - 1, ' "mountMode": "preserve-path"', "the loader's default")
    for source in case_path_strings(EVALS, node):
        entry = source.entry
        if source.field == "sources" and entry.kind == OBJECT and not entry.has("to"):
            yield InlayHint(
                source.node.end,
                f' "to": {json.dumps(source.value, ensure_ascii=False)}',
                "to defaults to from",
            )


def code_lenses(document: DocumentView, facts: WorkspaceFacts) -> list[CodeLens]:
    root = document.root
    if root is None or root.kind != OBJECT:
        return []
    if document.kind == WORKFLOW:
        lens = _readiness_lens(document, facts)
        return [lens] if lens is not None else []
    if document.kind == EVALS:
        return _case_lenses(document)
    return []


def _readiness_lens(document: DocumentView, facts: WorkspaceFacts) -> CodeLens | None:
    title = readiness_line(document, facts)
    root = document.root
    if title is None or root is None:
        return None
    return CodeLens(root.start, root.start + 1, title)


def readiness_line(document: DocumentView, facts: WorkspaceFacts) -> str | None:
    """One line: the readiness of the workflow fixture's skill directory (§11.1), or None."""
    skill_dir = skill_dir_of(document.rel_path) if document.rel_path else None
    index = facts.workflow_index
    if skill_dir is None or index is None or facts.repo_root is None:
        return None
    report = skill_readiness(index, skill_dir, facts.repo_root, facts.fs)
    counts = " · ".join(f"{name} {len(bucket.case_ids)}" for name, bucket in report.buckets.items())
    missing = [name for name in REQUIRED_BUCKETS if not report.buckets[name].present]
    status = report.readiness + (f" (missing {', '.join(missing)})" if missing and report.cases else "")
    return f"readiness of {skill_dir}: {status} — {counts} ({len(report.files)} files, {report.cases} cases)"


def _case_lenses(document: DocumentView) -> list[CodeLens]:
    if document.path is None:
        return []
    skill_dir = str(document.path.parent.parent)
    out = []
    for _index, origin, delta in case_origins(EVALS, document.root):  # (moved cases not built)
        case_id = js_id_string(id_node_of(EVALS, origin))
        if case_id is None or case_id == "":
            continue
        start = origin.start + delta
        out.append(CodeLens(start, start + 1, f"▶ run {case_id} alone", CASE_COMMAND, (skill_dir, case_id)))
    return out


def case_command_line(skill_dir: str, case_id: str) -> str:
    """``arc-skill-eval run <skill dir> --case <id>``, quoted for a POSIX shell."""
    return f"arc-skill-eval run {shlex.quote(skill_dir)} --case {shlex.quote(case_id)}"
