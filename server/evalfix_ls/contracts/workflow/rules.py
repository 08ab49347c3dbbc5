"""The reference's validation of one normalized case (workflow-fixtures.md §5, §6).

``case_errors`` appends errors in the reference's order — skill, id, input, tags, refs missing,
authority, each ref in union order, trigger, expected, boundary — with the reference's reason codes
and messages. Anchors are evalfix-ls's (§17). Duplicate ids (§7) are added by ``workflow.check``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from ...findings import Finding
from ...json_value import JsonValue
from ...schema import WORKFLOW_SCHEMA, enum
from ...workspace.view import FileSystemView
from ..fix_data import Missing, OneOf, TagSuggestion
from .codes import WORKFLOW_CODES
from .normalize import INPUT_ALIASES, NormalizedCase
from .refs import ref_errors
from .values import Anchor

# The reference's tag pattern /^[a-z0-9][a-z0-9-]*$/ (no flags): fullmatch, so that a trailing
# newline is not accepted the way re.match(...$) would accept it (§9.2).
TAG_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")

MISSING_SKILL = "missing_skill"
MISSING_ID = "missing_id"
MISSING_INPUT = "missing_input"
MISSING_COVERAGE_TAGS = "missing_coverage_tags"
INVALID_COVERAGE_TAG = "invalid_coverage_tag"
MISSING_SOURCE_REFS = "missing_source_refs"
INVALID_AUTHORITY = "invalid_source_ref_authority"
MISSING_EXPECTED_OUTCOME = "missing_expected_outcome"
MISSING_BOUNDARY_EVIDENCE = "missing_boundary_evidence"
DUPLICATE_CASE_ID = "duplicate_case_id"


@cache
def authorities() -> tuple[str, ...]:
    """``source``, ``historical``, ``advisory`` — from the bundled schema."""
    return enum(WORKFLOW_SCHEMA, "SourceRefAuthority")


@cache
def readiness_buckets() -> tuple[str, ...]:
    """``trigger``, ``boundary`` (required), ``failure``, ``expected`` (optional)."""
    return enum(WORKFLOW_SCHEMA, "ReadinessBucket")


def is_valid_tag(tag: str) -> bool:
    return TAG_PATTERN.fullmatch(tag) is not None


def error(code: str, message: str, anchor: Anchor, case: NormalizedCase, **data: JsonValue) -> Finding:
    return Finding(
        code,
        WORKFLOW_CODES[code],
        message,
        anchor.pointer,
        anchor.start,
        anchor.end,
        case=case.index,
        data=data or None,
    )


def case_errors(
    case: NormalizedCase,
    root: Path | None,
    fs: FileSystemView,
    *,
    extra_tag: str | None = None,
) -> list[Finding]:
    """``validateNormalizedCase``. ``extra_tag`` adds a bucket tag as the readiness report's filename
    fallback does (§11.1)."""
    return list(_case_errors(case, root, fs, extra_tag))


def _case_errors(
    case: NormalizedCase, root: Path | None, fs: FileSystemView, extra_tag: str | None
) -> Iterator[Finding]:
    if not case.skill.valid:
        yield error(MISSING_SKILL, "case skill must be a non-empty string", case.skill.anchor, case)
    if not case.id:  # only an empty slug of `name` gets here (§4.4)
        yield error(
            MISSING_ID,
            "case id must be a non-empty string (the id derived from name is empty)",
            case.id_anchor,
            case,
            **Missing("id").fields(),
        )
    if not case.input:
        yield error(
            MISSING_INPUT,
            "case input must be a non-empty string (none of " + ", ".join(INPUT_ALIASES) + " is one)",
            case.input_anchor,
            case,
            **Missing("input").fields(),
        )
    tags = case.tag_values
    if extra_tag is not None and extra_tag not in tags:
        tags = [*tags, extra_tag]
    if not tags:
        yield error(
            MISSING_COVERAGE_TAGS,
            "case coverage_tags must be a non-empty array",
            case.tags_anchor,
            case,
            **Missing("coverage_tags").fields(),
            **OneOf(readiness_buckets()).fields(),
        )
    else:
        for tag in case.coverage_tags:
            if not is_valid_tag(tag.value):
                yield error(
                    INVALID_COVERAGE_TAG,
                    f"invalid coverage tag: {tag.value}",
                    tag.anchor,
                    case,
                    **TagSuggestion(tag.value, _tag_suggestion(tag.value)).fields(),
                )
    if not case.source_refs:
        yield error(
            MISSING_SOURCE_REFS,
            "case source_refs must be a non-empty array",
            case.refs_anchor,
            case,
            **Missing("source_refs").fields(),
        )
    authority = case.authority
    authority_valid = authority.is_string and authority.value in authorities()
    # Only a written authority can be invalid (a defaulted one is "source"): it has an anchor.
    if not authority_valid and authority.written is not None:
        yield error(
            INVALID_AUTHORITY,
            f"invalid source_ref_authority: {authority.value}",
            authority.written[1],
            case,
            **OneOf(authorities()).fields(),
        )
    for ref in case.source_refs:
        for code, message in ref_errors(ref.value, authority.is_source, root, fs):
            yield error(code, message, ref.anchor, case, ref=ref.value)
    outcome = case.outcome
    if not outcome.non_empty:
        for bucket in ("trigger", "expected"):
            if bucket in tags:
                yield error(
                    MISSING_EXPECTED_OUTCOME,
                    f"{bucket} cases require expected_outcome",
                    outcome.anchor,
                    case,
                    **Missing("expected_outcome").fields(),
                )
        if "boundary" in tags and not case.boundary_note and not case.forbidden_signals:
            yield error(
                MISSING_BOUNDARY_EVIDENCE,
                "boundary cases require expected_outcome, boundary_note, or forbidden_signals",
                case.missing_anchor,
                case,
                **Missing("boundary_note").fields(),
            )


def _tag_suggestion(tag: str) -> str | None:
    """A well-formed spelling of a malformed tag (lowercase, runs of other characters → ``-``),
    for the quick fix; None when nothing sensible remains."""
    candidate = re.sub(r"[^a-z0-9]+", "-", tag.strip().lower()).strip("-")
    return candidate if candidate and is_valid_tag(candidate) else None
