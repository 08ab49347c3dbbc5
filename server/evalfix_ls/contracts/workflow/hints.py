"""Warnings and hints beyond the reference (workflow-fixtures.md §14). Never errors.

Each is emitted once per anchor node: a top-level value that every case inherits gets one hint
(``case`` None), not one per case — only the reference's errors repeat per case (parity counts).
``duplicate_json_key`` and ``file_too_large`` come from the pipeline (``analysis.py``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ...findings import Finding, Related
from ...js.values import js_string, js_trim, js_truthy
from ...parser.tree import ARRAY, BOOLEAN, NUMBER, OBJECT, STRING, Node, join_pointer
from ...parser.values import items_of, string_of
from ...workspace.view import FileSystemView
from ..fix_data import Rename, TagSuggestion
from .hint_collector import Hints
from .normalize import (
    CASE_LIST_MEMBERS,
    COMPOSITE_MEMBERS,
    COMPOSITE_STARTERS,
    DEFAULT_AUTHORITY,
    OUTCOME_ALIASES,
    TOP_LIST_MEMBERS,
    NormalizedCase,
    NormalizedFile,
)
from .ref_hints import historical_without_anchor, ref_hints
from .rules import is_valid_tag, readiness_buckets
from .values import (
    Located,
    anchor_at,
    is_non_empty_outcome,
    is_non_empty_string,
    non_empty_text,
    string_array,
)

# Members that feed a validated field when written on the case, and count for nothing inside
# ``extensions`` (§14, extensions_field_ignored).
FIELDS_IGNORED_IN_EXTENSIONS = (
    "id",
    "name",
    "input",
    "user_intent",
    "input_shape",
    "intent",
    *OUTCOME_ALIASES,
    *COMPOSITE_MEMBERS,
    "coverage_tags",
    "source_refs",
    "source_ref_authority",
    "boundary_note",
    "forbidden_signals",
    "negative_signal",
)
LEGACY_CASE_MEMBERS = {
    "user_intent": "input",
    "input_shape": "input",
    "intent": "input",
    "expected": "expected_outcome",
    "expected_posture": "expected_outcome",
    "expected_signal": "expected_outcome",
    **dict.fromkeys(COMPOSITE_MEMBERS, "expected_outcome"),
    "negative_signal": "forbidden_signals",
}


def file_hints(nf: NormalizedFile, root: Path | None, fs: FileSystemView) -> list[Finding]:
    hints = Hints()
    top = nf.root
    if top is None or top.kind != OBJECT:
        return []
    _case_array_hints(nf, top, hints)
    _tags_without_cases(nf, top, hints)
    if nf.cases:
        for name in TOP_LIST_MEMBERS:
            _list_shape(top.get(name), "/" + name, None, hints)
        _authority_defaulted(top, "", None, hints)
        _skill_dir_mismatch(nf, hints)
    top_refs = string_array(top.get("source_refs"), "/source_refs")
    for case in nf.cases:
        _case_hints(nf, case, bool(top_refs), root, fs, hints)
    return hints.findings


def _case_array_hints(nf: NormalizedFile, top: Node, hints: Hints) -> None:
    """``top``: the file's root object."""
    cases, examples = top.get("cases"), top.get("examples")
    if nf.case_member == "cases" and examples is not None and items_of(examples):
        hints.add(
            "case_array_shadowed",
            "examples is ignored: cases is an array, so the normalizer reads only cases",
            anchor_at(examples, "/examples"),
            None,
            {"member": "examples", "used": "cases"},
        )
    elif nf.case_member == "examples" and cases is not None:
        hints.add(
            "case_array_shadowed",
            f"cases is ignored: it is {_kind_word(cases)}, not an array, so the normalizer reads examples",
            anchor_at(cases, "/cases"),
            None,
            {"member": "cases", "used": "examples"},
        )
    member = top.member("examples")
    if nf.canonical and nf.case_member == "examples" and member is not None and member.value is not None:
        hints.add(
            "legacy_alias_in_canonical",
            "canonical fixtures name the case array cases; examples is the legacy name",
            anchor_at(member.value, "/examples"),
            None,
            Rename("cases", member.key_start, member.key_end).fields(),
        )


def _tags_without_cases(nf: NormalizedFile, top: Node, hints: Hints) -> None:
    tags = top.get("coverage_tags")
    if tags is not None and nf.case_member is None and string_array(tags, "/coverage_tags"):
        hints.add(
            "tags_without_cases",
            "top-level coverage_tags count for nothing: the file has no cases or examples array, so it "
            "contributes no case to any readiness bucket",
            anchor_at(tags, "/coverage_tags"),
            None,
        )


