"""Fixes for ``evals/evals.json`` findings (codes of evals-json.md §18), from the data the rules
attach to each finding (``expected`` values, ``replacement``, ``missing`` member, ``setup``)."""

from __future__ import annotations

from dataclasses import replace

from ...contracts.fix_data import OneOf
from ...js.values import js_number_to_string
from ...parser.tree import ARRAY, NUMBER, OBJECT, STRING, Node
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


def _missing_enum(ctx: FixContext, name: str, allowed: list) -> list[Fix]:
    """An absent enum member: add it with each value (the user chooses), or — for an assertion
    object that only holds a claim — write the claim as the plain string the judge grades."""
    obj = ctx.node()
    fixes = []
    claim = ctx.data.get("string_assertion")
    if isinstance(claim, str):
        fixes.append(
            ctx.fix(
                "Write the claim as a plain string assertion",
                replace_node(obj, claim),
                safe=False,
                preferred=True,
            )
        )
    for value in allowed[:8]:
        fixes.append(
            ctx.fix(f'Add "{name}": {json_text(value)}', ctx.set_member(obj, name, value), safe=False)
        )
    return fixes


@fixer("mount-mode-flatten", "version-type", "regex-target-invalid")
def only_valid_reading(ctx: FixContext) -> list[Fix]:
    """``"flatten"`` → ``"flatten-contents"``, ``2`` → ``"2"``, a bare file name as a regex target →
    ``{"file": …}``: each the only reading that makes the file valid."""
    node = ctx.node()
    replacement = ctx.data.get("replacement")
    if node is None or replacement is None:
        return []
    if ctx.finding.code == "regex-target-invalid" and isinstance(replacement, str):
        return enum_fixes(ctx, node, ["assistant-text"], replacement)
    return [ctx.change_to(node, replacement, safe=True)]


@fixer("sources-string-form")
def string_source(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    replacement = ctx.data.get("replacement")
    if node is None or not isinstance(replacement, dict):
        return []
    fixes = [ctx.change_to(node, replacement, safe=True)]
    array, _ = ctx.parent()
    strings = string_items(array)
    if len(strings) > 1:  # a mixed array made uniform in one step
        edits = [replace_node(item, {"from": item.value}) for item in strings]
        fixes.append(ctx.fix('Write every string source as {"from": …}', *edits, safe=True))
    return fixes


@fixer("files-legacy")
def legacy_files(ctx: FixContext) -> list[Fix]:
    """``files`` → the ``setup`` the loader derives from it (the exact mapping it applies)."""
    setup = ctx.data.get("setup")
    member = ctx.member()
    case, _ = ctx.parent()
    if not isinstance(setup, dict) or member is None or case is None or case.has("setup"):
        return []
    edit = TextEdit(member.key_start, member.value.end, f'"setup": {json_text(setup)}')
    return [ctx.fix("Replace legacy files with the equivalent setup", edit, safe=True, preferred=True)]


@fixer("files-skill-root-relative", "files-item-type", "regex-flags-invalid")
def suggested_value(ctx: FixContext) -> list[Fix]:
    """A replacement the rule suggests that changes what runs (another path, fewer flags)."""
    node = ctx.node()
    replacement = ctx.data.get("replacement")
    if node is None or replacement is None:
        return []
    return [ctx.change_to(node, replacement, safe=False)]


@fixer("path-not-found")
def skill_root_path(ctx: FixContext) -> list[Fix]:
    """A copy source written relative to the skill root (``evals/files/x``, e.g. after ``files``
    became ``setup``): the same path relative to evals/, when that one exists; and each file of
    the same name elsewhere in the repository (a moved file)."""
    node = ctx.node()
    path = ctx.data.get("path")
    document_path = ctx.document.path
    if node is None or node.kind != STRING or not isinstance(path, str) or document_path is None:
        return []
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
    if node is None or node.kind != STRING:
        return []
    return [ctx.change_to(node, [node.value], safe=True)]


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
    if node.kind == NUMBER:
        fixes.append(ctx.change_to(node, js_number_to_string(node.value), safe=True))
    title = f"Remove {json_text(member.key)}"
    fixes.append(ctx.fix(title, remove_member(ctx.text, obj, member), safe=False, preferred=not fixes))
    return fixes


@fixer("intent-must-pass-type")
def boolean_value(ctx: FixContext) -> list[Fix]:
    node = ctx.node()
    if node is None:
        return []
    truthy = node.kind == STRING and node.value.strip().lower() in ("yes", "true", "1", "y", "on")
    falsy = node.kind == STRING and node.value.strip().lower() in ("no", "false", "0", "n", "off")
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
    if missing is not None:
        edit = ctx.set_member(ctx.node(), missing, text)
    else:
        node = ctx.node()
        if node is None:
            return []
        edit = replace_node(node, text)
    return [ctx.fix(f'Set "{name}" to a placeholder', edit, safe=False, preferred=True)]


@fixer("id-required", "intent-id-required")
def missing_id(ctx: FixContext) -> list[Fix]:
    obj = ctx.node() if ctx.missing_member() else ctx.parent()[0]
    if obj is None or obj.kind != OBJECT:
        return []
    siblings, _ = ctx.parent(_pointer_of_container(ctx, obj))
    taken = _ids_in(siblings)
    base = "case" if ctx.finding.code == "id-required" else str(_string(obj.get("kind")) or "assertion")
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
    old = _string(node) or json_text(node.value)
    new_id = unique_name(f"{old}-2", taken)
    referred = _mentions(ctx.text, old) > sum(1 for i in cases.items if _string(i.get("id")) == old)
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
    if array is None or array.kind != ARRAY:
        return set()
    return {value for item in array.items if item.kind == OBJECT and (value := _string(item.get("id")))}


def _string(node: Node | None) -> str | None:
    return node.value if node is not None and node.kind == STRING else None


def _mentions(text: str, value: str) -> int:
    """How often ``value`` appears as a JSON string literal in ``text``."""
    return text.count(json_text(value))
