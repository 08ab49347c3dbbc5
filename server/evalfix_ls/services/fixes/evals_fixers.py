"""Fixes for ``evals/evals.json`` findings (codes of evals-json.md §18), from the data the rules
attach to each finding (the ``contracts.fix_data`` shapes: ``OneOf``, ``Replacement``, ``Missing``,
``EquivalentSetup``, ``WrittenPath``, ``StringAssertion``, ``SiblingMember``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ...contracts.fix_data import (
    EquivalentSetup,
    OneOf,
    Replacement,
    SiblingMember,
    StringAssertion,
    WrittenPath,
)
from ...js.values import js_number_to_string
from ...json_value import JsonValue, is_json_value
from ...parser.tree import ARRAY, OBJECT, STRING, Node
from ...parser.values import items_of, number_of, string_of
from .edits import TextEdit, json_text, remove_member, replace_node
from .model import Fix, FixContext, enum_fixes, fixer, string_items, unique_name
from .same_name import same_name_fixes

PLACEHOLDERS = {
    "prompt": "TODO: write the prompt",
    "path": "TODO: path/to/file",
    "expected": "TODO: the expected value",
}


@fixer(
    "setup-kind-invalid",
    "setup-mount-mode-invalid",
    "setup-fixture-kind-invalid",
    "script-type-invalid",
    "intent-kind-invalid",
    "intent-method-invalid",
    "intent-severity-invalid",
    "sandbox-invalid",
    "metadata-difficulty-invalid",
)
def invalid_enum(ctx: FixContext) -> list[Fix]:
    one_of = OneOf.read(ctx.data)
    if one_of is None:
        return []
    allowed = list(one_of.allowed)
    missing = ctx.missing_member()
    if missing is not None:
        return _missing_enum(ctx, missing, allowed)
    node = ctx.node()
    if node is None:
        return []
    return enum_fixes(ctx, node, allowed, one_of.replacement)


@fixer("sandbox-mocks-unused")
def set_sibling_member(ctx: FixContext) -> list[Fix]:
    """Set the member that makes the finding's take effect (the case's ``sandbox`` for its mocks):
    unsafe, the case then runs in another shell."""
    sibling = SiblingMember.read(ctx.data)
    obj, _token = ctx.parent()
    if sibling is None or obj is None or obj.kind != OBJECT:
        return []
    title = f'Set "{sibling.member}": {json_text(sibling.value)}'
    return [ctx.fix(title, ctx.set_member(obj, sibling.member, sibling.value), safe=False)]


def _missing_enum(ctx: FixContext, name: str, allowed: Sequence[JsonValue]) -> list[Fix]:
    """An absent enum member: add it with each value (the user chooses), or — for an assertion
    object that only holds a claim — write the claim as the plain string the judge grades."""
    obj = ctx.node()
    if obj is None:
        return []
    fixes = []
    claim = StringAssertion.read(ctx.data)
    if claim is not None:
        fixes.append(
            ctx.fix(
                "Write the claim as a plain string assertion",
                replace_node(obj, claim.claim),
                safe=False,
                preferred=True,
            )
        )
    for value in allowed[:8]:
        fixes.append(
            ctx.fix(f'Add "{name}": {json_text(value)}', ctx.set_member(obj, name, value), safe=False)
        )
    return fixes


@fixer("mount-mode-flatten", "version-type")
def only_valid_reading(ctx: FixContext) -> list[Fix]:
    """``"flatten"`` → ``"flatten-contents"``, ``2`` → ``"2"``: each the only reading that makes
    the file valid."""
    node = ctx.node()
    replacement = Replacement.read(ctx.data)
    if node is None or replacement is None:
        return []
    return [ctx.change_to(node, replacement.value, safe=True)]


@fixer("regex-target-invalid")
def regex_target(ctx: FixContext) -> list[Fix]:
    """A bare file name → ``{"file": …}`` (the only reading that makes it valid); a word for the
    assistant's text → ``"assistant-text"``, the close value among the allowed ones."""
    node = ctx.node()
    one_of = OneOf.read(ctx.data)
    if node is None or one_of is None or one_of.replacement is None:
        return []
    if isinstance(one_of.replacement, str):
        return enum_fixes(ctx, node, ["assistant-text"], one_of.replacement)
    return [ctx.change_to(node, one_of.replacement, safe=True)]


