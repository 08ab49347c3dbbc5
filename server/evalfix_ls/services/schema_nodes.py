"""The schema fragments that apply at a JSON path, from the bundled schemas.

The schemas are the one source of field documentation and enums (``schemas/``). A path is walked
from the root; at each level the fragments are expanded: ``$ref`` followed, ``allOf`` merged,
``if``/``then``/``else`` decided by the instance where the document says enough (``"kind":
"seeded"`` selects the seeded branch), ``anyOf``/``oneOf`` branches kept when they fit the
instance's type. Where the instance does not decide a condition (the member is not written yet),
both branches are kept, so completion can offer what any of them allows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from .. import schema
from ..contracts.detection import EVALS, WORKFLOW
from ..parser.tree import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING, Node, pointer_tokens
from ..parser.values import items_of

# A part of a bundled schema as ``json.load`` read it: each keyword's value is narrowed where it is
# read (``table``, ``listed``), though the schemas are ours and validated by the tests.
Fragment = dict[str, object]

SCHEMA_FOR_KIND = {EVALS: schema.EVALS_SCHEMA, WORKFLOW: schema.WORKFLOW_SCHEMA}
_JSON_TYPE = {OBJECT: "object", ARRAY: "array", STRING: "string", BOOLEAN: "boolean", NULL: "null"}


@dataclass(frozen=True, slots=True)
class SchemaNode:
    """Every fragment that applies at one path (already expanded; never holds a ``$ref``)."""

    fragments: tuple[Fragment, ...]

    def __bool__(self) -> bool:
        return bool(self.fragments)

    def properties(self) -> dict[str, SchemaNode]:
        """Member name → its schema, merged over the fragments, in first-seen order."""
        merged: dict[str, list[Fragment]] = {}
        for fragment in self.fragments:
            for name, sub in table(fragment, "properties").items():
                if isinstance(sub, dict):
                    merged.setdefault(name, []).append(sub)
        return {name: SchemaNode(tuple(subs)) for name, subs in merged.items()}

    def required(self) -> set[str]:
        return {
            name
            for fragment in self.fragments
            for name in listed(fragment, "required")
            if isinstance(name, str)
        }

    def enum(self) -> list[object]:
        """The allowed values (``enum`` and ``const``), in schema order, without repeats."""
        values: list[object] = []
        for fragment in self.fragments:
            candidates = (
                listed(fragment, "enum")
                if "enum" in fragment
                else [fragment["const"]]
                if "const" in fragment
                else []
            )
            values.extend(v for v in candidates if v not in values)
        return values

    def enum_descriptions(self) -> dict[object, str]:
        out: dict[object, str] = {}
        for fragment in self.fragments:
            texts = listed(fragment, "markdownEnumDescriptions") or listed(fragment, "enumDescriptions")
            for value, text in zip(listed(fragment, "enum"), texts, strict=False):
                if isinstance(text, str):
                    out.setdefault(value, text)
            if "const" in fragment and "description" in fragment:
                text = fragment.get("markdownDescription") or fragment["description"]
                if isinstance(text, str):
                    out.setdefault(fragment["const"], text)
        return out

    def description(self) -> str | None:
        """The first markdown (else plain) description among the fragments."""
        for key in ("markdownDescription", "description"):
            for fragment in self.fragments:
                text = fragment.get(key)
                if isinstance(text, str):
                    return text
        return None

    def types(self) -> set[str]:
        out: set[str] = set()
        for fragment in self.fragments:
            declared = fragment.get("type")
            if isinstance(declared, str):
                out.add(declared)
            elif isinstance(declared, list):
                out.update(name for name in declared if isinstance(name, str))
        return out

    def default_snippets(self) -> list[Fragment]:
        snippets = (s for fragment in self.fragments for s in listed(fragment, "defaultSnippets"))
        return [snippet for snippet in snippets if isinstance(snippet, dict)]


def table(fragment: Fragment, *keys: str) -> Fragment:
    """The object at ``keys`` below ``fragment`` (``"$defs", "RegexFlags"``), empty where absent."""
    found: object = fragment
    for key in keys:
        found = found.get(key) if isinstance(found, dict) else None
    return found if isinstance(found, dict) else {}


def listed(fragment: Fragment, key: str) -> list[object]:
    """The array ``fragment[key]`` (``enum``, ``required`` …), empty where absent."""
    found = fragment.get(key)
    return found if isinstance(found, list) else []


def schema_for(kind: str) -> Fragment | None:
    """The root schema of a contract kind (None for ``unknown``)."""
    name = SCHEMA_FOR_KIND.get(kind)
    return schema.load(name) if name else None


def schema_at(kind: str, root: Node | None, path: Sequence[str | int]) -> SchemaNode:
    """The schema at ``path`` in a document of ``kind`` whose tree is ``root`` (the instance
    decides conditional branches where it can; ``root`` may be None or a recovered tree)."""
    top = schema_for(kind)
    if top is None:
        return SchemaNode(())
    instance = root
    fragments = _expand([top], top, instance)
    for key in path:
        child = _child(instance, key)
        fragments = _expand(list(_step(fragments, key)), top, child)
        instance = child
        if not fragments:
            break
    return SchemaNode(tuple(fragments))


def _child(node: Node | None, key: str | int) -> Node | None:
    if node is None:
        return None
    if node.kind == OBJECT and isinstance(key, str):
        return node.get(key)
    items = items_of(node)
    return items[key] if isinstance(key, int) and 0 <= key < len(items) else None


def _step(fragments: list[Fragment], key: str | int) -> Iterator[Fragment]:
    for fragment in fragments:
        if isinstance(key, int):
            prefix = listed(fragment, "prefixItems")
            items = prefix[key] if key < len(prefix) else fragment.get("items")
            if isinstance(items, dict):
                yield items
            continue
        properties = table(fragment, "properties")
        if key in properties:
            sub = properties[key]
            if isinstance(sub, dict):
                yield sub
            continue
        matched = False
        for pattern, sub in table(fragment, "patternProperties").items():
            if _pattern(pattern).search(key):  # our own schema's patterns: trusted, not user input
                matched = True
                if isinstance(sub, dict):
                    yield sub
        additional = fragment.get("additionalProperties")
        if not matched and isinstance(additional, dict):
            yield additional


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _expand(fragments: list[Fragment], top: Fragment, instance: Node | None) -> list[Fragment]:
    """Follow ``$ref``, merge ``allOf``, decide ``if``/``then``/``else`` and filter ``anyOf``/
    ``oneOf`` by the instance. Iterative (a worklist), each fragment once."""
    out: list[Fragment] = []
    seen: set[int] = set()
    pending: list[object] = list(reversed(fragments))  # a part of the schema may be no object
    while pending:
        fragment = pending.pop()
        if not isinstance(fragment, dict) or id(fragment) in seen:
            continue
        seen.add(id(fragment))
        ref = fragment.get("$ref")
        if isinstance(ref, str):
            pending.append(_resolve_ref(top, ref))
        out.append(fragment)
        branches: list[object] = list(fragment.get("allOf", ()))
        if "if" in fragment:
            verdict = _matches(fragment["if"], instance)
            if verdict is not False and "then" in fragment:
                branches.append(fragment["then"])
            if verdict is not True and "else" in fragment:
                branches.append(fragment["else"])
        for key in ("anyOf", "oneOf"):
            branches.extend(b for b in fragment.get(key, ()) if _fits(_resolved(top, b), instance))
        pending.extend(reversed(branches))
    return out


def _resolve_ref(top: Fragment, ref: str) -> Fragment:
    if not ref.startswith("#"):
        return {}
    node: object = top
    for token in pointer_tokens(ref[1:]):
        node = node.get(token, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


def _resolved(top: Fragment, fragment: object) -> object:
    while isinstance(fragment, dict) and isinstance(fragment.get("$ref"), str) and len(fragment) == 1:
        fragment = _resolve_ref(top, fragment["$ref"])
    return fragment


def _fits(fragment: object, instance: Node | None) -> bool:
    """Can ``instance`` be of this branch's declared type? (Unknown instance: every branch fits.)"""
    if instance is None or not isinstance(fragment, dict) or "type" not in fragment:
        return True
    declared = fragment["type"]
    allowed = {declared} if isinstance(declared, str) else set(declared)
    if instance.kind == NUMBER:
        return bool(allowed & {"number", "integer"})
    return _JSON_TYPE.get(instance.kind) in allowed


def _matches(condition: object, instance: Node | None) -> bool | None:
    """Does ``instance`` satisfy an ``if`` schema? Only the forms our schemas use are decided
    (``required``, ``properties`` with ``const``/``enum``/``type``); None when undecided."""
    if not isinstance(condition, dict) or instance is None or instance.kind != OBJECT:
        return None
    if any(not instance.has(name) for name in condition.get("required", ())):
        return False
    for name, sub in condition.get("properties", {}).items():
        value = instance.get(name)
        if value is None or not isinstance(sub, dict):
            continue
        if "const" in sub and not _equals(value, sub["const"]):
            return False
        if "enum" in sub and not any(_equals(value, v) for v in sub["enum"]):
            return False
    return True


def _equals(node: Node, expected: object) -> bool:
    if node.kind == STRING:
        return node.value == expected
    if node.kind == NUMBER:
        return (
            isinstance(expected, (int, float)) and not isinstance(expected, bool) and node.value == expected
        )
    if node.kind == BOOLEAN:
        return node.value is expected
    if node.kind == NULL:
        return expected is None
    return False
