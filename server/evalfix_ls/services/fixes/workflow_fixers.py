"""Fixes for workflow eval fixture findings (workflow-fixtures.md §17), and for the JSON-level
findings both contracts share (a duplicate member name)."""

from __future__ import annotations

from ...contracts.fix_data import Missing, OneOf, Rename, RepeatedKey, TagSuggestion
from ...contracts.workflow.normalize import EXTENSION_COPIES, NormalizedCase
from ...contracts.workflow.rules import is_valid_tag, readiness_buckets
from ...js.values import js_number_to_string
from ...parser.tree import OBJECT, STRING, Node
from ...parser.values import number_of, string_of
from .edits import json_text, member_at, remove_member, rename_key, replace_node
from .model import Fix, FixContext, close_values, enum_fixes, fixer, unique_name
from .same_name import same_name_fixes

PLACEHOLDERS = {
    "input": "TODO: the user's request",
    "expected_outcome": "TODO: the expected outcome",
    "boundary_note": "TODO: why this request is out of scope",
}
HISTORICAL = "historical"


def normalized_case(ctx: FixContext) -> NormalizedCase | None:
    normalized = ctx.document.analysis.workflow
    index = ctx.finding.case
    if normalized is None or index is None or index >= len(normalized.cases):
        return None
    return normalized.cases[index]


@fixer("duplicate-key", "duplicate_json_key")
def duplicate_key(ctx: FixContext) -> list[Fix]:
    """Remove an occurrence ``JSON.parse`` discards (the last one wins): it reads the same."""
    repeated = RepeatedKey.read(ctx.data)
    if repeated is None or repeated.last:
        return []
    obj, _ = ctx.parent()  # the pointer names the member; the object holds every occurrence
    if obj is None or obj.kind != OBJECT:
        return []
    member = member_at(obj, ctx.finding.start)
    if member is None or member.value is None:
        return []
    edit = remove_member(ctx.text, obj, member)
    return [ctx.fix(f"Remove the discarded {json_text(member.key)} member", edit, safe=True, preferred=True)]