@fixer("sources-string-form")
def string_source(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    replacement = Replacement.read(ctx.data)
    if node is None or replacement is None or not isinstance(replacement.value, Mapping):
        return []
    fixes = [ctx.change_to(node, replacement.value, safe=True)]
    array, _ = ctx.parent()
    strings = string_items(array)
    if len(strings) > 1:  # a mixed array made uniform in one step
        edits = [replace_node(item, {"from": text}) for item, text in strings]
        fixes.append(ctx.fix('Write every string source as {"from": …}', *edits, safe=True))
    return fixes


@fixer("files-legacy")
def legacy_files(ctx: FixContext) -> list[Fix]:
    """``files`` → the ``setup`` the loader derives from it (the exact mapping it applies)."""
    equivalent = EquivalentSetup.read(ctx.data)
    member = ctx.member()
    case, _ = ctx.parent()
    if equivalent is None or member is None or member.value is None or case is None or case.has("setup"):
        return []
    edit = TextEdit(member.key_start, member.value.end, f'"setup": {json_text(equivalent.setup)}')
    return [ctx.fix("Replace legacy files with the equivalent setup", edit, safe=True, preferred=True)]


@fixer("files-skill-root-relative", "files-item-type")
def suggested_value(ctx: FixContext) -> list[Fix]:
    """A replacement the rule suggests that changes what runs (another path)."""
    node = ctx.node()
    replacement = Replacement.read(ctx.data)
    if node is None or replacement is None:
        return []
    return [ctx.change_to(node, replacement.value, safe=False)]


@fixer("regex-flags-invalid")
def repaired_flags(ctx: FixContext) -> list[Fix]:
    """The valid flags the rule kept of the written ones: it changes what runs (fewer flags)."""
    node = ctx.node()
    one_of = OneOf.read(ctx.data)
    if node is None or one_of is None or one_of.replacement is None:
        return []
    return [ctx.change_to(node, one_of.replacement, safe=False)]


@fixer("path-not-found")
def skill_root_path(ctx: FixContext) -> list[Fix]:
    """A copy source written relative to the skill root (``evals/files/x``, e.g. after ``files``
    became ``setup``): the same path relative to evals/, when that one exists; and each file of
    the same name elsewhere in the repository (a moved file)."""
    node = ctx.node()
    written = WrittenPath.read(ctx.data)
    document_path = ctx.document.path
    if node is None or node.kind != STRING or written is None or document_path is None:
        return []
    path = written.path
    fixes = []
    candidate = path[len("evals/") :] if path.startswith("evals/") else ""
    if candidate and ctx.facts.exists(document_path.parent / candidate):
        fixes.append(ctx.change_to(node, candidate, safe=False))
    for fix in same_name_fixes(ctx, node, path, document_path.parent):
        if all(fix.edits != other.edits for other in fixes):
            fixes.append(replace(fix, preferred=fix.preferred and not fixes))
    return fixes


@fixer("metadata-tags-type")
def tag_list(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    tag = string_of(node)
    if node is None or tag is None:
        return []
    return [ctx.change_to(node, [tag], safe=True)]


@fixer(
    "description-type",
    "expected-output-type",
    "metadata-intent-type",
    "intent-judge-prompt-type",
    "setup-source-to-type",
)
def string_expected(ctx: FixContext) -> list[Fix]:
    """An optional string member holding something else: a number written as the string
    JavaScript would print (the only reading that makes it valid); ``null`` or any other value
    removed (the member is optional, but what it said is gone)."""
    node = ctx.node()
    obj, _ = ctx.parent()
    member = ctx.member()
    if node is None or obj is None or member is None:
        return []
    fixes = []
    number = number_of(node)
    if number is not None:
        fixes.append(ctx.change_to(node, js_number_to_string(number), safe=True))
    title = f"Remove {json_text(member.key)}"
    fixes.append(ctx.fix(title, remove_member(ctx.text, obj, member), safe=False, preferred=not fixes))
    return fixes


@fixer("intent-must-pass-type")
def boolean_value(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    if node is None:
        return []
    answer = string_of(node)
    word = answer.strip().lower() if answer is not None else None
    truthy = word in ("yes", "true", "1", "y", "on")
    falsy = word in ("no", "false", "0", "n", "off")
    return [
        ctx.change_to(node, True, safe=False, preferred=truthy),
        ctx.change_to(node, False, safe=False, preferred=falsy),
    ]


@fixer("prompt-required", "prompt-blank", "intent-path-required", "intent-expected-required")
def placeholder(ctx: FixContext) -> list[Fix]:
    """A missing or blank required string: a placeholder for the user to fill in."""
    missing = ctx.missing_member()
    name = missing or ctx.parent()[1]
    text = PLACEHOLDERS.get(name, f"TODO: {name}")
    node = ctx.node()
    if node is None:
        return []
    if missing is not None:  # the node is the object the member is missing from
        edit = ctx.set_member(node, missing, text)
    else:
        edit = replace_node(node, text)
    return [ctx.fix(f'Set "{name}" to a placeholder', edit, safe=False, preferred=True)]


@fixer("id-required", "intent-id-required")
def missing_id(ctx: FixContext) -> list[Fix]:
    obj = ctx.node() if ctx.missing_member() else ctx.parent()[0]
    if obj is None or obj.kind != OBJECT:
        return []
    siblings, _ = ctx.parent(_pointer_of_container(ctx, obj))
    taken = _ids_in(siblings)
    base = "case" if ctx.finding.code == "id-required" else str(string_of(obj.get("kind")) or "assertion")
    new_id = unique_name(f"{base}-{len(taken) + 1}", taken)
    return [ctx.fix(f'Set "id" to "{new_id}"', ctx.set_member(obj, "id", new_id), safe=False, preferred=True)]


@fixer("duplicate-id")
def duplicate_id(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    root = ctx.document.root
    cases = root.get("evals") if root is not None else None
    if node is None or cases is None or cases.kind != ARRAY:
        return []
    taken = _ids_in(cases)
    written = node.value  # a string or a number (the rule's duplicate ids)
    old = string_of(node) or json_text(written if is_json_value(written) else None)
    new_id = unique_name(f"{old}-2", taken)
    referred = _mentions(ctx.text, old) > sum(1 for i in items_of(cases) if string_of(i.get("id")) == old)
    return [
        ctx.fix(
            f'Rename this case to "{new_id}"', replace_node(node, new_id), safe=not referred, preferred=True
        )
    ]


@fixer("assertion-empty")
def empty_assertion(ctx: FixContext) -> list[Fix]:
    return ctx.remove_element("Remove the empty assertion", safe=False, preferred=True)


def _pointer_of_container(ctx: FixContext, obj: Node) -> str:
    """The pointer of ``obj``: the finding's when it names it, else its parent's."""
    return ctx.finding.pointer if ctx.node() is obj else ctx.finding.pointer.rpartition("/")[0]


def _ids_in(array: Node | None) -> set[str]:
    return {value for item in items_of(array) if item.kind == OBJECT and (value := string_of(item.get("id")))}


def _mentions(text: str, value: str) -> int:
    """How often ``value`` appears as a JSON string literal in ``text``."""
    return text.count(json_text(value))
