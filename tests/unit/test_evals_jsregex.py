"""JavaScript regex validity (evals-json.md §16): flags rule, engine verdicts, ES2025 detection."""

from __future__ import annotations

import corvus_regex_ecma262 as ecma
import pytest

from evalfix_ls.js import regex as jsregex
from evalfix_ls.js.regex import FLAGS, NEWER, OK, PATTERN, UNCHECKED, check_regex, flags_problem, newer_syntax


@pytest.mark.parametrize("flags", ["", "d", "g", "i", "m", "s", "u", "v", "y", "dgimsuy", "dgimsvy", "yi"])
def test_valid_flags(flags: str) -> None:
    assert flags_problem(flags) is None


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        ("x", "unknown"),
        ("I", "unknown"),
        ("gg", "repeated"),
        ("uv", "cannot be combined"),
        (" ", "unknown"),
        ("ii", "repeated"),
    ],
)
def test_invalid_flags(flags: str, reason: str) -> None:
    problem = flags_problem(flags)
    assert problem is not None and reason in problem


# §16: patterns Python's `re` gets wrong in both directions, with Node 20's verdict.
VALID_IN_JS = [
    ("(?<name>a)\\k<name>", ""),
    ("(?<=a+)b", ""),
    ("\\p{L}", "u"),
    ("\\p{L}", ""),  # an identity escape without u
    ("[\\p{L}--[a-z]]", "v"),
    ("[\\q{abc}]", "v"),
    ("[]", ""),
    ("[^]", ""),
    ("\\u{41}", "u"),
    ("\\c1", ""),
    ("\\8", ""),
    ("\\1(a)", ""),
    ("(a)\\2", ""),
    ("\\q", ""),
    ("[\\d-z]", ""),
    ("\\k<a>", ""),
    ("(?<$a>x)", ""),
    ("(?<café>x)", ""),
    ("[😀-😂]", "u"),
]
INVALID_IN_JS = [
    ("(?P<n>a)", ""),
    ("(?P=n)", ""),
    ("(?i)a", ""),
    ("(?#comment)", ""),
    ("(?>a)", ""),
    ("a++", ""),
    ("(?<=a)*", ""),
    ("{", "u"),
    ("]", "u"),
    ("\\-", "u"),
    ("\\00", "u"),
    ("\\07", "u"),
    ("\\Z", "u"),
    ("[(]", "v"),
    ("[a-]", "v"),
    ("[a&&&b]", "v"),
    ("[a-z--b]", "v"),
    ("[😀-😂]", ""),
    ("(?<y>a)(?<y>b)", ""),  # duplicate names in one alternative: invalid everywhere
]


@pytest.mark.parametrize(("pattern", "flags"), VALID_IN_JS)
def test_patterns_javascript_accepts(pattern: str, flags: str) -> None:
    assert check_regex(pattern, flags).status == OK


@pytest.mark.parametrize(("pattern", "flags"), INVALID_IN_JS)
def test_patterns_javascript_rejects(pattern: str, flags: str) -> None:
    verdict = check_regex(pattern, flags)
    assert verdict.status == PATTERN
    assert verdict.detail and "ecmaregex" not in verdict.detail and ' in "' not in verdict.detail


@pytest.mark.parametrize(("pattern", "flags"), VALID_IN_JS + INVALID_IN_JS)
def test_fast_path_agrees_with_compile(pattern: str, flags: str) -> None:
    try:
        ecma.compile(pattern, flags)
        compiled = True
    except ecma.error:
        compiled = False
    assert ecma.is_valid(pattern, flags) == compiled


def test_flags_are_judged_before_the_pattern() -> None:
    assert check_regex("(", "x").status == FLAGS
    assert check_regex("a", "gg").status == FLAGS


@pytest.mark.parametrize(
    ("pattern", "flags", "feature"),
    [
        ("(?i:a)", "", jsregex.MODIFIER_GROUP),
        ("(?-i:a)", "", jsregex.MODIFIER_GROUP),
        ("(?ims-:a)", "u", jsregex.MODIFIER_GROUP),
        ("x(?m-s:^a.)", "v", jsregex.MODIFIER_GROUP),
        ("(?<y>a)|(?<y>b)", "", jsregex.DUPLICATE_GROUP_NAME),
        ("(?:(?<y>a)|(?<y>b))\\k<y>", "u", jsregex.DUPLICATE_GROUP_NAME),
        ("(?<\\u0061>x)|(?<a>y)", "", jsregex.DUPLICATE_GROUP_NAME),
        ("(?<\\u{1d49c}>x)|(?<\\ud835\\udc9c>y)", "u", jsregex.DUPLICATE_GROUP_NAME),
    ],
)
def test_es2025_features_are_newer_syntax(pattern: str, flags: str, feature: str) -> None:
    assert check_regex(pattern, flags) == jsregex.RegexVerdict(NEWER, feature)


@pytest.mark.parametrize(
    ("pattern", "v_mode"),
    [
        ("\\(?i:a\\)", False),  # escaped parenthesis
        ("[(?i:]", False),  # inside a class
        ("[[(?i:]]", True),  # nested class in v mode
        ("[\\](?i:]", False),  # escaped bracket keeps the class open
        ("(?:a)(?=b)(?!c)(?<=d)(?<!e)", False),
        ("(?<a>x)(?<b>y)", False),
    ],
)
def test_scanner_ignores_look_alikes(pattern: str, v_mode: bool) -> None:
    assert newer_syntax(pattern, v_mode) is None


def test_scanner_sees_a_group_after_a_class_closes() -> None:
    assert newer_syntax("[a](?i:b)", False) == jsregex.MODIFIER_GROUP
    assert newer_syntax("[[a]](?i:b)", True) == jsregex.MODIFIER_GROUP


def test_too_large_is_unchecked_not_invalid() -> None:
    assert check_regex("(" * 1000 + ")" * 1000).status == UNCHECKED
    assert check_regex("a" * 16_385).status == UNCHECKED
    assert check_regex("a" * (jsregex.MAX_PATTERN_CHARS + 1)).status == UNCHECKED
    assert check_regex("(" * 100 + ")" * 100).status == OK


def test_verdicts_are_cached_for_short_patterns() -> None:
    first = check_regex("cache-me-\\d+", "i")
    assert check_regex("cache-me-\\d+", "i") is first
    long_pattern = "b" * (jsregex._CACHEABLE_CHARS + 1)
    assert check_regex(long_pattern).status == OK
