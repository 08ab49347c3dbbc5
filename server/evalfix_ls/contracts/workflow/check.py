"""The workflow eval fixture contract (specs/workflow-fixtures.md).

``check`` normalizes the file as the reference does (``normalize``), reports the
reference's errors per case in its order (``rules``) followed by duplicate ids within the
file and across the repository (§7, through the ``WorkflowIndex`` passed as ``ctx.workspace``), then
evalfix-ls's own warnings and hints (``hints``). The normalized file is returned with them
(``Analysis.workflow``) for readiness, hovers, fixes and navigation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...findings import Finding, Related
from ..detection import is_workflow_path
from .codes import WORKFLOW_CODES
from .hints import file_hints
from .normalize import NormalizedCase, NormalizedFile, normalize_file
from .rules import DUPLICATE_CASE_ID, case_errors

if TYPE_CHECKING:
    from ..context import AnalysisContext

FIXTURE_UNREADABLE = "fixture_unreadable"


def check(ctx: AnalysisContext) -> tuple[NormalizedFile, list[Finding]]:
    """The file as the normalizer reads it, and the findings on it."""
    normalized = normalize_file(ctx.tree.root, ctx.rel_path)
    return normalized, _findings(normalized, ctx)


def _findings(normalized: NormalizedFile, ctx: AnalysisContext) -> list[Finding]:
    if normalized.unreadable is not None:
        anchor = normalized.unreadable
        return [
            Finding(
                FIXTURE_UNREADABLE,
                WORKFLOW_CODES[FIXTURE_UNREADABLE],
                "the reference cannot normalize this file: " + normalized.unreadable_reason,
                anchor.pointer,
                anchor.start,
                anchor.end,
            )
        ]
    findings: list[Finding] = []
    duplicates = _DuplicateIds(ctx)
    for case in normalized.cases:
        findings.extend(case_errors(case, ctx.repo_root, ctx.fs))
        duplicate = duplicates.check(case)
        if duplicate is not None:
            findings.append(duplicate)
    findings.extend(file_hints(normalized, ctx.repo_root, ctx.fs))
    return findings


class _DuplicateIds:
    """``validateNormalizedCases``' id map for one file: first the ids of every fixture file that
    sorts before this one (when a workspace index is available and the file is a discovered
    fixture), then the cases of this file in order."""

    def __init__(self, ctx: AnalysisContext) -> None:
        rel_path = self.rel_path = ctx.rel_path
        index = ctx.workspace
        # The index and this file's path, when the file is a discovered fixture with an index.
        self.cross_file = (
            (index, rel_path)
            if index is not None and rel_path is not None and is_workflow_path(rel_path)
            else None
        )
        self.seen: dict[str, NormalizedCase] = {}

    def check(self, case: NormalizedCase) -> Finding | None:
        key = case.key
        earlier = None
        if self.cross_file is not None:
            index, rel_path = self.cross_file
            earlier = index.earlier_site(rel_path, key)
        if earlier is not None:
            related = Related(f"first occurrence of {key}", earlier.start, earlier.end, earlier.path)
            return _duplicate(case, earlier.path, earlier.case, related)
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = case
            return None
        related = Related(f"first occurrence of {key}", first.id_anchor.start, first.id_anchor.end)
        return _duplicate(case, self.rel_path, first.index, related)


def _duplicate(
    case: NormalizedCase, previous_file: str | None, previous_case: int, related: Related
) -> Finding:
    """``duplicate case id for <skill>: <id>``, naming the reference's ``previous_source_file``."""
    anchor = case.id_anchor
    return Finding(
        DUPLICATE_CASE_ID,
        WORKFLOW_CODES[DUPLICATE_CASE_ID],
        f"duplicate case id for {case.skill.text}: {case.id} "
        f"(previous_source_file: {previous_file or 'this file'}, case {previous_case})",
        anchor.pointer,
        anchor.start,
        anchor.end,
        case=case.index,
        data={"key": case.key, "previous_source_file": previous_file, "previous_case": previous_case},
        related=(related,),
    )
