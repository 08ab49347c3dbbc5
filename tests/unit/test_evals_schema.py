"""schemas/evals.schema.json: a valid draft 2020-12 schema that accepts every shape the spec or the
loader accepts, rejects what both reject, and carries the editor keywords and enums the rules use."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from evals_support import findings_of
from jsonschema import Draft202012Validator

from evalfix_ls import schema
from evalfix_ls.contracts.evals import report as evals_report

SCHEMA = schema.load(schema.EVALS_SCHEMA)
VALIDATOR = Draft202012Validator(SCHEMA)
ENUM_DEFS = [
    "SetupKind",
    "MountMode",
    "FixtureKind",
    "ScriptAssertionType",
    "IntentKind",
    "IntentSeverity",
    "OutputMethod",
    "WorkspaceMethod",
    "BehaviorMethod",
    "SafetyMethod",
    "Sandbox",
    "Difficulty",
    "NetworkMode",
    "ToolMode",
]


def suite(**case: Any) -> dict[str, Any]:
    return {"skill_name": "demo", "evals": [{"id": "c", "prompt": "p", **case}]}


def valid(doc: Any) -> bool:
    return not list(VALIDATOR.iter_errors(doc))


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("name", ENUM_DEFS)
def test_enum_definitions_carry_descriptions(name: str) -> None:
    definition = schema.definition(schema.EVALS_SCHEMA, name)
    assert definition["enum"] and len(definition["enumDescriptions"]) == len(definition["enum"])
    assert definition["description"]


def test_rules_take_their_enums_from_the_schema() -> None:
    assert evals_report.SETUP_KINDS == ("empty", "seeded", "fixture")
    assert evals_report.LOADER_MOUNT_MODES == ("preserve-path", "flatten-contents")
    assert set(evals_report.INTENT_METHODS) == set(schema.enum(schema.EVALS_SCHEMA, "IntentKind"))
    assert evals_report.INTENT_METHODS["workspace"] == schema.enum(schema.EVALS_SCHEMA, "WorkspaceMethod")


ACCEPTED = [
    # the spec's forms (the loader rejects them: warnings)
    suite(setup={"kind": "seeded", "sources": ["files/a"], "mountMode": "flatten"}),
    suite(sandbox="just-bash", sandboxMocks=[{"command": "npm", "stdout": "", "exitCode": 0}]),
    # the loader's forms (not in the spec's type: hints)
    suite(
        setup={"kind": "seeded", "sources": [{"from": "files/a", "to": "."}], "mountMode": "flatten-contents"}
    ),
    suite(assertions=[{"id": "o", "kind": "output", "method": "judge", "prompt": "p"}]),
    suite(assertions=[{"id": "w", "kind": "workspace", "method": "snapshot-diff"}]),
    suite(
        assertions=[{"id": "w", "kind": "workspace", "method": "file-contains", "path": "a", "pattern": "x"}]
    ),
    suite(
        assertions=[
            {"type": "json-valid", "path": "a.json"},
            {"type": "regex-match", "pattern": "a", "flags": "im"},
        ]
    ),
    suite(setup={"kind": "fixture", "fixture": {"kind": "repo", "source": "r", "initGit": True, "env": {}}}),
    # what the loader lets through although a rule warns
    suite(sandbox="docker", sandboxMocks=[{"stdout": 1}]),
    suite(metadata={"difficulty": "extreme", "tags": [1], "intent": 2, "environment": {}}),
    suite(assertions=[{"id": "b", "kind": "behavior", "method": "command-forbidden", "value": "rm"}]),
    # numbers, empties, extra keys
    {"skill_name": "s", "evals": [{"id": -1.5, "prompt": " ", "name": "x", "expectations": []}]},
    {"skill_name": "s", "evals": [], "notes": "x", "$schema": "./evals.schema.json", "version": ""},
    suite(setup={"kind": "empty", "sources": 1}, files=[], assertions=[]),
    suite(assertions=[{"type": "file-exists", "path": "a", "kind": "nonsense"}]),
    suite(assertions=[{"type": "regex-match", "pattern": "a", "target": {"file": "", "extra": 1}}]),
]
REJECTED = [
    [],
    {"evals": []},
    {"skill_name": "", "evals": []},
    {"skill_name": "s"},
    suite(prompt=""),
    suite(id=None),
    suite(setup={"kind": "Empty"}),
    suite(setup={"kind": "seeded"}),
    suite(setup={"kind": "seeded", "sources": [1]}),
    suite(setup={"kind": "seeded", "sources": [], "mountMode": "FLATTEN"}),
    suite(setup={"kind": "fixture"}),
    suite(setup={"kind": "fixture", "fixture": {"kind": "git", "source": "r"}}),
    suite(files=[{"path": "a"}]),
    suite(assertions=[""]),
    suite(assertions=[1]),
    suite(assertions=[{"text": "a claim"}]),
    suite(assertions=[{"type": "File-Exists", "path": "a"}]),
    suite(assertions=[{"type": "file-exists"}]),
    suite(assertions=[{"type": "regex-match", "pattern": "a", "flags": "x"}]),
    suite(assertions=[{"type": "regex-match", "pattern": "a", "flags": "gg"}]),
    suite(assertions=[{"type": "regex-match", "pattern": "a", "target": "greeting.txt"}]),
    suite(assertions=[{"type": None, "id": "x", "kind": "output", "method": "judge"}]),
    suite(assertions=[{"id": "w", "kind": "workspace", "method": "exists", "path": "a"}]),
    suite(assertions=[{"id": "w", "kind": "workspace", "method": "file-exists"}]),
    suite(assertions=[{"id": "o", "kind": "output", "method": "exact"}]),
    suite(assertions=[{"id": "o", "kind": "output", "method": "judge", "severity": "warning"}]),
    suite(metadata=None),
]


@pytest.mark.parametrize("doc", ACCEPTED, ids=range(len(ACCEPTED)))
def test_schema_accepts_what_the_spec_or_the_loader_accepts(doc: Any) -> None:
    assert valid(doc), [e.message for e in VALIDATOR.iter_errors(doc)]
    assert not [f for f in findings_of(json.dumps(doc)) if f.severity.word == "error"]


@pytest.mark.parametrize("doc", REJECTED, ids=range(len(REJECTED)))
def test_schema_rejects_what_both_reject(doc: Any) -> None:
    assert not valid(doc)
    assert [f for f in findings_of(json.dumps(doc)) if f.severity.word == "error"]


def fill(body: Any) -> Any:
    """A snippet body with its placeholders replaced by their defaults (or 'x')."""
    if isinstance(body, dict):
        return {key: fill(value) for key, value in body.items()}
    if isinstance(body, list):
        return [fill(item) for item in body]
    if isinstance(body, str):
        body = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", body)
        body = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", body)
        return re.sub(r"\$\d+", "x", body)
    return body


def snippets(def_name: str) -> list[Any]:
    return [fill(s["body"]) for s in schema.definition(schema.EVALS_SCHEMA, def_name)["defaultSnippets"]]


def test_assertion_snippets_cover_every_family_and_are_valid() -> None:
    bodies = snippets("Assertion")
    families = {
        b["type"] if "type" in b else b.get("kind", "string")
        for b in (x if isinstance(x, dict) else {} for x in bodies)
    }
    assert {
        "file-exists",
        "regex-match",
        "json-valid",
        "output",
        "workspace",
        "behavior",
        "safety",
    } <= families
    assert any(isinstance(b, str) for b in bodies)
    doc = suite(assertions=bodies)
    assert valid(doc)
    assert not [f for f in findings_of(json.dumps(doc)) if f.severity.word == "error"]


def test_setup_snippets_cover_every_kind_and_are_valid() -> None:
    bodies = snippets("WorkspaceSetup")
    assert {b["kind"] for b in bodies} == set(evals_report.SETUP_KINDS)
    for body in bodies:
        doc = suite(setup=body)
        assert valid(doc)
        assert not [f for f in findings_of(json.dumps(doc)) if f.severity.word in ("error", "warning")]


def test_root_and_case_snippets_are_valid() -> None:
    [root] = [fill(s["body"]) for s in SCHEMA["defaultSnippets"]]
    assert valid(root)
    [case] = snippets("EvalCase")
    assert valid({"skill_name": "s", "evals": [case]})
