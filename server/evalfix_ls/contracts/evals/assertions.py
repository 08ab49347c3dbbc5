"""Assertions (evals-json.md §9, §13.2, §16): judged strings, script assertions, intent assertions.

Dispatch follows the loader exactly (§9.1): a string; an object with a ``type`` member (any value,
even ``null``) is a script assertion (``script_assertions``); any other object is an intent
assertion (``intent_assertions``); anything else fails. The judged strings are checked here.
"""

from __future__ import annotations

from ...js.values import js_trim
from ...parser.tree import ARRAY, OBJECT, Node
from ...parser.values import items_of, string_of
from ..fix_data import Replacement
from .intent_assertions import check_intent
from .report import Scope, describe, sentence
from .script_assertions import check_script


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
                check_script(scope, item, a)
            else:
                check_intent(scope, item, a)
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
