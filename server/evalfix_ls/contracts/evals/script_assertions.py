"""Script assertions (evals-json.md §9.2): an object with a ``type`` member — ``regex-match``,
``file-exists``, ``json-valid`` — and the rule they share with workspace intent assertions: a
``path`` that escapes the case workspace.
"""

from __future__ import annotations

from ...json_value import JsonValue
from ...parser.tree import OBJECT, STRING, Node
from ...parser.values import string_of
from ..fix_data import OneOf
from .paths import escapes_workspace
from .regex_members import check_regex_members
from .report import SCRIPT_TYPES, Scope, describe, one_of, quote, sentence

_ASSISTANT_TEXT = "assistant-text"
WORKSPACE_PATH = "`path` is relative to the case workspace"


def check_script(scope: Scope, item: Node, a: int) -> None:
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
        check_workspace_path(
            scope,
            item,
            base,
            "script-path-required",
            f"{p}`{script_type}` requires a non-empty `path` string",
        )


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
            check_path_escape(scope, file_node, tokens)
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


def check_workspace_path(
    scope: Scope, item: Node, base: tuple[str | int, ...], code: str, message: str
) -> None:
    """The assertion's required ``path``: a non-empty string (``code`` with ``message`` when it is
    not) that stays inside the case workspace."""
    path = scope.require_string(code, item, base, "path", message, WORKSPACE_PATH)
    if path is not None:
        check_path_escape(scope, path, (*base, "path"))


def check_path_escape(scope: Scope, node: Node, tokens: tuple[str | int, ...]) -> None:
    path = string_of(node)
    if path is not None and escapes_workspace(path):
        scope.at(
            "assertion-path-escapes",
            node,
            tokens,
            f"{quote(path)} is absolute or starts with '..': arc-skill-eval refuses it as "
            "'Path escapes workspace', so this assertion always fails. Use a workspace-relative path.",
        )
