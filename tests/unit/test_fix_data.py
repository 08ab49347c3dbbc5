"""The fix-data shapes (``contracts.fix_data``): what a rule writes into ``Finding.data`` — and the
editor receives as ``Diagnostic.data``, through JSON — reads back as the same shape."""

from __future__ import annotations

import json

import pytest

from evalfix_ls.contracts.fix_data import (
    EquivalentSetup,
    Missing,
    OneOf,
    Rename,
    RepeatedKey,
    Replacement,
    SiblingMember,
    StringAssertion,
    TagSuggestion,
    WrittenPath,
)

Shape = (
    OneOf
    | Missing
    | Replacement
    | SiblingMember
    | StringAssertion
    | EquivalentSetup
    | WrittenPath
    | TagSuggestion
    | Rename
    | RepeatedKey
)
SHAPES: list[Shape] = [
    OneOf(("assistant-text", {"file": "<path>"}), "assistant-text"),
    OneOf((True, False)),
    Missing("coverage_tags"),
    Replacement({"from": "files/样例 🧪"}),
    Replacement(["列出 v1"]),
    SiblingMember("sandbox", "just-bash"),
    StringAssertion("列出 v1 🧾"),
    EquivalentSetup({"kind": "seeded", "sources": [{"from": "files/a", "to": "files/a"}]}),
    WrittenPath("../SKILL.md"),
    TagSuggestion("Trigger Case", "trigger-case"),
    TagSuggestion("x!", None),
    Rename("prompt"),
    Rename("cases", 3, 13),
    RepeatedKey("id", False),
]


@pytest.mark.parametrize("shape", SHAPES, ids=repr)
def test_a_shape_reads_back_from_the_json_the_editor_gets(shape: Shape) -> None:
    data = json.loads(json.dumps(shape.fields()))
    assert type(shape).read(data) == shape


def test_data_of_the_wrong_types_reads_as_absent() -> None:
    assert OneOf.read({"allowed": "empty"}) is None
    assert Missing.read({"missing": 3}) is None
    assert Rename.read({"rename_to": "input", "key_start": "3", "key_end": 9}) == Rename("input")
    assert RepeatedKey.read({"key": "id"}) is None
    assert TagSuggestion.read({"tag": "x", "suggestion": 3}) is None
    assert SiblingMember.read({"set_member": "sandbox"}) is None