def _skill_dir_mismatch(nf: NormalizedFile, hints: Hints) -> None:
    skill = nf.skill
    declared = non_empty_text(skill.node) if skill is not None and skill.declared else None
    if skill is None or declared is None or skill.inferred is None:
        return
    if declared != skill.inferred:
        hints.add(
            "skill_dir_mismatch",
            f"skill '{declared}' differs from the directory skills/{skill.inferred}/: its ids "
            f"collide with {declared}'s, while readiness counts its cases under {skill.inferred}",
            skill.anchor,
            None,
            {"directory": skill.inferred},
        )


def _case_hints(
    nf: NormalizedFile,
    case: NormalizedCase,
    file_has_refs: bool,
    root: Path | None,
    fs: FileSystemView,
    hints: Hints,
) -> None:
    element = case.node
    for name in CASE_LIST_MEMBERS:
        _list_shape(case.member(name), join_pointer(case.pointer, name), case.index, hints)
    if element.kind == OBJECT:
        _authority_defaulted(element, case.pointer, case.index, hints)
    _outcome_shadowed(case, hints)
    _authority_override(nf, case, file_has_refs, hints)
    for ref in case.source_refs:
        ref_hints(case, ref, hints, root, fs)
    historical_without_anchor(case, root, fs, hints)
    _id_synthesized(case, hints)
    if nf.canonical:
        _legacy_members(case, hints)
    for tag in case.coverage_tags:
        _near_miss(case, tag, hints)
    _extensions(case, hints)
    _failure_without_expected(case, hints)


def _list_shape(node: Node | None, pointer: str, case: int | None, hints: Hints) -> None:
    """list_item_dropped / list_value_ignored: what ``stringArray`` discards silently."""
    if node is None:
        return
    member = pointer.rsplit("/", 1)[-1]
    if node.kind == ARRAY:
        for index, item in enumerate(items_of(node)):
            if not is_non_empty_string(item):
                hints.add(
                    "list_item_dropped",
                    f"{member} item dropped: the normalizer keeps only non-empty strings, and this is "
                    f"{_kind_word(item)}",
                    anchor_at(item, join_pointer(pointer, index)),
                    _case_of(pointer, case),
                    {"member": member},
                )
    elif node.kind in (NUMBER, BOOLEAN, OBJECT) or _is_blank(node):
        hints.add(
            "list_value_ignored",
            f"{member} is {_kind_word(node)}: the normalizer treats it as an empty list",
            anchor_at(node, pointer),
            _case_of(pointer, case),
            {"member": member},
        )


def _authority_defaulted(container: Node, base: str, case: int | None, hints: Hints) -> None:
    node = container.get("source_ref_authority")
    if node is not None and not js_truthy(node):
        where = "the file's value" if case is not None else "source"
        shown = js_string(node) or '""'
        hints.add(
            "authority_defaulted",
            f"source_ref_authority {shown} is falsy and counts as absent ({where} applies)",
            anchor_at(node, join_pointer(base, "source_ref_authority")),
            case,
        )


def _outcome_shadowed(case: NormalizedCase, hints: Hints) -> None:
    outcome = case.outcome
    if outcome.winner in (None, "composite") or outcome.non_empty:
        return
    later = list(OUTCOME_ALIASES[OUTCOME_ALIASES.index(outcome.winner) + 1 :])
    if any(case.member(name) is not None for name in COMPOSITE_STARTERS):
        later.extend(COMPOSITE_MEMBERS)
    winner_node = outcome.nodes[outcome.winner]
    for name in later:
        node = case.member(name)
        if node is not None and is_non_empty_outcome(node):
            hints.add(
                "outcome_alias_shadowed",
                f"{name} is ignored: {outcome.winner} is present (though empty) and takes precedence",
                anchor_at(node, join_pointer(case.pointer, name)),
                case.index,
                {"member": name, "winner": outcome.winner},
                (Related(f"{outcome.winner} wins here", winner_node.start, winner_node.end),),
            )


def _authority_override(nf: NormalizedFile, case: NormalizedCase, file_has_refs: bool, hints: Hints) -> None:
    authority = case.authority
    if not (authority.from_case and file_has_refs):
        return
    top = nf.top_authority
    file_value = top if js_truthy(top) else None
    if authority.written is None:
        return  # never: a case's own authority is written
    case_value, anchor = authority.written
    if _same_value(case_value, file_value):
        return
    file_word = js_string(file_value) if file_value is not None else DEFAULT_AUTHORITY
    hints.add(
        "authority_overrides_inherited",
        f"this case's source_ref_authority '{authority.value}' replaces the file's '{file_word}' and also "
        "governs the inherited top-level source_refs",
        anchor,
        case.index,
    )


