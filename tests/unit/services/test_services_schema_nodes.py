"""The schema at a JSON path: refs, discriminated branches, items, enums and docs."""

from __future__ import annotations

import json

from evalfix_ls.contracts.detection import EVALS, WORKFLOW
from evalfix_ls.parser import parse
from evalfix_ls.schema import EVALS_SCHEMA, enum, load
from evalfix_ls.services.schema_nodes import schema_at


def at(kind: str, doc: object | str, *path):
    text = doc if isinstance(doc, str) else json.dumps(doc)
    return schema_at(kind, parse(text).root, path)


def test_setup_kind_enum_comes_from_the_schema() -> None:
    node = at(EVALS, {"evals": [{"setup": {"kind": "x"}}]}, "evals", 0, "setup", "kind")
    assert node.enum() == list(enum(EVALS_SCHEMA, "SetupKind"))
    descriptions = node.enum_descriptions()
    assert set(descriptions) == set(node.enum()) and all(descriptions.values())


def test_seeded_branch_is_selected_by_kind() -> None:
    seeded = at(EVALS, {"evals": [{"setup": {"kind": "seeded", "sources": []}}]}, "evals", 0, "setup")
    empty = at(EVALS, {"evals": [{"setup": {"kind": "empty"}}]}, "evals", 0, "setup")
    assert "sources" in seeded.required()
    assert "sources" not in empty.required()
    mount = at(
        EVALS, {"evals": [{"setup": {"kind": "seeded", "mountMode": "x"}}]}, "evals", 0, "setup", "mountMode"
    )
    assert "preserve-path" in mount.enum()


def test_fixture_kind_enum_reached_through_the_fixture_branch() -> None:
    doc = {"evals": [{"setup": {"kind": "fixture", "fixture": {"kind": "r"}}}]}
    assert at(EVALS, doc, "evals", 0, "setup", "fixture", "kind").enum() == ["repo", "docs", "api"]
    # without the discriminator the fixture ref is not reached
    other = {"evals": [{"setup": {"kind": "empty", "fixture": {"kind": "r"}}}]}
    assert at(EVALS, other, "evals", 0, "setup", "fixture", "kind").enum() == []


def test_assertion_union_keeps_branches_of_the_instance_type() -> None:
    obj = at(EVALS, {"evals": [{"assertions": [{"type": "regex-match"}]}]}, "evals", 0, "assertions", 0)
    assert {"type", "pattern", "target"} <= set(obj.properties())
    script_type = at(EVALS, {"evals": [{"assertions": [{"type": "x"}]}]}, "evals", 0, "assertions", 0, "type")
    assert set(script_type.enum()) >= {"file-exists", "regex-match", "json-valid"}
    string = at(EVALS, {"evals": [{"assertions": ["judged"]}]}, "evals", 0, "assertions", 0)
    assert "object" not in string.types()


def test_intent_methods_depend_on_kind() -> None:
    def methods(kind: str) -> set:
        doc = {"evals": [{"assertions": [{"kind": kind, "method": "m"}]}]}
        return set(at(EVALS, doc, "evals", 0, "assertions", 0, "method").enum())

    assert methods("output") and methods("workspace")
    assert methods("output") != methods("workspace")


def test_unknown_member_has_no_schema_and_unknown_kind_has_none() -> None:
    assert not at(EVALS, {"evals": [{"nope": {"deeper": 1}}]}, "evals", 0, "nope", "deeper")
    assert not at("unknown", {"a": 1}, "a")


def test_workflow_case_members_documented() -> None:
    case = at(WORKFLOW, {"cases": [{"id": "a"}]}, "cases", 0)
    props = case.properties()
    assert {"id", "input", "coverage_tags", "expected_outcome"} <= set(props)
    assert all(props[name].description() for name in ("id", "coverage_tags"))


def test_broken_document_still_reaches_the_enum() -> None:
    node = at(EVALS, '{"evals": [{"setup": {"kind": "em', "evals", 0, "setup", "kind")
    assert "empty" in node.enum()


def test_root_snippets_and_docs() -> None:
    root = at(EVALS, "{}")
    assert root.description() == load(EVALS_SCHEMA).get("markdownDescription")
    assert root.default_snippets() == load(EVALS_SCHEMA)["defaultSnippets"]
