"""JavaScript semantics: String(number), String(value), trim, truthiness."""

from __future__ import annotations

import pytest

from evalfix_ls.js.values import js_id_string, js_number_to_string, js_string, js_trim, js_truthy
from evalfix_ls.parser import parse


@pytest.mark.parametrize(
    ("literal", "printed"),
    [
        ("1", "1"),
        ("1.0", "1"),
        ("1e0", "1"),
        ("-0", "0"),
        ("1e-7", "1e-7"),
        ("0.0000001", "1e-7"),
        ("0.000001", "0.000001"),
        ("1e21", "1e+21"),
        ("1e16", "10000000000000000"),
        ("123456789012345680000", "123456789012345680000"),
        ("9007199254740993", "9007199254740992"),
        ("1e400", "Infinity"),
        ("-1e400", "-Infinity"),
        ("1.5", "1.5"),
        ("-2.5e-9", "-2.5e-9"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("0.1", "0.1"),
        ("100", "100"),
    ],
)
def test_number_to_string(literal: str, printed: str) -> None:
    assert js_number_to_string(float(literal)) == printed
    assert js_string(parse(literal).root) == printed


@pytest.mark.parametrize(
    ("literal", "printed"),
    [
        ('"x"', "x"),
        ("null", "null"),
        ("true", "true"),
        ('{"a": 1}', "[object Object]"),
        ('["x", "y"]', "x,y"),
        ("[]", ""),
        ("[null, 1, [2, [3]], true]", ",1,2,3,true"),
    ],
)
def test_string_of_value(literal: str, printed: str) -> None:
    assert js_string(parse(literal).root) == printed


@pytest.mark.parametrize(
    ("literal", "key"),
    [
        ('"case-1"', "case-1"),
        ('""', ""),
        ("1.0", "1"),
        ("1e21", "1e+21"),
        ("-0", "0"),
        ("1e400", "Infinity"),
        # Only strings and numbers are ids (evals-json.md, `id-required`): a `true` id is no id,
        # not the id "true" that String(true) prints, nor the 1 a Python bool would pass for.
        ("true", None),
        ("false", None),
        ("null", None),
        ('{"a": 1}', None),
        ('["x"]', None),
    ],
)
def test_id_string_is_string_of_a_string_or_number_id_only(literal: str, key: str | None) -> None:
    assert js_id_string(parse(literal).root) == key


def test_trim_matches_javascript_not_python() -> None:
    assert js_trim("\ufeff") == ""
    assert js_trim("\u001f") == "\u001f"
    assert js_trim("\u0085") == "\u0085"
    assert js_trim("\u00a0x\u3000") == "x"
    assert js_trim("\u200b") == "\u200b"


@pytest.mark.parametrize(
    ("literal", "truthy"),
    [
        ("[]", True),
        ("{}", True),
        ('""', False),
        ("0", False),
        ("-0", False),
        ("null", False),
        ("false", False),
        ('" "', True),
        ("0.5", True),
    ],
)
def test_truthiness(literal: str, truthy: bool) -> None:
    assert js_truthy(parse(literal).root) is truthy
    assert js_truthy(None) is False
