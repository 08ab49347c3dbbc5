"""Insert text for completion items: JSON values and schema ``defaultSnippets`` bodies rendered as
LSP snippets (tab stops, choices) or, for clients without snippet support, as plain JSON with each
placeholder replaced by its default."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

# ``${1:default}``, ``${1|a,b|}``, ``${1}``, ``$1`` — the snippet syntax the schemas' bodies use.
_PLACEHOLDER = re.compile(r"\$\{(\d+)(?::([^}]*)|\|([^|]*)\|)?\}|\$(\d+)")
_SNIPPET_SPECIAL = re.compile(r"([\\$}])")
_LITERAL_SPECIAL = re.compile(r"([\\$])")  # outside a placeholder a "}" needs no escape
INDENT_UNIT = "  "


def render(
    body: object,
    *,
    snippet: bool,
    indent: str = "",
    defaults: Mapping[str, str] | None = None,
    members_only: bool = False,
) -> str:
    """The text of a ``defaultSnippets`` body (JSON with snippet placeholders inside strings).
    Lines after the first are indented by ``indent``; ``defaults`` replaces placeholder defaults
    (``skill-name`` → the folder's skill). ``members_only`` drops an object body's braces, for
    insertion inside an object that is already written."""
    text = json.dumps(body, ensure_ascii=False, indent=len(INDENT_UNIT))
    if members_only and isinstance(body, dict) and body:
        lines = text.split("\n")[1:-1]
        text = "\n".join(line.removeprefix(INDENT_UNIT) for line in lines)
    text = _fill(text, snippet=snippet, defaults=defaults or {})
    return text.replace("\n", "\n" + indent)


def _fill(text: str, *, snippet: bool, defaults: Mapping[str, str]) -> str:
    out: list[str] = []
    last = 0
    for match in _PLACEHOLDER.finditer(text):
        literal = text[last : match.start()]
        out.append(_LITERAL_SPECIAL.sub(r"\\\1", literal) if snippet else literal)
        out.append(_placeholder(match, snippet=snippet, defaults=defaults))
        last = match.end()
    tail = text[last:]
    out.append(_LITERAL_SPECIAL.sub(r"\\\1", tail) if snippet else tail)
    return "".join(out)


def _placeholder(match: re.Match[str], *, snippet: bool, defaults: Mapping[str, str]) -> str:
    number = match.group(1) or match.group(4)
    default, choices = match.group(2), match.group(3)
    if default is not None and default in defaults:
        default = defaults[default]
    if not snippet:
        if choices is not None:
            return choices.split(",")[0]
        return default or ""
    if choices is not None:
        return match.group(0)
    if default is not None:
        return f"${{{number}:{escape(default)}}}"
    return "$" + number


def escape(text: str) -> str:
    """Literal text inside a snippet: ``\\``, ``$`` and ``}`` escaped."""
    return _SNIPPET_SPECIAL.sub(r"\\\1", text)


def json_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def value_placeholder(
    *, enum: list[object], types: set[str], array: bool, object_: bool, snippet: bool
) -> str:
    """The value inserted after a new ``"key": ``: the enum's values as a choice (its first in
    plain text), else an empty value of the member's type."""
    strings = [v for v in enum if isinstance(v, str) and v and "," not in v and "|" not in v]
    if strings:
        if snippet:
            return '"${1|' + ",".join(escape(v) for v in strings) + '|}"'
        return json_text(strings[0])
    if "boolean" in types and not types - {"boolean"}:
        return "${1|true,false|}" if snippet else "false"
    if types and types <= {"number", "integer"}:
        return "${1:0}" if snippet else "0"
    if "array" in types or (array and not types):
        return "[$1]" if snippet else "[]"
    if "object" in types or (object_ and not types):
        return "{$1}" if snippet else "{}"
    return '"$1"' if snippet else '""'
