"""The shipped workflow-fixture examples, checked as the README's command checks them (no
``--root``: each file's repository root is the directory holding its ``skills/``):
``examples/clean/skills/spec-demo`` is clean and ready, ``examples/broken/skills/spec-demo-broken``
reports exactly the planted problems (code, severity, 1-based line and UTF-16 column)."""

from __future__ import annotations

import json

from fixture_paths import ROOT
from jsonschema import Draft202012Validator

from evalfix_ls import schema
from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import check_paths

CLEAN = "examples/clean/skills/spec-demo/evals/"
BROKEN = "examples/broken/skills/spec-demo-broken/evals/"

PLANTED = {
    "cases.json": [
        ("missing_input", "error", 7, 37),
        ("missing_coverage_tags", "error", 8, 76),
        ("list_item_dropped", "warning", 8, 77),
        ("invalid_coverage_tag", "error", 9, 64),
        ("coverage_tag_near_miss", "hint", 9, 75),
        ("missing_expected_outcome", "error", 10, 112),
        ("legacy_alias_in_canonical", "hint", 10, 130),
        ("outcome_alias_shadowed", "warning", 10, 130),
        ("missing_boundary_evidence", "error", 11, 5),
        ("source_ref_missing", "error", 12, 152),
        ("source_ref_not_source_authority", "error", 12, 152),
        ("invalid_source_ref", "error", 12, 178),
        ("authority_overrides_inherited", "hint", 13, 149),
        ("invalid_source_ref_authority", "error", 13, 149),
        ("legacy_alias_in_canonical", "hint", 14, 15),
        ("missing_id", "error", 14, 15),
        ("duplicate_case_id", "error", 15, 13),
    ],
    "unreadable.json": [("fixture_unreadable", "error", 7, 5)],
    "zz-more-cases.json": [("duplicate_case_id", "error", 7, 13)],
}


def report(directory: str, *, readiness: bool = False) -> dict:
    return to_json(check_paths([ROOT / directory], cwd=ROOT, readiness=readiness), "test")


def test_clean_workflow_examples() -> None:
    out = report("examples/clean", readiness=True)
    mine = {f["path"]: f for f in out["files"] if f["path"].startswith(CLEAN)}
    assert sorted(mine) == [CLEAN + "examples.json", CLEAN + "trigger-cases.json"]
    for path, entry in mine.items():
        assert entry["kind"] == "workflow-fixture"
        assert entry["findings"] == [], path
    assert out["readiness"]["spec-demo"] == {
        "trigger": 3,
        "boundary": 3,
        "failure": 1,
        "expected": 1,
        "status": "ready",
        "fallback": [],
    }


def test_clean_examples_validate_against_the_schema() -> None:
    validator = Draft202012Validator(schema.load(schema.WORKFLOW_SCHEMA))
    for name in ("examples.json", "trigger-cases.json"):
        document = json.loads((ROOT / CLEAN / name).read_text(encoding="utf-8"))
        assert [error.message for error in validator.iter_errors(document)] == [], name


def test_broken_workflow_examples_report_exactly_the_planted_problems() -> None:
    out = report("examples/broken")
    found = {
        f["path"][len(BROKEN) :]: [
            (x["code"], x["severity"], x["range"]["start"]["line"] + 1, x["range"]["start"]["character"] + 1)
            for x in f["findings"]
        ]
        for f in out["files"]
        if f["path"].startswith(BROKEN)
    }
    assert found == PLANTED
    codes = {code for planted in PLANTED.values() for code, severity, _, _ in planted if severity == "error"}
    assert len(codes) >= 12  # all reference reason codes but missing_skill and missing_source_refs
