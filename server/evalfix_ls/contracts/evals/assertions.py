"""Assertions (evals-json.md §9, §13.2, §16): judged strings, script assertions, intent assertions.

Dispatch follows the loader exactly (§9.1): a string; an object with a ``type`` member (any value,
even ``null``) is a script assertion; any other object is an intent assertion; anything else fails.
"""

from __future__ import annotations

from ...js import regex as jsregex
from ...js.values import js_trim
from ...json_value import JsonValue
from ...parser.tree import ARRAY, BOOLEAN, OBJECT, STRING, Node
from ...parser.values import items_of, string_of
from ..fix_data import OneOf, Rename, Replacement, StringAssertion
from .paths import escapes_workspace
from .report import (
    INTENT_KINDS,
    INTENT_METHODS,
    INTENT_SEVERITIES,
    SCRIPT_TYPES,
    Scope,
    describe,
    enum_problem,
    one_of,
    quote,
    sentence,
)

_ASSISTANT_TEXT = "assistant-text"
_NEVER_PASSING_KINDS = frozenset({"behavior", "safety"})
_SNAPSHOT_DIFF = "snapshot-diff"
_WORKSPACE_PATH = "`path` is relative to the case workspace"
# Keys of assertion objects written for other tools whose text makes a good judged claim (§15.3).
_CLAIM_KEYS = ("text", "description", "check", "claim", "assertion", "name")


def check_assertions(scope: Scope, assertions: Node) -> None:
    if assertions.kind != ARRAY:
        claim = string_of(assertions)
        scope.at(
            "assertions-not-array",
            assertions,
            ("assertions",),
            sentence(
                f"{scope.prefix}`assertions`, if present, must be an array",
                f"Got {describe(assertions)}; list judged claims (strings) and assertion objects.",
            ),
            None if claim is None else Replacement([claim]).fields(),
        )
        return
    for a, item in enumerate(items_of(assertions)):
        kind = item.kind
        claim = string_of(item)
        if claim is not None:
            if claim == "" or not js_trim(claim):
                _string_problem(scope, item, a)
        elif kind == OBJECT:
            if item.has("type"):
                _check_script(scope, item, a)
            else:
                _check_intent(scope, item, a)
        else:
            scope.at(
                "assertion-not-string-or-object",
                item,
                ("assertions", a),
                sentence(
                    f"{scope.prefix}assertions[{a}]: assertion must be a string or an object",
                    f"Got {describe(item)}; write a claim string or an object with `type` or `kind`.",
                ),
            )


def _string_problem(scope: Scope, item: Node, a: int) -> None:
    if item.value == "":
        scope.at(
            "assertion-empty",
            item,
            ("assertions", a),
            sentence(
                f"{scope.prefix}assertions[{a}]: string assertion must be non-empty",
                "A string assertion is a claim an LLM judge checks; write the claim or remove the entry.",
            ),
        )
    else:
        scope.at(
            "assertion-blank",
            item,
            ("assertions", a),
            "This string assertion is only whitespace: the loader accepts it, but the judge gets no claim.",
        )


# -- script assertions -----------------------------------------------------------------------------------


def _check_script(scope: Scope, item: Node, a: int) -> None:
    p = f"{scope.prefix}assertions[{a}]: "
    base = ("assertions", a)
    script_type = scope.require_enum(
        "script-type-invalid",
        item,
        base,
        "type",
        SCRIPT_TYPES,
        f"{p}script assertion must declare `type` from [{one_of(SCRIPT_TYPES)}]",
        "script assertion type",
        note="An object with `type` is a script assertion; remove `type` for an intent assertion."
        if item.has("kind")
        else "",
    )
    if script_type is None:
        return
    if script_type == "regex-match":
        check_regex_members(scope, item, base, p, "`regex-match`", "`regex-match.flags`")
        _check_target(scope, item, base, p)
    else:  # file-exists, json-valid
        path = scope.require_string(
            "script-path-required",
            item,
            base,
            "path",
            f"{p}`{script_type}` requires a non-empty `path` string",
            _WORKSPACE_PATH,
        )
        if path is not None:
            _check_path_escape(scope, path, (*base, "path"))


