"""The ``pattern`` / ``flags`` members of the three assertions that hold a JavaScript regular
expression (evals-json.md §9.2, §9.3, §16): script ``regex-match``, output ``regex`` and workspace
``file-contains``. Validity is Node's (``js/regex``), never Python's.
"""

from __future__ import annotations

from ...js import regex as jsregex
from ...parser.tree import STRING, Node
from ...parser.values import string_of
from ..fix_data import OneOf, Replacement
from .report import Scope, quote, sentence


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