@fixer("invalid_coverage_tag", "coverage_tag_near_miss")
def coverage_tag(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    written = string_of(node)
    tag = TagSuggestion.read(ctx.data)
    suggestion = tag.suggestion if tag is not None else None
    if node is None or written is None:
        return []
    candidates = [suggestion] if suggestion is not None else []
    candidates += [c for c in close_values(written, _known_tags(ctx)) if is_valid_tag(c) and c != written]
    choices = list(dict.fromkeys(candidates))[:4]
    best = suggestion
    fixes = enum_fixes(ctx, node, choices, best) if choices else []
    return fixes + ctx.remove_element("Remove this tag", safe=False)


def _known_tags(ctx: FixContext) -> list[str]:
    """The readiness buckets and every tag the workspace's fixtures use (the close valid values)."""
    in_use = [use.tag for use in ctx.facts.coverage_tags(exclude_file=ctx.document.rel_path)]
    return [*readiness_buckets(), *in_use]


@fixer("invalid_source_ref_authority")
def authority_value(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    one_of = OneOf.read(ctx.data)
    return enum_fixes(ctx, node, list(one_of.allowed)) if node is not None and one_of is not None else []


@fixer("list_item_dropped")
def dropped_item(ctx: FixContext) -> list[Fix]:
    """The normalizer drops the element anyway: removing it reads the same."""
    return ctx.remove_element("Remove the ignored element", safe=True, preferred=True)


@fixer("authority_defaulted")
def defaulted_authority(ctx: FixContext) -> list[Fix]:
    """A falsy authority counts as absent: removing it reads the same."""
    member = ctx.member()
    obj, _ = ctx.parent()
    if member is None or obj is None:
        return []
    edit = remove_member(ctx.text, obj, member)
    return [ctx.fix("Remove the empty source_ref_authority", edit, safe=True, preferred=True)]


@fixer("legacy_alias_in_canonical")
def legacy_alias(ctx: FixContext) -> list[Fix]:
    """Rename a legacy member to its canonical name — safe when that name is free and the member is
    not also copied into ``extensions`` (renaming ``name``/``intent``/``input_shape`` changes them)."""
    rename = Rename.read(ctx.data)
    obj, _ = ctx.parent()
    if rename is None or rename.key_start is None or obj is None or obj.has(rename.to):
        return []
    new_name = rename.to
    member = member_at(obj, rename.key_start)
    if member is None:
        return []
    if member.key == "name":
        return _id_from_name(ctx, obj)
    safe = member.key not in EXTENSION_COPIES
    return [
        ctx.fix(
            f"Rename {json_text(member.key)} to {json_text(new_name)}",
            rename_key(member, new_name),
            safe=safe,
            preferred=True,
        )
    ]


def _id_from_name(ctx: FixContext, obj: Node) -> list[Fix]:
    """A case identified by its ``name``: write the id the normalizer derives (the slug), keeping
    ``name`` (it is copied into ``extensions``) — the same record, now with a stable id."""
    case = normalized_case(ctx)
    if case is None or case.id_source != "name" or not case.id:
        return []  # an empty slug is missing_id's to fix
    edit = ctx.set_member(obj, "id", case.id)
    return [ctx.fix(f'Add "id": {json_text(case.id)} (the slug of name)', edit, safe=True, preferred=True)]


@fixer("missing_input", "missing_expected_outcome", "missing_boundary_evidence")
def missing_case_value(ctx: FixContext) -> list[Fix]:
    """A required case value: a placeholder for the user to fill in; for an empty outcome that
    shadows a later alias, removing the empty one so the later alias counts."""
    case = normalized_case(ctx)
    if case is None or case.node.kind != OBJECT:
        return []
    missing = Missing.read(ctx.data)
    if missing is None:
        return []
    name = missing.member
    fixes = []
    if name == "expected_outcome":
        fixes.extend(_unshadow(ctx, case))
    present = case.node.get(name)
    number = number_of(present)
    if present is not None and number is not None:  # a number where a string is needed
        fixes.append(ctx.change_to(present, js_number_to_string(number), safe=False, preferred=not fixes))
    fixes.append(
        ctx.fix(
            f'Set "{name}" to a placeholder',
            ctx.set_member(case.node, name, PLACEHOLDERS.get(name, f"TODO: {name}")),
            safe=False,
            preferred=not fixes,
        )
    )
    return fixes


@fixer("outcome_alias_shadowed")
def shadowed_alias(ctx: FixContext) -> list[Fix]:
    case = normalized_case(ctx)
    return _unshadow(ctx, case) if case is not None and case.node.kind == OBJECT else []


def _unshadow(ctx: FixContext, case: NormalizedCase) -> list[Fix]:
    winner = case.outcome.winner
    if winner in (None, "composite") or case.outcome.non_empty:
        return []
    member = case.node.member(winner)
    if member is None:
        return []
    edit = remove_member(ctx.text, case.node, member)
    return [
        ctx.fix(
            f"Remove the empty {json_text(winner)} so the next outcome alias counts",
            edit,
            safe=False,
            preferred=True,
        )
    ]


@fixer("missing_coverage_tags")
def missing_tags(ctx: FixContext) -> list[Fix]:
    case = normalized_case(ctx)
    one_of = OneOf.read(ctx.data)
    allowed = [tag for tag in one_of.allowed if isinstance(tag, str)] if one_of is not None else []
    if case is None or case.node.kind != OBJECT:
        return []
    return [
        ctx.fix(f'Tag the case "{tag}"', ctx.set_member(case.node, "coverage_tags", [tag]), safe=False)
        for tag in allowed
    ]


@fixer("source_ref_not_source_authority", "source_ref_missing", "invalid_source_ref")
def source_ref(ctx: FixContext) -> list[Fix]:
    """A ref the ``source`` authority rejects: the case's authority set to ``historical`` (a case
    member, so other cases keep theirs), a file of the same name for a missing one, or the ref
    removed."""
    fixes = []
    case = normalized_case(ctx)
    if (
        ctx.finding.code == "source_ref_not_source_authority"
        and case is not None
        and case.node.kind == OBJECT
    ):
        edit = ctx.set_member(case.node, "source_ref_authority", HISTORICAL)
        fixes.append(
            ctx.fix('Set the case\'s source_ref_authority to "historical"', edit, safe=False, preferred=True)
        )
    node = ctx.node()
    ref = string_of(node)
    repo_root = ctx.facts.repo_root
    if (
        ctx.finding.code == "source_ref_missing"
        and node is not None
        and ref is not None
        and repo_root is not None
    ):
        path, hash_sign, anchor = ref.partition("#")
        fixes.extend(same_name_fixes(ctx, node, path, repo_root, hash_sign + anchor))
    fixes.extend(ctx.remove_element("Remove this source ref", safe=False))
    array, token = ctx.parent()
    if array is not None and array.kind == OBJECT:  # a scalar string ref: the member goes
        member = array.member(token)
        if member is not None:
            fixes.append(
                ctx.fix("Remove this source ref", remove_member(ctx.text, array, member), safe=False)
            )
    return fixes


@fixer("duplicate_case_id")
def duplicate_case_id(ctx: FixContext) -> list[Fix]:
    case = normalized_case(ctx)
    node = ctx.node()
    if case is None or case.node.kind != OBJECT:
        return []
    taken = _skill_ids(ctx)
    new_id = unique_name(f"{case.id}-2", taken)
    referred = ctx.text.count(json_text(case.id)) > _id_members(ctx, case.id)
    if node is not None and node.kind == STRING and ctx.parent()[1] == "id":
        edit = replace_node(node, new_id)
    else:
        edit = ctx.set_member(case.node, "id", new_id)
    return [ctx.fix(f'Rename this case to "{new_id}"', edit, safe=not referred, preferred=True)]


@fixer("missing_id")
def unsluggable_name(ctx: FixContext) -> list[Fix]:
    case = normalized_case(ctx)
    if case is None or case.node.kind != OBJECT:
        return []
    new_id = unique_name(f"case-{case.index + 1}", _skill_ids(ctx))
    return [
        ctx.fix(
            f'Set "id" to "{new_id}"', ctx.set_member(case.node, "id", new_id), safe=False, preferred=True
        )
    ]


def _skill_ids(ctx: FixContext) -> set[str]:
    """Every case id of the document and of the other fixture files of its skill."""
    normalized = ctx.document.analysis.workflow
    taken = {case.id for case in normalized.cases} if normalized is not None else set()
    rel_path = ctx.document.rel_path
    skill = rel_path.split("/")[1] if rel_path and rel_path.startswith("skills/") else None
    for other in ctx.facts.workflow_files(skill) if skill else ():
        if other != rel_path:
            taken.update(ctx.facts.case_ids(other))
    return taken


def _id_members(ctx: FixContext, value: str) -> int:
    normalized = ctx.document.analysis.workflow
    cases = normalized.cases if normalized is not None else ()
    return sum(
        1
        for case in cases
        if string_of(case.member("id")) == value or string_of(case.member("name")) == value
    )