def _check_target(scope: Scope, item: Node, base: tuple[str | int, ...], p: str) -> None:
    target = item.get("target")
    if target is None:
        return
    if target.kind == STRING and target.value == _ASSISTANT_TEXT:
        return
    file_node = target.get("file") if target.kind == OBJECT else None
    if file_node is not None and file_node.kind == STRING:
        tokens = (*base, "target", "file")
        if file_node.value == "":
            scope.at(
                "target-file-empty",
                file_node,
                tokens,
                'target {"file": ""} resolves to the workspace directory itself and always fails as a '
                "missing file; name a file.",
            )
        else:
            _check_path_escape(scope, file_node, tokens)
        return
    replacement: JsonValue = None
    explanation = f"Got {describe(target)}."
    written = string_of(target)
    if written is not None:
        if written.startswith("assistant") or written in ("text", "output", "response"):
            replacement = _ASSISTANT_TEXT
            explanation = f'Got {describe(target)}; write "{_ASSISTANT_TEXT}".'
        else:
            replacement = {"file": written}
            explanation = f'Got {describe(target)}; a file target is written {{"file": "{written}"}}.'
    scope.at(
        "regex-target-invalid",
        target,
        (*base, "target"),
        sentence(f'{p}`regex-match.target` must be "assistant-text" or {{ file: string }}', explanation),
        OneOf((_ASSISTANT_TEXT, {"file": "<path>"}), replacement).fields(),
    )


def _check_path_escape(scope: Scope, node: Node, tokens: tuple[str | int, ...]) -> None:
    path = string_of(node)
    if path is not None and escapes_workspace(path):
        scope.at(
            "assertion-path-escapes",
            node,
            tokens,
            f"{quote(path)} is absolute or starts with '..': arc-skill-eval refuses it as "
            "'Path escapes workspace', so this assertion always fails. Use a workspace-relative path.",
        )


# -- regular expressions -------------------------------------------------------------------------------


def check_regex_members(
    scope: Scope, item: Node, base: tuple[str | int, ...], p: str, who: str, flags_label: str
) -> None:
    """``pattern`` / ``flags`` rules shared by regex-match, output regex and workspace file-contains.

    ``who`` names the assertion as the loader does (```regex-match```, ``output regex assertion``);
    ``flags_label`` is the flags' name in the loader's type message.
    """
    pattern = scope.require_string(
        "regex-pattern-required",
        item,
        base,
        "pattern",
        f"{p}{who} requires a non-empty `pattern` string",
        "`pattern` is a JavaScript regular expression (in JSON, write \\\\ for one backslash)",
    )
    flags = scope.optional_type(
        "regex-flags-type",
        item,
        base,
        "flags",
        STRING,
        f"{p}{flags_label}, if present, must be a string",
        'write the flags as a string such as "i" or "im".',
    )
    flags_text = string_of(flags) or ""
    pattern_text = string_of(pattern)
    if pattern is None or pattern_text is None:
        return
    verdict = jsregex.check_regex(pattern_text, flags_text)
    invalid = f"{p}{who} pattern is not a valid regular expression"
    status = verdict.status
    if status == jsregex.FLAGS:
        if flags is not None:  # no flags are never invalid ones
            scope.at(
                "regex-flags-invalid",
                flags,
                (*base, "flags"),
                sentence(invalid, f"The flags {quote(flags_text)} are invalid: {verdict.detail}."),
                OneOf(tuple(jsregex.VALID_FLAGS), _repair_flags(flags_text)).fields(),
            )
        return
    if status == jsregex.PATTERN:
        scope.at(
            "regex-invalid",
            pattern,
            (*base, "pattern"),
            sentence(
                invalid,
                f"Node's new RegExp rejects it{_under(flags_text)}: {verdict.detail}. "
                "JavaScript syntax applies, not Python's.",
            ),
            {"engine": verdict.detail},
        )
    elif status == jsregex.NEWER:
        scope.at(
            "regex-newer-syntax",
            pattern,
            (*base, "pattern"),
            sentence(
                invalid,
                f"It uses a {verdict.detail} (ES2025): rejected by Node 20, accepted by Node 24. "
                "It fails wherever arc-skill-eval runs on Node 20.",
            ),
            {"feature": verdict.detail},
        )
    elif status == jsregex.UNCHECKED:
        scope.at(
            "regex-unchecked",
            pattern,
            (*base, "pattern"),
            f"This pattern could not be checked ({verdict.detail}); Node may still accept it.",
        )
    if flags is not None and flags_text:
        if "g" in flags_text:
            scope.at(
                "regex-flag-g-ignored",
                flags,
                (*base, "flags"),
                "The 'g' flag has no effect: the pattern is applied once, with exec from position 0.",
                Replacement(flags_text.replace("g", "")).fields(),
            )
        if "y" in flags_text:
            scope.at(
                "regex-flag-y-anchors",
                flags,
                (*base, "flags"),
                "The 'y' flag makes the match start at position 0 (like a leading ^); "
                "drop it unless that is intended.",
                Replacement(flags_text.replace("y", "")).fields(),
            )


