"""``schemas/workflow-fixture.schema.json``: a valid draft 2020-12 schema that documents the
canonical shape, accepts every shape the reference accepts, and agrees with the rules on the
enums and patterns it states."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from workflow_support import BASE, base, with_case

from evalfix_ls.contracts.workflow.rules import authorities, is_valid_tag, readiness_buckets
from evalfix_ls.js.regex import check_regex
from evalfix_ls.js.values import js_trim
from evalfix_ls.schema import WORKFLOW_SCHEMA, definition, enum, enum_descriptions, load


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = load(WORKFLOW_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_enums_feed_the_rules() -> None:
    assert (
        authorities() == enum(WORKFLOW_SCHEMA, "SourceRefAuthority") == ("source", "historical", "advisory")
    )
    assert readiness_buckets() == ("trigger", "boundary", "failure", "expected")
    for name in ("SourceRefAuthority", "ReadinessBucket", "KnownCoverageTag"):
        descriptions = enum_descriptions(WORKFLOW_SCHEMA, name)
        assert list(descriptions) == list(enum(WORKFLOW_SCHEMA, name))
        assert all(text for text in descriptions.values())


def test_editor_keywords_present() -> None:
    schema = load(WORKFLOW_SCHEMA)
    assert schema["defaultSnippets"][0]["body"]["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    case = definition(WORKFLOW_SCHEMA, "Case")
    assert {snippet["label"] for snippet in case["defaultSnippets"]} >= {"trigger case", "boundary case"}
    for name, member in case["properties"].items():
        assert member.get("description") or member.get("markdownDescription") or member.get("$ref"), name
    assert "markdownDescription" in case["properties"]["expected_outcome"]


def test_patterns_are_valid_javascript() -> None:
    for name in ("CoverageTag", "SourceRef"):
        assert check_regex(definition(WORKFLOW_SCHEMA, name)["pattern"], "u").ok, name


@pytest.mark.parametrize(
    "payload",
    [
        BASE,
        {"cases": []},
        {},
        [],
        "text",
        3,
        False,
        {
            "schema_version": "prompt-examples/v1",
            "examples": [
                {
                    "name": "A",
                    "user_intent": "u",
                    "expected_posture": "p",
                    "negative_signal": "n",
                    "context_snippets": [],
                }
            ],
        },
        {"cases": {"not": "an array"}, "examples": [1, "x", [], {}]},
        with_case({"coverage_tags": [5, "", " ", "\ufeff", None, "trigger"], "forbidden_signals": [3, {}]}),
        with_case({"coverage_tags": "trigger", "source_refs": "skills/demo/SKILL.md#a\\b"}),
        base(skill="", source_ref_authority=0),
        base(skill=None, source_ref_authority=None) | {"skill": False, "source_ref_authority": ""},
        with_case({"id": 3, "input": 5, "expected_outcome": {"a": [1]}, "extensions": "spread"}),
        base(source_refs=["HTTPS://x", "ftp://x", "C:/x", "docs/plans/nope.md", "../x", "x#"]),
    ],
)
def test_accepts_what_the_reference_accepts(validator: jsonschema.Draft202012Validator, payload: Any) -> None:
    assert list(validator.iter_errors(payload)) == []


@pytest.mark.parametrize(
    "payload",
    [
        None,
        {"cases": [None]},
        {"examples": [{}, None]},
        base(skill="  "),
        base(skill=5),
        base(source_ref_authority="bogus"),
        with_case({"source_ref_authority": ["source"]}),
        with_case({"coverage_tags": ["Trigger"]}),
        with_case({"coverage_tags": ["failure\n"]}),
        with_case({"coverage_tags": "Bad Tag"}),
        base(source_refs=["https://example.com"]),
        base(source_refs=["/abs"]),
        base(source_refs=["#frag"]),
        base(source_refs=["skills\\demo"]),
    ],
)
def test_rejects_what_the_reference_rejects(validator: jsonschema.Draft202012Validator, payload: Any) -> None:
    assert list(validator.iter_errors(payload)) != []


@pytest.mark.parametrize(
    "tag",
    [
        "trigger",
        "x",
        "1st-pass",
        "a--b",
        "failure-",
        "Trigger",
        "failure\n",
        "\u001f",
        "\uff11abc",
        "étiquette",
        "-x",
        " x",
    ],
)
def test_tag_pattern_agrees_with_the_rule(validator: jsonschema.Draft202012Validator, tag: str) -> None:
    accepted = not list(validator.iter_errors(with_case({"coverage_tags": [tag]})))
    assert accepted is (is_valid_tag(tag) or not js_trim(tag))