def _same_value(case_value: Node, file_value: Node | None) -> bool:
    if file_value is None:
        return case_value.kind == STRING and case_value.value == DEFAULT_AUTHORITY
    if case_value.kind != file_value.kind:
        return False
    if case_value.kind in (OBJECT, ARRAY):
        return False
    return case_value.value == file_value.value


def _id_synthesized(case: NormalizedCase, hints: Hints) -> None:
    if case.id_source == "id" or not case.id:
        return
    explicit = case.member("id")
    anchor = anchor_at(explicit, join_pointer(case.pointer, "id")) if explicit is not None else case.id_anchor
    origin = "the slug of name" if case.id_source == "name" else "its position"
    hints.add(
        "id_synthesized",
        f"no id: the normalizer uses '{case.id}' ({origin}), which changes when the "
        f"{'name' if case.id_source == 'name' else 'order of cases'} changes",
        anchor,
        case.index,
        {"id": case.id},
    )


def _legacy_members(case: NormalizedCase, hints: Hints) -> None:
    if case.node.kind != OBJECT:
        return
    names = list(LEGACY_CASE_MEMBERS)
    if case.id_source == "name":
        names.insert(0, "name")
    for name in names:
        member = case.node.member(name)
        if member is None or member.value is None:
            continue
        canonical = LEGACY_CASE_MEMBERS.get(name, "id")
        hints.add(
            "legacy_alias_in_canonical",
            f"{name} is a legacy name; canonical fixtures use {canonical}",
            anchor_at(member.value, join_pointer(case.pointer, name)),
            case.index,
            Rename(canonical, member.key_start, member.key_end).fields(),
        )


@cache
def near_bucket(tag: str) -> str | None:
    """The readiness bucket a well-formed tag almost spells (edit distance 1–2), else None."""
    if not is_valid_tag(tag) or tag in readiness_buckets():
        return None
    return next(
        (
            bucket
            for bucket in readiness_buckets()
            if abs(len(tag) - len(bucket)) <= 2 and edit_distance(tag, bucket) <= 2
        ),
        None,
    )


def _near_miss(case: NormalizedCase, tag: Located, hints: Hints) -> None:
    close = near_bucket(tag.value)
    if close is not None:
        hints.add(
            "coverage_tag_near_miss",
            f"coverage tag '{tag.value}' is close to '{close}' but counts for no readiness bucket",
            tag.anchor,
            None if tag.inherited else case.index,
            TagSuggestion(tag.value, close).fields(),
        )


def _extensions(case: NormalizedCase, hints: Hints) -> None:
    node = case.member("extensions")
    if node is None:
        return
    pointer = join_pointer(case.pointer, "extensions")
    if node.kind in (STRING, NUMBER, BOOLEAN, ARRAY):
        hints.add(
            "extensions_not_object",
            f"extensions is {_kind_word(node)}; the normalizer spreads it into an object with odd keys",
            anchor_at(node, pointer),
            case.index,
        )
    elif node.kind == OBJECT:
        for name in FIELDS_IGNORED_IN_EXTENSIONS:
            value = node.get(name)
            if value is not None:
                hints.add(
                    "extensions_field_ignored",
                    f"extensions.{name} counts for nothing: only the case's own {name} is read",
                    anchor_at(value, join_pointer(pointer, name)),
                    case.index,
                    {"member": name},
                )


def _failure_without_expected(case: NormalizedCase, hints: Hints) -> None:
    if not case.has_tag("failure") or case.outcome.non_empty or case.boundary_note or case.forbidden_signals:
        return
    hints.add(
        "failure_without_expected",
        "failure case without expected_outcome, boundary_note or forbidden_signals: the contract says "
        "failure cases should still carry enough local expected fields",
        case.missing_anchor,
        case.index,
    )


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (short strings only)."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def _case_of(pointer: str, case: int | None) -> int | None:
    return case if case is not None and pointer.startswith(("/cases/", "/examples/")) else None


def _is_blank(node: Node) -> bool:
    """A string that JavaScript's ``trim`` empties."""
    text = string_of(node)
    return text is not None and not js_trim(text)


def _kind_word(node: Node) -> str:
    if node.kind == STRING:
        return "a blank string" if _is_blank(node) else "a string"
    return {
        NUMBER: "a number",
        BOOLEAN: "a boolean",
        OBJECT: "an object",
        ARRAY: "an array",
    }.get(node.kind, "null")
