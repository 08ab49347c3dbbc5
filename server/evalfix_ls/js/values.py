"""JavaScript semantics the reference tools rely on, reproduced exactly in Python.

* ``js_number_to_string`` — ECMAScript ``Number::toString`` (``String(1e21)`` is ``"1e+21"``,
  ``String(1e-7)`` is ``"1e-7"``, ``String(-0)`` is ``"0"``; evals-json.md §12.1).
* ``js_string`` — ``String(value)`` for any JSON value (workflow-fixtures.md §9.3).
* ``js_id_string`` — ``String(id)`` of a case id, which is only a string or a number (evals-json.md §12).
* ``js_trim`` — ``String.prototype.trim`` (removes U+FEFF, keeps U+001C–U+001F and U+0085;
  workflow-fixtures.md §9.1).
* ``escape_lone_surrogates`` — what ``JSON.stringify`` writes for a lone surrogate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..parser.tree import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING, Node

# ECMAScript WhiteSpace + LineTerminator, exactly the set String.prototype.trim removes.
JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\uXXXX`` escape, as ``JSON.stringify``
    does since ES2019. ``JSON.parse`` accepts ``"\\uDFAA"``, so a fixture's key or value can hold
    one, and UTF-8 cannot encode it: every writer passes its output through this, so that one
    such string never stops a report. Inside JSON text the escape is the same string again."""
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def js_trim(value: str) -> str:
    return value.strip(JS_WHITESPACE)


def js_number_to_string(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if value == 0:
        return "0"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value < 0:
        return "-" + js_number_to_string(-value)
    mantissa, _, exponent = repr(float(value)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    # n: position of the decimal point relative to the first significant digit (value = 0.s × 10^n)
    leading_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    n = len(int_part) - leading_zeros + (int(exponent) if exponent else 0)
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    sign = "+" if n - 1 >= 0 else "-"
    tail = ("." + digits[1:]) if k > 1 else ""
    return f"{digits[0]}{tail}e{sign}{abs(n - 1)}"


def js_id_string(node: Node | None) -> str | None:
    """``String(id)`` of a string or number id; None for any other node (``true``, ``null``, an
    object…: no id at all, ``id-required`` — so a ``true`` id never reads as the id ``"true"``)."""
    if node is None or node.kind not in (STRING, NUMBER):
        return None
    value = node.value
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_number_to_string(value)
    return None


def js_string(node: Node | None) -> str:
    """``String(value)`` of a JSON node (None means ``undefined``)."""
    if node is None:
        return "undefined"
    if (text := js_id_string(node)) is not None:
        return text
    kind = node.kind
    if kind == BOOLEAN:
        return "true" if node.value else "false"
    if kind == NULL:
        return "null"
    if kind == OBJECT:
        return "[object Object]"
    if kind == ARRAY:
        # Array.prototype.join: null/undefined elements become empty strings. Iterative to
        # survive deep nesting: nested arrays are flattened the same way join would print them.
        parts: list[str] = []
        stack: list[tuple[Sequence[Node], int]] = [(node.items or (), 0)]
        out_stack: list[list[str]] = [parts]
        while stack:
            items, index = stack.pop()
            current = out_stack[-1]
            if index >= len(items):
                out_stack.pop()
                if out_stack:
                    out_stack[-1].append(",".join(current))
                continue
            stack.append((items, index + 1))
            item = items[index]
            if item.kind == ARRAY:
                stack.append((item.items or (), 0))
                out_stack.append([])
            elif item.kind == NULL:
                current.append("")
            else:
                current.append(js_string(item))
        return ",".join(parts)
    return str(node.value)  # an INVALID token (only in trees of text that did not parse)


def js_truthy(node: Node | None) -> bool:
    """JavaScript truthiness of a JSON value (``[]`` and ``{}`` are truthy)."""
    if node is None:
        return False
    kind, value = node.kind, node.value
    if kind == STRING:
        return value != ""
    if kind == NUMBER and isinstance(value, (int, float)):
        return not (value == 0 or math.isnan(value))
    if kind == BOOLEAN:
        return bool(node.value)
    return kind != NULL