def _under(flags: str) -> str:
    return f" with flags '{flags}'" if flags else ""


def _repair_flags(flags: str) -> str:
    """The valid flags in ``flags``, each once, keeping ``u`` over ``v``."""
    kept: list[str] = []
    for flag in flags:
        if flag in jsregex.VALID_FLAGS and flag not in kept:
            if (flag == "v" and "u" in kept) or (flag == "u" and "v" in kept):
                continue
            kept.append(flag)
    return "".join(kept)


# -- intent assertions ---------------------------------------------------------------------------------


def _check_intent(scope: Scope, item: Node, a: int) -> None:
    p = f"{scope.prefix}assertions[{a}]: "
    base = ("assertions", a)
    kind_node = item.get("kind")
    if kind_node is None or kind_node.kind != STRING or kind_node.value not in INTENT_KINDS:
        _intent_kind_invalid(scope, item, kind_node, base, p)
        return
    kind = kind_node.value
    scope.require_string(
        "intent-id-required",
        item,
        base,
        "id",
        f"{p}intent assertion requires a non-empty `id` string",
        "The id names the assertion in results",
    )
    scope.optional_type(
        "intent-must-pass-type",
        item,
        base,
        "mustPass",
        BOOLEAN,
        f"{p}intent assertion `mustPass`, if present, must be a boolean",
        "write true or false.",
        OneOf((True, False)).fields(),
    )
    scope.require_enum(
        "intent-severity-invalid",
        item,
        base,
        "severity",
        INTENT_SEVERITIES,
        f'{p}intent assertion `severity`, if present, must be "info", "warn", or "error"',
        "severity",
        optional=True,
    )
    methods = INTENT_METHODS[kind]
    method = scope.require_enum(
        "intent-method-invalid",
        item,
        base,
        "method",
        methods,
        f"{p}{kind} assertion must declare `method` from [{one_of(methods)}]",
        f"{kind} method",
    )
    if kind == "output":
        _check_output(scope, item, base, p, method)
    elif kind == "workspace":
        _check_workspace(scope, item, base, p, method)
    else:
        if kind == "behavior":
            scope.optional_type(
                "intent-value-type",
                item,
                base,
                "value",
                STRING,
                f"{p}behavior assertion `value`, if present, must be a string",
                "name the tool, command or skill as a string.",
            )
        if kind in _NEVER_PASSING_KINDS:
            scope.at(
                "assertion-never-passes",
                kind_node,
                (*base, "kind"),
                f"{kind} assertions are not implemented yet in arc-skill-eval: this one is graded as "
                "failed on every run.",
                {"kind": kind},
            )


def _intent_kind_invalid(
    scope: Scope, item: Node, kind_node: Node | None, base: tuple[str | int, ...], p: str
) -> None:
    explanation, data = enum_problem(kind_node, INTENT_KINDS, "intent kind")
    if kind_node is None:
        explanation = (
            "This object has neither `type` nor `kind`, so arc-skill-eval reads it as an intent assertion "
            f"without a kind; expected `kind` from {one_of(INTENT_KINDS)}."
        )
        claim = _claim_text(item)
        if claim is not None:
            data = {**data, **StringAssertion(claim).fields()}
            explanation += f" If it is a claim for the judge, write it as a plain string: {quote(claim)}."
    scope.at_member(
        "intent-kind-invalid",
        kind_node,
        item,
        base,
        "kind",
        sentence(f"{p}intent assertion must declare `kind` from [{one_of(INTENT_KINDS)}]", explanation),
        data,
    )


def _claim_text(item: Node) -> str | None:
    """The claim of a skill-creator style object ({text}, {name, description}, {check, name}, …)."""
    for key in _CLAIM_KEYS:
        text = string_of(item.get(key))
        if text is not None and js_trim(text):
            return text
    return None


def _check_output(scope: Scope, item: Node, base: tuple[str | int, ...], p: str, method: str | None) -> None:
    if method == "judge":
        scope.optional_type(
            "intent-judge-prompt-type",
            item,
            base,
            "prompt",
            STRING,
            f"{p}output judge assertion `prompt`, if present, must be a string",
            "`prompt` is what the judge checks.",
        )
        prompt = item.get("prompt")
        claim = item.member("claim")
        if claim is not None:
            data = Rename("prompt").fields() if prompt is None else None
            scope.at_key(
                "judge-claim-ignored",
                claim,
                (*base, "claim"),
                "`claim` is never read: the judge receives `prompt`, else `expected`"
                + (". Rename `claim` to `prompt`." if prompt is None else "."),
                data,
            )
        if prompt is None and not item.has("expected"):
            identifier = item.get("id")
            shown = identifier.value if identifier is not None and identifier.kind == STRING else "<id>"
            scope.at(
                "judge-prompt-missing",
                item,
                base,
                f"This judge assertion has no `prompt` or `expected`: the judge only gets the generic "
                f"sentence 'Output assertion {shown} must pass'. Add a `prompt`.",
            )
    elif method == "regex":
        check_regex_members(scope, item, base, p, "output regex assertion", "output regex assertion `flags`")
    elif method == "exact":
        scope.require_string(
            "intent-expected-required",
            item,
            base,
            "expected",
            f"{p}output exact assertion requires an `expected` string",
            '`expected` is the exact assistant text ("" is allowed)',
            allow_empty=True,
        )


def _check_workspace(
    scope: Scope, item: Node, base: tuple[str | int, ...], p: str, method: str | None
) -> None:
    method_node = item.get("method")
    if method == _SNAPSHOT_DIFF:
        if method_node is not None:  # a method read from the item is there
            scope.at(
                "assertion-never-passes",
                method_node,
                (*base, "method"),
                "workspace snapshot-diff is not implemented yet in arc-skill-eval: this assertion is "
                "graded as failed on every run.",
                {"method": _SNAPSHOT_DIFF},
            )
    else:  # every other method, a missing or an invalid one included, needs a path
        path = scope.require_string(
            "intent-path-required",
            item,
            base,
            "path",
            f"{p}workspace assertion requires a non-empty `path` string",
            _WORKSPACE_PATH,
        )
        if path is not None:
            _check_path_escape(scope, path, (*base, "path"))
    if method == "file-contains":
        check_regex_members(
            scope,
            item,
            base,
            p,
            "workspace file-contains assertion",
            "workspace file-contains assertion `flags`",
        )
