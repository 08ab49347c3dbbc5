"""Normalization of workflow eval fixtures, as the reference normalizer does it (workflow-fixtures.md §4).

The reference (``eval-fixture-normalizer.js``) turns each element of the chosen case array into a
flat record and forgets where each value came from. This port computes the same record and keeps,
for every value, the JSON node (and pointer) it came from, so that findings, hovers and navigation
can point at it. Nothing here reports findings: ``rules`` validates, ``hints``
comments.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ...js.values import js_string, js_trim, js_truthy
from ...json_value import JsonValue
from ...parser.tree import ARRAY, NULL, OBJECT, STRING, Node, join_pointer
from ...parser.values import items_of, props_of, string_of
from ..detection import CANONICAL_SCHEMA
from .values import (
    Anchor,
    Located,
    anchor_at,
    anchor_missing,
    is_non_empty_outcome,
    is_non_empty_string,
    js_string_throws,
    non_empty_text,
    slugify,
    string_array,
    to_python,
    unique,
)

INPUT_ALIASES = ("input", "user_intent", "input_shape", "intent")
OUTCOME_ALIASES = ("expected_outcome", "expected", "expected_posture", "expected_signal")
COMPOSITE_STARTERS = ("expected_decision", "expected_failure", "expected_output")
COMPOSITE_MEMBERS = (*COMPOSITE_STARTERS, "expected_next_action")
# Case members the reference copies over ``extensions`` (§4.8), in its order.
EXTENSION_COPIES = (
    "name",
    "context",
    "context_snippets",
    "source_note",
    "intent",
    "input_shape",
    "public_workflow_required",
    "expected_entrypoint",
    "graphify_required",
    "artifact_expected",
    "dispatch_decision",
    "fallback_reason",
)
# Members whose value goes through ``stringArray`` (§4.3, §4.7).
TOP_LIST_MEMBERS = ("coverage_tags", "source_refs")
CASE_LIST_MEMBERS = ("coverage_tags", "source_refs", "forbidden_signals", "negative_signal")
DEFAULT_AUTHORITY = "source"
_SKILL_FROM_PATH = re.compile(r"^skills/([^/]+)/")
# A case's member by name (None when absent or when the case is not an object).
MemberOf = Callable[[str], "Node | None"]


def infer_skill(rel_path: str | None) -> str | None:
    match = _SKILL_FROM_PATH.match(rel_path) if rel_path else None
    return match.group(1) if match else None


@dataclass(frozen=True, slots=True)
class Skill:
    """``payload.skill || inferSkillId(path)`` (§4.2), shared by every case of a file."""

    node: Node | None  # the top-level ``skill`` value when the member exists
    inferred: str | None  # the directory name after ``skills/`` (None outside that layout)
    anchor: Anchor  # ``/skill`` when the member exists, else the root

    @property
    def declared(self) -> bool:
        return js_truthy(self.node)

    @property
    def value(self) -> str | None:
        """The effective skill when it is a string (None for a non-string or no skill at all)."""
        if self.declared:
            return string_of(self.node)
        return self.inferred

    @property
    def valid(self) -> bool:
        if self.declared:
            return is_non_empty_string(self.node)
        return self.inferred is not None and js_trim(self.inferred) != ""

    @property
    def text(self) -> str:
        """``String(skill)`` as the duplicate key and message print it (``null`` when unknown)."""
        if self.declared:
            return js_string(self.node)
        return self.inferred if self.inferred is not None else "null"


@dataclass(frozen=True, slots=True)
class Authority:
    """``entry.source_ref_authority || payload.source_ref_authority || "source"`` (§4.3)."""

    # The effective value's node and where it is written (the case's member or the file's); None
    # when defaulted to "source" — one field, so a written authority always has its anchor.
    written: tuple[Node, Anchor] | None
    from_case: bool

    @property
    def node(self) -> Node | None:
        """The written value (None when defaulted)."""
        return None if self.written is None else self.written[0]

    def python_value(self) -> JsonValue:
        """The effective value as plain Python (``"source"`` when defaulted)."""
        return DEFAULT_AUTHORITY if self.written is None else to_python(self.written[0])

    @property
    def value(self) -> str:
        """``String(authority)`` (the text of the reference's message)."""
        return DEFAULT_AUTHORITY if self.written is None else js_string(self.written[0])

    @property
    def is_string(self) -> bool:
        return self.written is None or self.written[0].kind == STRING

    @property
    def is_source(self) -> bool:
        """The effective authority is ``source`` (written or defaulted): refs must exist."""
        return self.is_string and self.value == "source"


@dataclass(slots=True)
class Outcome:
    """``normalizeExpectedOutcome`` (§4.6): the first *present* alias wins, even when empty."""

    winner: str | None  # an alias name, "composite", or None (no outcome)
    nodes: dict[str, Node]  # the member(s) that make up the outcome, by name
    anchor: Anchor  # the winning member (for the composite: its first present starter), else C
    non_empty: bool

    def value(self) -> JsonValue:
        if self.winner is None:
            return None
        if self.winner == "composite":
            return {name: to_python(node) for name, node in self.nodes.items()}
        return to_python(self.nodes[self.winner])


@dataclass(slots=True)
class NormalizedCase:
    """One normalized record (§4.9) plus where each of its values came from."""

    index: int
    pointer: str  # C: /cases/i or /examples/i
    node: Node  # the case element (any JSON value; non-objects behave like {})
    skill: Skill
    id: str
    id_source: str  # "id" (explicit), "name" (slug of name) or "position" (case-N)
    id_anchor: Anchor  # C/id, C/name or C
    input: str
    input_anchor: Anchor  # the first present alias, else C (where missing_input points)
    input_from: Anchor | None  # the alias whose value became ``input`` (None when it is "")
    outcome: Outcome
    coverage_tags: list[Located]
    tags_anchor: Anchor  # C/coverage_tags, /coverage_tags or C
    source_refs: list[Located]
    refs_anchor: Anchor
    authority: Authority
    boundary_note: str
    boundary_note_from: Anchor | None
    forbidden_signals: list[Located]
    source_file: str | None
    source_schema_version: JsonValue
    normalized_from: str
    missing_anchor: Anchor  # C, for "no such member" findings

    @property
    def tag_values(self) -> list[str]:
        return [tag.value for tag in self.coverage_tags]

    def has_tag(self, tag: str) -> bool:
        return any(item.value == tag for item in self.coverage_tags)

    @property
    def key(self) -> str:
        """The reference's duplicate key `` `${skill}:${id}` ``."""
        return f"{self.skill.text}:{self.id}"

    def member(self, name: str) -> Node | None:
        return self.node.get(name) if self.node.kind == OBJECT else None

    def record(self) -> dict[str, JsonValue]:
        """The reference's normalized record, as plain Python values (for hovers and reports)."""
        return {
            "schema_version": CANONICAL_SCHEMA,
            "skill": to_python(self.skill.node) if self.skill.declared else self.skill.inferred,
            "id": self.id,
            "input": self.input,
            "expected_outcome": self.outcome.value(),
            "coverage_tags": self.tag_values,
            "source_refs": [ref.value for ref in self.source_refs],
            "source_ref_authority": self.authority.python_value(),
            "boundary_note": self.boundary_note,
            "forbidden_signals": [signal.value for signal in self.forbidden_signals],
            "source_file": self.source_file,
            "source_schema_version": self.source_schema_version,
            "normalized_from": self.normalized_from,
            "coverage_basis": "declared_coverage_tags" if self.coverage_tags else "missing_coverage_tags",
            "extensions": self.extensions(),
        }

    def extensions(self) -> dict[str, JsonValue]:
        """``{...(entry.extensions || {})}`` then the copied members (§4.8)."""
        out: dict[str, JsonValue] = {}
        ext = self.member("extensions")
        if ext is not None and js_truthy(ext):
            text = string_of(ext)
            if ext.kind == OBJECT:
                out.update({name: to_python(member.value) for name, member in props_of(ext).items()})
            elif text is not None:  # spreading a string gives its UTF-16 units by index
                units = text.encode("utf-16-le", "surrogatepass")
                out.update(
                    {
                        str(i): units[2 * i : 2 * i + 2].decode("utf-16-le", "surrogatepass")
                        for i in range(len(units) // 2)
                    }
                )
            elif ext.kind == ARRAY:
                out.update({str(i): to_python(item) for i, item in enumerate(items_of(ext))})
        for name in EXTENSION_COPIES:
            node = self.member(name)
            if node is not None:
                out[name] = to_python(node)
        return out


@dataclass(slots=True)
class NormalizedFile:
    """What the reference makes of one file: its cases, or the reason it would throw."""

    rel_path: str | None
    root: Node | None
    case_member: str | None  # "cases", "examples" or None (no case array: zero cases)
    cases: list[NormalizedCase] = field(default_factory=list)
    skill: Skill | None = None
    canonical: bool = False
    # The reference throws on this file (null root, null case element, a value String() cannot
    # convert): evalfix-ls reports one fixture_unreadable here and nothing else (§8).
    unreadable: Anchor | None = None
    unreadable_reason: str = ""

    @property
    def top_authority(self) -> Node | None:
        root = self.root
        return root.get("source_ref_authority") if root is not None and root.kind == OBJECT else None


def normalize_file(root: Node | None, rel_path: str | None) -> NormalizedFile:
    """``normalizeFixturePayload(JSON.parse(text), {filePath})`` without a context skill id (as the
    contract test calls it; the readiness report's ``skillId`` is the directory name, which
    inference from the path gives as well)."""
    result = NormalizedFile(rel_path, root, None)
    if root is None:
        return result
    if root.kind == NULL:
        result.unreadable = Anchor("", root.start, root.end)
        result.unreadable_reason = "the top-level value is null (the reference reads payload.cases on null)"
        return result
    if root.kind != OBJECT:
        return result  # arrays, strings, numbers, booleans: zero cases, no error (§4.10)

    schema_version = root.get("schema_version")
    result.canonical = (
        schema_version is not None
        and schema_version.kind == STRING
        and (schema_version.value == CANONICAL_SCHEMA)
    )
    for name in ("cases", "examples"):
        candidate = root.get(name)
        if candidate is not None and candidate.kind == ARRAY:
            result.case_member = name
            break
    skill_node = root.get("skill")
    skill_anchor = anchor_at(skill_node, "/skill") if skill_node is not None else anchor_missing(root, "")
    result.skill = Skill(skill_node, infer_skill(rel_path), skill_anchor)
    if result.case_member is None:
        return result

    elements = items_of(root.get(result.case_member))
    base = "/" + result.case_member
    for index, element in enumerate(elements):
        if element.kind == NULL:
            result.unreadable = anchor_at(element, join_pointer(base, index))
            result.unreadable_reason = "a case element is null (the reference reads its members)"
            result.cases = []
            return result
    defaults = _FileDefaults.of(root)
    source_schema = to_python(schema_version) if js_truthy(schema_version) else None
    normalized_from = "canonical" if result.canonical else "legacy_adapter"
    for index, element in enumerate(elements):
        result.cases.append(
            _normalize_case(
                element,
                index,
                join_pointer(base, index),
                result.skill,
                defaults,
                rel_path,
                source_schema,
                normalized_from,
            )
        )
    _mark_unconvertible(result)
    return result


def _mark_unconvertible(result: NormalizedFile) -> None:
    """The reference converts ``skill`` to a string for every case's duplicate key, and an invalid
    authority for its message; a value whose conversion throws makes the whole run throw."""
    if not result.cases:
        return
    skill = result.skill
    if skill is not None and skill.declared and js_string_throws(skill.node):
        result.unreadable = skill.anchor
        result.unreadable_reason = "String(skill) throws: the object has its own toString member"
    else:
        for case in result.cases:
            written = case.authority.written
            if written is not None and js_string_throws(written[0]):
                result.unreadable = written[1]
                result.unreadable_reason = (
                    "String(source_ref_authority) throws: the object has its own toString member"
                )
                break
    if result.unreadable is not None:
        result.cases = []


@dataclass(frozen=True, slots=True)
class _FileDefaults:
    root: Node
    tags: list[Located]
    refs: list[Located]
    authority: Node | None

    @classmethod
    def of(cls, root: Node) -> _FileDefaults:
        return cls(
            root,
            string_array(root.get("coverage_tags"), "/coverage_tags", inherited=True),
            string_array(root.get("source_refs"), "/source_refs", inherited=True),
            root.get("source_ref_authority"),
        )


def _normalize_case(
    element: Node,
    index: int,
    pointer: str,
    skill: Skill,
    defaults: _FileDefaults,
    rel_path: str | None,
    source_schema: JsonValue,
    normalized_from: str,
) -> NormalizedCase:
    def get(name: str) -> Node | None:
        return element.get(name) if element.kind == OBJECT else None

    def list_anchor(name: str) -> Anchor:
        own = get(name)
        if own is not None:
            return anchor_at(own, join_pointer(pointer, name))
        inherited = defaults.root.get(name)  # None also for a member recovery found no value for
        if inherited is not None:
            return anchor_at(inherited, "/" + name)
        return missing

    missing = anchor_missing(element, pointer)
    case_id, id_source, id_anchor = _case_id(get, index, pointer, missing)
    input_value, input_anchor, input_from = _input(get, pointer, missing)
    tags = unique(defaults.tags + string_array(get("coverage_tags"), join_pointer(pointer, "coverage_tags")))
    refs = unique(defaults.refs + string_array(get("source_refs"), join_pointer(pointer, "source_refs")))
    signals = unique(
        string_array(get("forbidden_signals"), join_pointer(pointer, "forbidden_signals"))
        + string_array(get("negative_signal"), join_pointer(pointer, "negative_signal"))
    )
    note = get("boundary_note")
    note_text = non_empty_text(note)
    return NormalizedCase(
        index=index,
        pointer=pointer,
        node=element,
        skill=skill,
        id=case_id,
        id_source=id_source,
        id_anchor=id_anchor,
        input=input_value,
        input_anchor=input_anchor,
        input_from=input_from,
        outcome=_outcome(get, pointer, missing),
        coverage_tags=tags,
        tags_anchor=list_anchor("coverage_tags"),
        source_refs=refs,
        refs_anchor=list_anchor("source_refs"),
        authority=_authority(get("source_ref_authority"), pointer, defaults.authority),
        boundary_note=note_text or "",
        boundary_note_from=anchor_at(note, join_pointer(pointer, "boundary_note"))
        if note is not None and note_text is not None
        else None,
        forbidden_signals=signals,
        source_file=rel_path,
        source_schema_version=source_schema,
        normalized_from=normalized_from,
        missing_anchor=missing,
    )


def _case_id(get: MemberOf, index: int, pointer: str, missing: Anchor) -> tuple[str, str, Anchor]:
    explicit = get("id")
    explicit_text = non_empty_text(explicit)
    if explicit is not None and explicit_text is not None:
        return explicit_text, "id", anchor_at(explicit, join_pointer(pointer, "id"))
    name = get("name")
    name_text = non_empty_text(name)
    if name is not None and name_text is not None:
        return slugify(name_text), "name", anchor_at(name, join_pointer(pointer, "name"))
    return f"case-{index + 1}", "position", missing


def _input(get: MemberOf, pointer: str, missing: Anchor) -> tuple[str, Anchor, Anchor | None]:
    """``firstPresentString``: (value, the first alias present at all (§5 #3), the winning alias)."""
    anchor = None
    for name in INPUT_ALIASES:
        node = get(name)
        if node is None:
            continue
        here = anchor_at(node, join_pointer(pointer, name))
        anchor = anchor or here
        text = non_empty_text(node)
        if text is not None:
            return text, anchor, here
    return "", anchor or missing, None


def _outcome(get: MemberOf, pointer: str, missing: Anchor) -> Outcome:
    for name in OUTCOME_ALIASES:
        node = get(name)
        if node is not None:
            return Outcome(
                name, {name: node}, anchor_at(node, join_pointer(pointer, name)), is_non_empty_outcome(node)
            )
    if any(get(name) is not None for name in COMPOSITE_STARTERS):
        nodes = {name: node for name in COMPOSITE_MEMBERS if (node := get(name)) is not None}
        first = next(name for name in COMPOSITE_STARTERS if name in nodes)
        return Outcome(
            "composite",
            nodes,
            anchor_at(nodes[first], join_pointer(pointer, first)),
            any(is_non_empty_outcome(node) for node in nodes.values()),
        )
    return Outcome(None, {}, missing, False)


def _authority(case_value: Node | None, pointer: str, file_value: Node | None) -> Authority:
    if case_value is not None and js_truthy(case_value):
        return Authority(
            (case_value, anchor_at(case_value, join_pointer(pointer, "source_ref_authority"))), True
        )
    if file_value is not None and js_truthy(file_value):
        return Authority((file_value, anchor_at(file_value, "/source_ref_authority")), False)
    return Authority(None, False)
