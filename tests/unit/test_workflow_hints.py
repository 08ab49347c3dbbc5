"""Warnings and hints beyond the reference (workflow-fixtures.md §14): each row fires where it
should, never as an error, and stays quiet on the clean shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from workflow_support import DELETE, base, errors, make_repo, non_errors, with_case, write_and_analyze

from evalfix_ls.contracts.workflow.hints import edit_distance
from evalfix_ls.findings import Severity


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def legacy(**top: Any) -> dict[str, Any]:
    return base(schema_version="legacy/v1", **top)


ROWS: list[tuple[str, Any, tuple[str, str, int | None]]] = [
    (
        "list_item_dropped",
        with_case({"coverage_tags": ["trigger", 5]}),
        ("list_item_dropped", "/cases/0/coverage_tags/1", 0),
    ),
    (
        "list_item_dropped top",
        base(source_refs=["skills/demo/SKILL.md", ""]),
        ("list_item_dropped", "/source_refs/1", None),
    ),
    (
        "list_item_dropped signals",
        with_case({"negative_signal": [None]}),
        ("list_item_dropped", "/cases/0/negative_signal/0", 0),
    ),
    (
        "list_value_ignored",
        with_case({"forbidden_signals": {"a": "b"}}),
        ("list_value_ignored", "/cases/0/forbidden_signals", 0),
    ),
    (
        "list_value_ignored blank",
        with_case({"coverage_tags": ["trigger"], "source_refs": "  "}),
        ("list_value_ignored", "/cases/0/source_refs", 0),
    ),
    (
        "outcome_alias_shadowed",
        with_case({"coverage_tags": ["failure"], "expected_outcome": "", "expected_posture": "x"}),
        ("outcome_alias_shadowed", "/cases/0/expected_posture", 0),
    ),
    (
        "outcome_alias_shadowed composite",
        with_case({"coverage_tags": ["failure"], "expected_outcome": None, "expected_decision": "d"}),
        ("outcome_alias_shadowed", "/cases/0/expected_decision", 0),
    ),
    (
        "case_array_shadowed examples",
        base() | {"examples": [{"id": "x"}]},
        ("case_array_shadowed", "/examples", None),
    ),
    (
        "case_array_shadowed cases",
        base(cases=None) | {"cases": {"a": 1}, "examples": base()["cases"]},
        ("case_array_shadowed", "/cases", None),
    ),
    (
        "authority_overrides_inherited",
        with_case({"source_ref_authority": "advisory"}),
        ("authority_overrides_inherited", "/cases/0/source_ref_authority", 0),
    ),
    (
        "authority_defaulted case",
        with_case({"source_ref_authority": ""}),
        ("authority_defaulted", "/cases/0/source_ref_authority", 0),
    ),
    (
        "authority_defaulted top",
        base(source_ref_authority=False),
        ("authority_defaulted", "/source_ref_authority", None),
    ),
    (
        "source_ref_url_like",
        base(source_ref_authority="advisory", source_refs=["HTTPS://x.example"]),
        ("source_ref_url_like", "/source_refs/0", None),
    ),
    (
        "source_ref_url_like mailto",
        with_case({"source_refs": ["MailTo:a@b"], "source_ref_authority": "advisory"}),
        ("source_ref_url_like", "/cases/0/source_refs/0", 0),
    ),
    (
        "source_ref_windows_path",
        base(source_refs=["C:/x.md"]),
        ("source_ref_windows_path", "/source_refs/0", None),
    ),
    (
        "source_ref_mirror_unnormalized",
        base(source_refs=["./docs/plans/plan.md"]),
        ("source_ref_mirror_unnormalized", "/source_refs/0", None),
    ),
    (
        "source_ref_mirror_unnormalized case",
        base(source_refs=["Docs/Plans/plan.md"]),
        ("source_ref_mirror_unnormalized", "/source_refs/0", None),
    ),
    (
        "source_ref_mirror_unnormalized bare",
        base(source_refs=["docs/plans"]),
        ("source_ref_mirror_unnormalized", "/source_refs/0", None),
    ),
    (
        "source_ref_outside_repo",
        base(source_refs=["skills/demo/SKILL.md", ".."]),
        ("source_ref_outside_repo", "/source_refs/1", None),
    ),
    (
        "historical_without_source_anchor",
        base(source_ref_authority="historical", source_refs=["docs/plans/plan.md"]),
        ("historical_without_source_anchor", "/source_ref_authority", None),
    ),
    (
        "historical_without_source_anchor case",
        with_case(
            {"source_ref_authority": "advisory", "source_refs": ["docs/validation/run.md"]}, source_refs=None
        ),
        ("historical_without_source_anchor", "/cases/0/source_ref_authority", 0),
    ),
    ("id_synthesized position", with_case({"id": DELETE}), ("id_synthesized", "/cases/0", 0)),
    (
        "id_synthesized name",
        legacy() | {"cases": [with_case({"id": DELETE, "name": "A B"})["cases"][0]]},
        ("id_synthesized", "/cases/0/name", 0),
    ),
    ("id_synthesized blank id", with_case({"id": " "}), ("id_synthesized", "/cases/0/id", 0)),
    (
        "legacy_alias_in_canonical examples",
        base(cases=None) | {"examples": base()["cases"]},
        ("legacy_alias_in_canonical", "/examples", None),
    ),
    (
        "legacy_alias_in_canonical user_intent",
        with_case({"input": DELETE, "user_intent": "u"}),
        ("legacy_alias_in_canonical", "/cases/0/user_intent", 0),
    ),
    (
        "legacy_alias_in_canonical negative_signal",
        with_case({"negative_signal": "x"}),
        ("legacy_alias_in_canonical", "/cases/0/negative_signal", 0),
    ),
    (
        "legacy_alias_in_canonical name",
        with_case({"id": DELETE, "name": "Plan it"}),
        ("legacy_alias_in_canonical", "/cases/0/name", 0),
    ),
    (
        "coverage_tag_near_miss",
        with_case({"coverage_tags": ["trigger", "boundry"]}),
        ("coverage_tag_near_miss", "/cases/0/coverage_tags/1", 0),
    ),
    (
        "coverage_tag_near_miss top",
        base(coverage_tags=["triggers"]),
        ("coverage_tag_near_miss", "/coverage_tags/0", None),
    ),
    ("skill_dir_mismatch", base(skill="other"), ("skill_dir_mismatch", "/skill", None)),
    (
        "extensions_field_ignored",
        with_case({"extensions": {"boundary_note": "x", "mine": 1}}),
        ("extensions_field_ignored", "/cases/0/extensions/boundary_note", 0),
    ),
    (
        "extensions_not_object",
        with_case({"extensions": "ab"}),
        ("extensions_not_object", "/cases/0/extensions", 0),
    ),
    (
        "tags_without_cases",
        base(cases=None, coverage_tags=["trigger", "boundary"]),
        ("tags_without_cases", "/coverage_tags", None),
    ),
    (
        "failure_without_expected",
        with_case({"coverage_tags": ["failure"], "expected_outcome": DELETE}),
        ("failure_without_expected", "/cases/0", 0),
    ),
]

EXPECTED_SEVERITY = {
    "list_item_dropped": Severity.WARNING,
    "list_value_ignored": Severity.WARNING,
    "outcome_alias_shadowed": Severity.WARNING,
    "case_array_shadowed": Severity.WARNING,
    "source_ref_outside_repo": Severity.WARNING,
    "skill_dir_mismatch": Severity.INFORMATION,
}


@pytest.mark.parametrize(("label", "payload", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_row_fires(repo: Path, label: str, payload: Any, expected: tuple[str, str, int | None]) -> None:
    analysis = write_and_analyze(repo, payload)
    assert expected in non_errors(analysis), label
    (finding,) = [f for f in analysis.findings if (f.code, f.pointer, f.case) == expected]
    assert finding.severity == EXPECTED_SEVERITY.get(finding.code, Severity.HINT)


@pytest.mark.parametrize(
    ("label", "payload"),
    [
        ("clean", base()),
        ("falsy skill inferred", base(skill="")),
        (
            "legacy names in a legacy file",
            legacy(cases=None)
            | {
                "examples": [
                    {"id": "a", "user_intent": "u", "coverage_tags": ["trigger"], "expected_posture": "p"}
                ]
            },
        ),
        ("id alongside name in a canonical file", with_case({"name": "Other Name"})),
        ("same authority as the file", with_case({"source_ref_authority": "source"})),
        (
            "case authority without file refs",
            with_case(
                {"source_ref_authority": "historical", "source_refs": ["skills/demo/SKILL.md"]},
                source_refs=None,
            ),
        ),
        (
            "historical with a source anchor",
            base(
                source_ref_authority="historical", source_refs=["docs/plans/plan.md", "skills/demo/SKILL.md"]
            ),
        ),
        ("lowercase URL is an error, not a hint", base(source_refs=["https://x"])),
        (
            "failure with a boundary note",
            with_case({"coverage_tags": ["failure"], "expected_outcome": DELETE, "boundary_note": "x"}),
        ),
        (
            "well-formed other tags",
            with_case({"coverage_tags": ["trigger", "routing", "p0-pack", "fallback", "planning"]}),
        ),
        ("null extensions", with_case({"extensions": None})),
        ("empty examples beside cases", base() | {"examples": []}),
        ("top-level tags with cases", base(coverage_tags=["routing"])),
    ],
)
def test_quiet(repo: Path, label: str, payload: Any) -> None:
    analysis = write_and_analyze(repo, payload)
    assert non_errors(analysis) == [], label


def test_hints_never_error(repo: Path) -> None:
    """A file the reference accepts gets no error, however many hints it collects."""
    payload = legacy(source_ref_authority="") | {
        "examples": [
            {
                "name": "Plan It",
                "user_intent": "u",
                "coverage_tags": ["trigger", 3, "triggers"],
                "expected_outcome": "",
                "expected": "x",
                "source_refs": ["./skills/demo/SKILL.md"],
                "extensions": "ab",
            }
        ],
        "cases": None,
    }
    analysis = write_and_analyze(repo, payload)
    assert errors(analysis) == [("missing_expected_outcome", "/examples/0/expected_outcome", 0)]
    payload["examples"][0]["expected_outcome"] = "y"
    analysis = write_and_analyze(repo, payload)
    assert errors(analysis) == []
    assert {f.code for f in analysis.findings} >= {
        "list_item_dropped",
        "coverage_tag_near_miss",
        "extensions_not_object",
    }


def test_inherited_hint_is_reported_once(repo: Path) -> None:
    payload = base(source_refs=["C:/x.md"]) | {
        "cases": [dict(base()["cases"][0], id=f"c{i}") for i in range(4)]
    }
    analysis = write_and_analyze(repo, payload)
    assert [f.case for f in analysis.findings if f.code == "source_ref_windows_path"] == [None]


def test_outcome_shadow_points_at_the_winner(repo: Path) -> None:
    payload = with_case({"coverage_tags": ["failure"], "expected_outcome": "", "expected_signal": "x"})
    text = json.dumps(payload)
    (finding,) = [f for f in write_and_analyze(repo, text).findings if f.code == "outcome_alias_shadowed"]
    related = finding.related[0]
    assert text[related.start : related.end] == '""'


def test_legacy_rename_data(repo: Path) -> None:
    text = json.dumps(with_case({"input": DELETE, "user_intent": "u"}))
    (finding,) = [f for f in write_and_analyze(repo, text).findings if f.code == "legacy_alias_in_canonical"]
    assert finding.data["rename_to"] == "input"
    assert text[finding.data["key_start"] : finding.data["key_end"]] == '"user_intent"'


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("trigger", "triggers", 1), ("boundry", "boundary", 1), ("fallback", "failure", 5), ("", "ab", 2)],
)
def test_edit_distance(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance
