"""Intent assertions (evals-json.md §9.3, §13.2): an object without ``type``, read by its
``kind`` (output, workspace, behavior, safety) and that kind's ``method``.
"""

from __future__ import annotations

from ...js.values import js_trim
from ...parser.tree import BOOLEAN, STRING, Node
from ...parser.values import string_of
from ..fix_data import OneOf, Rename, StringAssertion
from .regex_members import check_regex_members
from .report import (
    INTENT_KINDS,
    INTENT_METHODS,
    INTENT_SEVERITIES,
    Scope,
    enum_problem,
    one_of,
    quote,
    sentence,
)
from .script_assertions import check_workspace_path

_NEVER_PASSING_KINDS = frozenset({"behavior", "safety"})
_SNAPSHOT_DIFF = "snapshot-diff"
# Keys of assertion objects written for other tools whose text makes a good judged claim (§15.3).
_CLAIM_KEYS = ("text", "description", "check", "claim", "assertion", "name")


def check_intent(scope: Scope, item: Node, a: int) -> None:
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
        check_workspace_path(
            scope,
            item,
            base,
            "intent-path-required",
            f"{p}workspace assertion requires a non-empty `path` string",
        )
    if method == "file-contains":
        check_regex_members(
            scope,
            item,
            base,
            p,
            "workspace file-contains assertion",
            "workspace file-contains assertion `flags`",
        )
