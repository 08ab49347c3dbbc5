"""Normalization as the reference does it (workflow-fixtures.md §4) and the JavaScript semantics it
depends on (§9): the normalized record, provenance, and the traps of a Python port."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalfix_ls.contracts.detection import CANONICAL_SCHEMA
from evalfix_ls.contracts.workflow.normalize import normalize_file
from evalfix_ls.contracts.workflow.refs import node_join
from evalfix_ls.contracts.workflow.rules import is_valid_tag
from evalfix_ls.contracts.workflow.values import is_non_empty_outcome, slugify
from evalfix_ls.parser import parse

REL = "skills/demo/evals/cases.json"


def records(payload: Any, rel: str | None = REL) -> list[dict[str, Any]]:
    normalized = normalize_file(parse(json.dumps(payload, ensure_ascii=False)).root, rel)
    return [case.record() for case in normalized.cases]


def test_full_record_of_a_legacy_case() -> None:
    payload = {
        "schema_version": "prompt-examples/v1",
        "source_refs": ["a.md", "b.md"],
        "coverage_tags": ["routing"],
        "examples": [
            {
                "name": "Review The Doc",
                "user_intent": "Review this.",
                "expected_posture": "Reviews.",
                "coverage_tags": ["trigger", "routing"],
                "source_refs": "b.md",
                "negative_signal": "edits files",
                "forbidden_signals": ["edits files", "x"],
                "context_snippets": ["c"],
                "source_note": "n",
                "extensions": {"mine": 1, "name": "shadowed"},
            }
        ],
    }
    (record,) = records(payload)
    assert record == {
        "schema_version": CANONICAL_SCHEMA,
        "skill": "demo",
        "id": "review-the-doc",
        "input": "Review this.",
        "expected_outcome": "Reviews.",
        "coverage_tags": ["routing", "trigger"],
        "source_refs": ["a.md", "b.md"],
        "source_ref_authority": "source",
        "boundary_note": "",
        "forbidden_signals": ["edits files", "x"],
        "source_file": REL,
        "source_schema_version": "prompt-examples/v1",
        "normalized_from": "legacy_adapter",
        "coverage_basis": "declared_coverage_tags",
        "extensions": {"mine": 1, "name": "Review The Doc", "context_snippets": ["c"], "source_note": "n"},
    }


@pytest.mark.parametrize(
    ("payload", "member", "count"),
    [
        ({"cases": [{}], "examples": [{}, {}]}, "cases", 1),
        ({"cases": [], "examples": [{}, {}]}, "cases", 0),
        ({"cases": None, "examples": [{}, {}]}, "examples", 2),
        ({"cases": {"0": {}}, "examples": [{}]}, "examples", 1),
        ({"cases": "x"}, None, 0),
        ({"should_trigger": [{}]}, None, 0),
    ],
)
def test_case_array_selection(payload: dict, member: str | None, count: int) -> None:
    normalized = normalize_file(parse(json.dumps(payload)).root, REL)
    assert (normalized.case_member, len(normalized.cases)) == (member, count)


def test_last_duplicate_member_wins() -> None:
    normalized = normalize_file(parse('{"examples": [{}], "examples": []}').root, REL)
    assert normalized.cases == []


@pytest.mark.parametrize(
    ("skill", "rel", "expected"),
    [
        (None, REL, "demo"),
        ("", REL, "demo"),
        (False, REL, "demo"),
        (0, REL, "demo"),
        ("declared", REL, "declared"),
        ("   ", REL, "   "),
        (None, "skills/evals/x.json", "evals"),
        (None, "fixtures/x.json", None),
        (None, None, None),
        (None, "skills/other/evals/x.json", "other"),
    ],
)
def test_skill_inference(skill: Any, rel: str | None, expected: Any) -> None:
    payload = {"cases": [{}]} if skill is None else {"skill": skill, "cases": [{}]}
    (record,) = records(payload, rel)
    assert record["skill"] == expected


def test_skill_key_uses_js_string() -> None:
    normalized = normalize_file(parse('{"skill": [1, null, "a"], "cases": [{"id": "x"}]}').root, REL)
    assert normalized.cases[0].key == "1,,a:x"
    normalized = normalize_file(parse('{"cases": [{"id": "x"}]}').root, "elsewhere/x.json")
    assert normalized.cases[0].key == "null:x"
    normalized = normalize_file(parse('{"skill": 1e21, "cases": [{"id": "x"}]}').root, REL)
    assert normalized.cases[0].key == "1e+21:x"


@pytest.mark.parametrize(
    ("case", "expected_id", "source"),
    [
        ({"id": "Keep  As Is "}, "Keep  As Is ", "id"),
        ({"id": 3, "name": "Three"}, "three", "name"),
        ({"id": "", "name": "  Hello, World!  "}, "hello-world", "name"),
        ({"name": "--a--"}, "a", "name"),
        ({"name": "\u212a"}, "k", "name"),  # KELVIN SIGN lowercases to k
        ({"name": "İx"}, "i-x", "name"),  # İ lowercases to i + combining dot
        ({"name": "中文名称"}, "", "name"),
        ({"name": "\ufeff"}, "case-1", "position"),
        ({"case_id": "x"}, "case-1", "position"),
        ({}, "case-1", "position"),
    ],
)
def test_id_fallback(case: dict, expected_id: str, source: str) -> None:
    normalized = normalize_file(parse(json.dumps({"cases": [case]}, ensure_ascii=False)).root, REL)
    (first,) = normalized.cases
    assert (first.id, first.id_source) == (expected_id, source)


def test_position_ids_are_one_based() -> None:
    assert [record["id"] for record in records({"cases": [{}, {}, {"id": "x"}, {}]})] == [
        "case-1",
        "case-2",
        "x",
        "case-4",
    ]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ({"input": "", "user_intent": "u"}, "u"),
        ({"input": 3, "user_intent": "u"}, "u"),
        ({"input_shape": "s", "intent": "i"}, "s"),
        ({"intent": "i"}, "i"),
        ({"input": "  keep  "}, "  keep  "),
        ({"prompt": "p", "user_input": "u"}, ""),
        ({"extensions": {"input": "x"}}, ""),
    ],
)
def test_input_aliases(case: dict, expected: str) -> None:
    (record,) = records({"cases": [case]})
    assert record["input"] == expected


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ({"expected_outcome": None, "expected": "x"}, None),
        ({"expected": ["a"], "expected_posture": "p"}, ["a"]),
        ({"expected_signal": "s"}, "s"),
        (
            {"expected_decision": "d", "expected_next_action": "n", "expected_mode": "m"},
            {"expected_decision": "d", "expected_next_action": "n"},
        ),
        ({"expected_output": None}, {"expected_output": None}),
        ({"expected_next_action": "n"}, None),
        ({"expected_result": "r"}, None),
    ],
)
def test_outcome_precedence(case: dict, expected: Any) -> None:
    (record,) = records({"cases": [case]})
    assert record["expected_outcome"] == expected


@pytest.mark.parametrize(
    ("value", "non_empty"),
    [
        ('""', False),
        ('"  "', False),
        ('"\\u00a0"', False),
        ('"\\u0085"', True),
        ("[]", False),
        ('[""]', False),
        ("[[]]", False),
        ("[{}]", False),
        ("{}", False),
        ('{"a": ""}', False),
        ('{"a": {"b": ""}}', False),
        ("0", False),
        ("true", False),
        ("null", False),
        ('"x"', True),
        ('["x"]', True),
        ('[["x"]]', True),
        ('[{"k": "v"}]', True),
        ('{"a": {"b": "x"}}', True),
        ('{"a": "x", "b": ""}', True),
        ('{"a": "x", "a": ""}', False),  # JSON.parse keeps the last value
        ("[" * 5000 + '"x"' + "]" * 5000, True),
    ],
)
def test_non_empty_outcome(value: str, non_empty: bool) -> None:
    assert is_non_empty_outcome(parse(value).root) is non_empty


def test_inheritance_and_unique() -> None:
    payload = {
        "coverage_tags": ["routing", "trigger", 5],
        "source_refs": "top.md",
        "source_ref_authority": "advisory",
        "cases": [
            {
                "coverage_tags": ["trigger", "failure", "routing"],
                "source_refs": ["top.md", "own.md", "top.md"],
            },
            {"source_ref_authority": "historical", "coverage_tags": "boundary"},
            {"source_ref_authority": ""},
        ],
    }
    first, second, third = records(payload)
    assert first["coverage_tags"] == ["routing", "trigger", "failure"]
    assert first["source_refs"] == ["top.md", "own.md"]
    assert first["source_ref_authority"] == "advisory"
    assert second["coverage_tags"] == ["routing", "trigger", "boundary"]
    assert second["source_ref_authority"] == "historical"
    assert third["source_ref_authority"] == "advisory"


def test_strings_are_kept_untrimmed_and_exact() -> None:
    (record,) = records(
        {"cases": [{"coverage_tags": [" trigger", "trigger"], "source_refs": ["a.md ", "a.md"]}]}
    )
    assert record["coverage_tags"] == [" trigger", "trigger"]
    assert record["source_refs"] == ["a.md ", "a.md"]


@pytest.mark.parametrize(
    ("extensions", "expected"),
    [
        ('"ab"', {"0": "a", "1": "b"}),
        ('"\U0001f600"', {"0": "\ud83d", "1": "\ude00"}),
        ("null", {}),
        ("5", {}),
        ("[7]", {"0": 7}),
        ('{"a": 1, "a": 2}', {"a": 2}),
    ],
)
def test_extensions_spread(extensions: str, expected: dict) -> None:
    normalized = normalize_file(parse('{"cases": [{"extensions": ' + extensions + "}]}").root, REL)
    assert normalized.cases[0].extensions() == expected


def test_provenance_of_the_winning_input_and_the_note() -> None:
    text = json.dumps({"cases": [{"input": " ", "intent": "i", "boundary_note": "n"}]})
    (case,) = normalize_file(parse(text).root, REL).cases
    assert (case.input_anchor.pointer, case.input_from.pointer) == ("/cases/0/input", "/cases/0/intent")
    assert text[case.boundary_note_from.start : case.boundary_note_from.end] == '"n"'
    (case,) = normalize_file(parse('{"cases": [{"input": ""}]}').root, REL).cases
    assert (case.input_from, case.boundary_note_from) == (None, None)


def test_provenance_of_values() -> None:
    text = json.dumps(
        {
            "coverage_tags": ["routing"],
            "cases": [{"id": "a", "user_intent": "u", "coverage_tags": ["trigger"], "expected_posture": "p"}],
        }
    )
    (case,) = normalize_file(parse(text).root, REL).cases
    assert [(tag.value, tag.pointer, tag.inherited) for tag in case.coverage_tags] == [
        ("routing", "/coverage_tags/0", True),
        ("trigger", "/cases/0/coverage_tags/0", False),
    ]
    assert case.input_anchor.pointer == case.input_from.pointer == "/cases/0/user_intent"
    assert text[case.input_anchor.start : case.input_anchor.end] == '"u"'
    assert case.outcome.anchor.pointer == "/cases/0/expected_posture"
    assert case.id_anchor.pointer == "/cases/0/id"


@pytest.mark.parametrize(
    ("text", "reason_pointer"),
    [
        ("null", ""),
        ('{"cases": [{}, null]}', "/cases/1"),
        ('{"skill": {"toString": 1}, "cases": [{}]}', "/skill"),
        ('{"skill": [{"toString": 1}], "cases": [{}]}', "/skill"),
        ('{"source_ref_authority": {"toString": "x"}, "cases": [{}]}', "/source_ref_authority"),
    ],
)
def test_inputs_the_reference_throws_on(text: str, reason_pointer: str) -> None:
    normalized = normalize_file(parse(text).root, REL)
    assert normalized.unreadable is not None and normalized.unreadable.pointer == reason_pointer
    assert normalized.cases == []


def test_unconvertible_skill_without_cases_is_harmless() -> None:
    normalized = normalize_file(parse('{"skill": {"toString": 1}, "cases": []}').root, REL)
    assert normalized.unreadable is None


@pytest.mark.parametrize(
    ("slug_input", "slug"),
    [
        ("Plan Request", "plan-request"),
        ("  a  ", "a"),
        ("-", ""),
        ("a_b", "a-b"),
        ("ÉCOLE", "cole"),
        ("x\n", "x"),
    ],
)
def test_slugify(slug_input: str, slug: str) -> None:
    assert slugify(slug_input) == slug


@pytest.mark.parametrize(
    ("tag", "valid"),
    [
        ("failure", True),
        ("failure\n", False),
        ("\uff11abc", False),
        ("étiquette", False),
        ("failure-", True),
        ("a--b", True),
        ("1st-pass", True),
        ("x", True),
        ("-x", False),
        ("Trigger", False),
        ("a b", False),
    ],
)
def test_tag_pattern_is_anchored_like_js(tag: str, valid: bool) -> None:
    assert is_valid_tag(tag) is valid


@pytest.mark.parametrize(
    ("relative", "joined"),
    [
        ("skills/x/SKILL.md", "/r/skills/x/SKILL.md"),
        ("skills/x/SKILL.md/", "/r/skills/x/SKILL.md/"),
        ("skills/x/SKILL.md/.", "/r/skills/x/SKILL.md"),
        ("skills/x/../y/", "/r/skills/y/"),
        ("skills//x///y", "/r/skills/x/y"),
        (".", "/r"),
        ("..", "/"),
        ("../..", "/"),
        ("./", "/r/"),
    ],
)
def test_node_path_join(relative: str, joined: str) -> None:
    assert node_join("/r", relative) == joined
