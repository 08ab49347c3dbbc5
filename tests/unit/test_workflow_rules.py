"""Reference reason codes (workflow-fixtures.md §5, §6, §8, §17): one failing and one passing case
per code, with the anchor pointer and the case index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from workflow_support import DELETE, base, errors, make_repo, with_case, write_and_analyze

from evalfix_ls.contracts.fix_data import OneOf
from evalfix_ls.contracts.workflow.normalize import normalize_file
from evalfix_ls.contracts.workflow.rules import case_errors
from evalfix_ls.parser import parse
from evalfix_ls.workspace.view import FileSystemView


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


BASE_CASE: dict[str, Any] = base()["cases"][0]


def three_cases(**top: Any) -> dict[str, Any]:
    payload = base(**top)
    payload["cases"] = [dict(payload["cases"][0], id=f"c{i}") for i in range(3)]
    return payload


FAILING: list[tuple[str, Any, list[tuple[str, str, int | None]]]] = [
    # missing_skill
    ("blank skill", base(skill="   "), [("missing_skill", "/skill", 0)]),
    ("numeric skill", base(skill=42), [("missing_skill", "/skill", 0)]),
    ("array skill", base(skill=["demo"]), [("missing_skill", "/skill", 0)]),
    ("object skill", base(skill={}), [("missing_skill", "/skill", 0)]),
    # missing_id
    (
        "name slugs to nothing",
        with_case({"id": DELETE, "name": "中文名称"}),
        [("missing_id", "/cases/0/name", 0)],
    ),
    ("punctuation name", with_case({"id": 7, "name": "!!!"}), [("missing_id", "/cases/0/name", 0)]),
    # missing_input
    ("empty input", with_case({"input": ""}), [("missing_input", "/cases/0/input", 0)]),
    ("BOM-only input", with_case({"input": "\ufeff"}), [("missing_input", "/cases/0/input", 0)]),
    ("nbsp input", with_case({"input": "\u00a0\u3000"}), [("missing_input", "/cases/0/input", 0)]),
    (
        "blank alias anchors at the first present alias",
        with_case({"input": DELETE, "intent": "  ", "user_intent": 5}),
        [("missing_input", "/cases/0/user_intent", 0)],
    ),
    ("no alias at all", with_case({"input": DELETE}), [("missing_input", "/cases/0", 0)]),
    ("prompt is no alias", with_case({"input": DELETE, "prompt": "x"}), [("missing_input", "/cases/0", 0)]),
    # missing_coverage_tags
    (
        "only dropped tags",
        with_case({"coverage_tags": [5, "", "\ufeff"]}),
        [("missing_coverage_tags", "/cases/0/coverage_tags", 0)],
    ),
    ("no tags anywhere", with_case({"coverage_tags": DELETE}), [("missing_coverage_tags", "/cases/0", 0)]),
    (
        "empty top-level tags",
        with_case({"coverage_tags": DELETE}, coverage_tags=[]),
        [("missing_coverage_tags", "/coverage_tags", 0)],
    ),
    (
        "object tags",
        with_case({"coverage_tags": {"trigger": True}}),
        [("missing_coverage_tags", "/cases/0/coverage_tags", 0)],
    ),
    # invalid_coverage_tag
    (
        "capitalised tag",
        with_case({"coverage_tags": ["Trigger"]}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/0", 0)],
    ),
    (
        "trailing newline",
        with_case({"coverage_tags": ["trigger", "failure\n"]}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/1", 0)],
    ),
    (
        "unit separator kept by trim",
        with_case({"coverage_tags": ["trigger", "\u001f"]}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/1", 0)],
    ),
    (
        "full-width digit",
        with_case({"coverage_tags": ["trigger", "\uff11abc"]}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/1", 0)],
    ),
    (
        "non-ASCII letter",
        with_case({"coverage_tags": ["trigger", "étiquette"]}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/1", 0)],
    ),
    (
        "scalar bad tag",
        with_case({"coverage_tags": "Bad Tag"}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags", 0)],
    ),
    (
        "leading dash",
        with_case({"coverage_tags": ["trigger", "-x"]}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/1", 0)],
    ),
    (
        "inherited bad tag repeats per case at the top-level element",
        three_cases(coverage_tags=["Bad Tag"]),
        [("invalid_coverage_tag", "/coverage_tags/0", i) for i in range(3)],
    ),
    # missing_source_refs
    ("no refs anywhere", base(source_refs=None), [("missing_source_refs", "/cases/0", 0)]),
    ("empty top-level refs", base(source_refs=[]), [("missing_source_refs", "/source_refs", 0)]),
    (
        "case refs empty, none on top",
        with_case({"source_refs": [None, 3]}, source_refs=None),
        [("missing_source_refs", "/cases/0/source_refs", 0)],
    ),
    (
        "inherited: every case",
        three_cases(source_refs=None),
        [("missing_source_refs", f"/cases/{i}", i) for i in range(3)],
    ),
    # invalid_source_ref_authority
    (
        "bogus top-level authority",
        base(source_ref_authority="bogus"),
        [("invalid_source_ref_authority", "/source_ref_authority", 0)],
    ),
    (
        "case value",
        with_case({"source_ref_authority": "Source"}),
        [("invalid_source_ref_authority", "/cases/0/source_ref_authority", 0)],
    ),
    (
        "falsy case value falls back to the bad top-level one",
        with_case({"source_ref_authority": ""}, source_ref_authority="bogus"),
        [("invalid_source_ref_authority", "/source_ref_authority", 0)],
    ),
    (
        "empty array is truthy",
        base(source_ref_authority=[]),
        [("invalid_source_ref_authority", "/source_ref_authority", 0)],
    ),
    # invalid_source_ref, source_ref_not_source_authority, source_ref_missing
    ("URL", base(source_refs=["https://example.com/x"]), [("invalid_source_ref", "/source_refs/0", 0)]),
    ("absolute", base(source_refs=["/etc/passwd"]), [("invalid_source_ref", "/source_refs/0", 0)]),
    ("UNC", base(source_refs=["//server/share"]), [("invalid_source_ref", "/source_refs/0", 0)]),
    (
        "backslash",
        base(source_refs=["skills\\demo\\SKILL.md"]),
        [("invalid_source_ref", "/source_refs/0", 0)],
    ),
    ("anchor only", base(source_refs=["#frag"]), [("invalid_source_ref", "/source_refs/0", 0)]),
    ("hash only", base(source_refs=["#"]), [("invalid_source_ref", "/source_refs/0", 0)]),
    (
        "invalid under historical too",
        base(source_refs=["http://x"], source_ref_authority="historical"),
        [("invalid_source_ref", "/source_refs/0", 0)],
    ),
    ("scalar ref", base(source_refs="/abs"), [("invalid_source_ref", "/source_refs", 0)]),
    (
        "plan under source",
        base(source_refs=["docs/plans/plan.md"]),
        [("source_ref_not_source_authority", "/source_refs/0", 0)],
    ),
    (
        "missing plan under source: both",
        base(source_refs=["docs/plans/nope.md"]),
        [
            ("source_ref_not_source_authority", "/source_refs/0", 0),
            ("source_ref_missing", "/source_refs/0", 0),
        ],
    ),
    (
        "mirror",
        base(source_refs=[".claude/skills/demo/SKILL.md"]),
        [("source_ref_not_source_authority", "/source_refs/0", 0)],
    ),
    (
        "bare plans dir with slash",
        base(source_refs=["docs/plans/"]),
        [("source_ref_not_source_authority", "/source_refs/0", 0)],
    ),
    (
        "missing file",
        base(source_refs=["skills/demo/NOPE.md"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "file with trailing slash",
        base(source_refs=["skills/demo/SKILL.md/"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "uppercase URL is a path",
        base(source_refs=["HTTPS://example.com"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "leading space",
        base(source_refs=[" skills/demo/SKILL.md"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "query string",
        base(source_refs=["skills/demo/SKILL.md?x=1"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "wrong letter case",
        base(source_refs=["skills/demo/skill.md"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "embedded NUL",
        base(source_refs=["skills/demo/SKILL.md\u0000"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "case ref after inherited ones",
        with_case({"source_refs": ["skills/demo/gone.md"]}),
        [("source_ref_missing", "/cases/0/source_refs/0", 0)],
    ),
    # missing_expected_outcome
    (
        "trigger without outcome",
        with_case({"expected_outcome": DELETE}),
        [("missing_expected_outcome", "/cases/0", 0)],
    ),
    (
        "null outcome shadows a later alias",
        with_case({"expected_outcome": None, "expected": "x"}),
        [("missing_expected_outcome", "/cases/0/expected_outcome", 0)],
    ),
    (
        "empty outcome shadows expected_posture",
        with_case({"expected_outcome": "", "expected_posture": "x"}),
        [("missing_expected_outcome", "/cases/0/expected_outcome", 0)],
    ),
    (
        "trigger and expected: two errors",
        with_case({"expected_outcome": ["", {"a": ""}], "coverage_tags": ["trigger", "expected"]}),
        [("missing_expected_outcome", "/cases/0/expected_outcome", 0)] * 2,
    ),
    (
        "empty composite anchors at its first starter",
        with_case({"expected_outcome": DELETE, "expected_output": "", "expected_failure": None}),
        [("missing_expected_outcome", "/cases/0/expected_failure", 0)],
    ),
    (
        "next_action alone starts no composite",
        with_case({"expected_outcome": DELETE, "expected_next_action": "x"}),
        [("missing_expected_outcome", "/cases/0", 0)],
    ),
    (
        "expected_result is no alias",
        with_case({"expected_outcome": DELETE, "expected_result": "x"}),
        [("missing_expected_outcome", "/cases/0", 0)],
    ),
    (
        "numbers are empty",
        with_case({"expected_outcome": [0, True, None]}),
        [("missing_expected_outcome", "/cases/0/expected_outcome", 0)],
    ),
    # missing_boundary_evidence
    (
        "boundary without evidence",
        with_case({"coverage_tags": ["boundary"], "expected_outcome": DELETE, "forbidden_signals": [""]}),
        [("missing_boundary_evidence", "/cases/0", 0)],
    ),
    (
        "trigger, expected and boundary: three errors",
        with_case({"coverage_tags": ["trigger", "expected", "boundary"], "expected_outcome": DELETE}),
        [("missing_expected_outcome", "/cases/0", 0)] * 2 + [("missing_boundary_evidence", "/cases/0", 0)],
    ),
    (
        "boundary evidence inside extensions counts for nothing",
        with_case(
            {"coverage_tags": ["boundary"], "expected_outcome": DELETE, "extensions": {"boundary_note": "x"}}
        ),
        [("missing_boundary_evidence", "/cases/0", 0)],
    ),
    # duplicate_case_id (within one file; across files: test_workflow_index.py)
    (
        "repeated id",
        {**base(), "cases": [BASE_CASE, dict(BASE_CASE)]},
        [("duplicate_case_id", "/cases/1/id", 1)],
    ),
    (
        "slug collides with an explicit id",
        {**base(), "cases": [BASE_CASE, dict(BASE_CASE, id=None, name="Plan Request!")]},
        [("duplicate_case_id", "/cases/1/name", 1)],
    ),
    (
        "explicit case-2 collides with the second id-less case",
        {**base(), "cases": [dict(BASE_CASE, id="case-2"), dict(BASE_CASE, id="  ")]},
        [("duplicate_case_id", "/cases/1", 1)],
    ),
    (
        "two empty slugs: missing_id each and one duplicate",
        {**base(), "cases": [dict(BASE_CASE, id=None, name="!!!"), dict(BASE_CASE, id=None, name="中文")]},
        [
            ("missing_id", "/cases/0/name", 0),
            ("missing_id", "/cases/1/name", 1),
            ("duplicate_case_id", "/cases/1/name", 1),
        ],
    ),
    # fixture_unreadable (the only finding of the file)
    ("null root", None, [("fixture_unreadable", "", None)]),
    (
        "null case element",
        {**base(skill=5, source_refs=None), "cases": [{"input": ""}, None, None]},
        [("fixture_unreadable", "/cases/1", None)],
    ),
    (
        "String(skill) throws",
        base(skill={"toString": "x"}),
        [("fixture_unreadable", "/skill", None)],
    ),
]

PASSING: list[tuple[str, Any]] = [
    ("clean canonical file", base()),
    ("skill inferred from the path", base(skill=None)),
    ("falsy skills are inferred", base(skill="")),
    ("null skill", base(skill=None) | {"skill": None}),
    ("false skill", base(skill=False)),
    ("zero skill", base(skill=0)),
    ("id from name", with_case({"id": DELETE, "name": "  Plan the Work  "})),
    ("numeric id falls back", with_case({"id": 12})),
    ("blank name falls back to position", with_case({"id": DELETE, "name": "\ufeff"})),
    ("non-string input then alias", with_case({"input": 3, "user_intent": "u"})),
    ("empty input then alias", with_case({"input": "", "input_shape": "u"})),
    ("unit separator is not blank", with_case({"input": "\u001f"})),
    ("NEL is not blank", with_case({"input": "\u0085"})),
    ("zero-width space is not blank", with_case({"input": "\u200b"})),
    ("scalar tag", with_case({"coverage_tags": "trigger"})),
    (
        "dropped items beside a good tag",
        with_case({"coverage_tags": ["trigger", 5, None, "", "\ufeff", ["x"]]}),
    ),
    ("odd but valid tags", with_case({"coverage_tags": ["trigger", "failure-", "a--b", "1st-pass", "x"]})),
    ("inherited tags", with_case({"coverage_tags": DELETE}, coverage_tags=["trigger"])),
    ("case-level refs only", with_case({"source_refs": ["skills/demo/SKILL.md"]}, source_refs=None)),
    ("scalar ref", base(source_refs="skills/demo/SKILL.md")),
    ("falsy authorities default to source", base(source_ref_authority="")),
    ("null authority", base(source_ref_authority=False)),
    ("zero authority", base(source_ref_authority=0)),
    ("historical", base(source_ref_authority="historical", source_refs=["docs/plans/nope.md", ".codex/x"])),
    ("advisory", base(source_ref_authority="advisory", source_refs=["HTTPS://x", "mailto:a@b"])),
    ("anchors", base(source_refs=["skills/demo/SKILL.md#Section", "skills/demo/SKILL.md#a#b"])),
    ("directories exist", base(source_refs=["skills/demo/", "skills", "."])),
    ("§6: '..' exists (a warning, no error)", base(source_refs=["skills/demo/SKILL.md", ".."])),
    ("dot after a file", base(source_refs=["skills/demo/SKILL.md/."])),
    ("dot-dot inside", base(source_refs=["skills/demo/../demo/SKILL.md", "skills//demo///SKILL.md"])),
    (
        "prefixes need the raw slash",
        base(source_refs=["./docs/plans/plan.md", "skills/../docs/plans/plan.md"]),
    ),
    ("drive-letter path that exists", base(source_refs=["C:/x.md"])),
    ("outcome array", with_case({"expected_outcome": [[""], ["x"]]})),
    ("outcome object", with_case({"expected_outcome": {"a": {"b": "x"}, "c": ""}})),
    ("expected alias", with_case({"expected_outcome": DELETE, "expected": ["x"]})),
    (
        "composite carried by next_action",
        with_case({"expected_outcome": DELETE, "expected_decision": "", "expected_next_action": "x"}),
    ),
    ("failure needs nothing", with_case({"coverage_tags": ["failure"], "expected_outcome": DELETE})),
    (
        "boundary note",
        with_case({"coverage_tags": ["boundary"], "expected_outcome": DELETE, "boundary_note": "out"}),
    ),
    (
        "scalar forbidden signal",
        with_case({"coverage_tags": ["boundary"], "expected_outcome": DELETE, "forbidden_signals": "x"}),
    ),
    (
        "negative signal",
        with_case({"coverage_tags": ["boundary"], "expected_outcome": DELETE, "negative_signal": "x"}),
    ),
    ("distinct ids", {**base(), "cases": [BASE_CASE, dict(BASE_CASE, id="plan-request-2")]}),
    ("ids differ in case", {**base(), "cases": [BASE_CASE, dict(BASE_CASE, id="Plan-Request")]}),
    ("top-level array", [1, 2]),
    ("top-level string", "x"),
    ("top-level false", False),
    ("empty object", {}),
    ("non-array cases and examples", {"cases": {"a": 1}, "examples": None}),
    ("null element in the ignored array", {**base(), "examples": [None]}),
    ("empty cases beats examples", {**base(), "cases": [], "examples": [{"input": ""}]}),
    ("toString inside extensions is harmless", with_case({"extensions": {"toString": 1}})),
]


@pytest.mark.parametrize(("label", "payload", "expected"), FAILING, ids=[row[0] for row in FAILING])
def test_failing(repo: Path, label: str, payload: Any, expected: list[tuple[str, str, int | None]]) -> None:
    analysis = write_and_analyze(repo, json.dumps(payload, ensure_ascii=False))
    assert sorted(errors(analysis), key=str) == sorted(expected, key=str), label


@pytest.mark.parametrize(("label", "payload"), PASSING, ids=[row[0] for row in PASSING])
def test_passing(repo: Path, label: str, payload: Any) -> None:
    analysis = write_and_analyze(repo, json.dumps(payload, ensure_ascii=False))
    assert errors(analysis) == [], label


def test_missing_skill_outside_the_skills_layout(repo: Path) -> None:
    analysis = write_and_analyze(repo, base(skill=None), rel="fixtures/cases.json")
    assert analysis.kind == "workflow-fixture"
    assert errors(analysis) == [("missing_skill", "", 0)]
    finding = analysis.findings[0]
    assert (finding.start, finding.end) == (0, 1)  # the root's opening brace


def test_invalid_json_is_the_only_error(repo: Path) -> None:
    analysis = write_and_analyze(repo, '{"cases": [1,]}')
    assert [code for code, _, _ in errors(analysis)] == ["invalid_json"]


@pytest.mark.parametrize("text", ["\ufeff{}", '{"a": NaN}', "", "  ", '{"a": 1} {}', "// c\n{}"])
def test_json_parse_rejects(repo: Path, text: str) -> None:
    assert [code for code, _, _ in errors(write_and_analyze(repo, text))] == ["invalid_json"]


@pytest.mark.parametrize(
    ("authority", "message"),
    [
        ({"a": 1}, "invalid source_ref_authority: [object Object]"),
        (["x", "y"], "invalid source_ref_authority: x,y"),
        ([], "invalid source_ref_authority: "),
        (True, "invalid source_ref_authority: true"),
        (1.5e21, "invalid source_ref_authority: 1.5e+21"),
        ("Source", "invalid source_ref_authority: Source"),
    ],
)
def test_authority_message_uses_js_string(repo: Path, authority: Any, message: str) -> None:
    finding = next(
        f
        for f in write_and_analyze(repo, base(source_ref_authority=authority)).findings
        if f.code.startswith("invalid_source_ref_a")
    )
    assert finding.message == message
    assert OneOf.read(finding.data) == OneOf(("source", "historical", "advisory"))


def test_ref_errors_in_reference_order(repo: Path) -> None:
    """§6 example: one source-authority case, every ref kind, errors in union order."""
    refs = ["https://a.example", "docs/plans/nope.md", "/abs", "skills/x\\y", "missing/file.md", "#frag"]
    text = json.dumps(base(source_refs=refs))
    normalized = normalize_file(parse(text).root, "skills/demo/evals/cases.json")
    found = [(f.code, f.pointer) for f in case_errors(normalized.cases[0], repo, FileSystemView())]
    assert found == [
        ("invalid_source_ref", "/source_refs/0"),
        ("source_ref_not_source_authority", "/source_refs/1"),
        ("source_ref_missing", "/source_refs/1"),
        ("invalid_source_ref", "/source_refs/2"),
        ("invalid_source_ref", "/source_refs/3"),
        ("source_ref_missing", "/source_refs/4"),
        ("invalid_source_ref", "/source_refs/5"),
    ]


def test_error_order_within_a_case(repo: Path) -> None:
    """§15: skill, id, input, tags, refs missing, authority, each ref, trigger, expected, boundary."""
    payload = {
        "skill": "  ",
        "source_ref_authority": "bogus",
        "cases": [
            {
                "name": "!!!",
                "coverage_tags": ["trigger", "expected", "boundary", "Bad"],
                "source_refs": ["/abs"],
            }
        ],
    }
    normalized = normalize_file(parse(json.dumps(payload)).root, "skills/demo/evals/cases.json")
    found = [f.code for f in case_errors(normalized.cases[0], repo, FileSystemView())]
    assert found == [
        "missing_skill",
        "missing_id",
        "missing_input",
        "invalid_coverage_tag",
        "invalid_source_ref_authority",
        "invalid_source_ref",
        "missing_expected_outcome",
        "missing_expected_outcome",
        "missing_boundary_evidence",
    ]


def test_refs_union_top_level_first_and_deduplicated(repo: Path) -> None:
    payload = with_case(
        {"source_refs": ["skills/demo/gone.md", "/abs"]}, source_refs=["/abs", "skills/demo/SKILL.md"]
    )
    found = errors(write_and_analyze(repo, payload))
    # "/abs" appears in both lists: the union keeps the top-level occurrence, once.
    assert found == [
        ("invalid_source_ref", "/source_refs/0", 0),
        ("source_ref_missing", "/cases/0/source_refs/0", 0),
    ]


def test_case_authority_replaces_and_governs_inherited_refs(repo: Path) -> None:
    payload = with_case({"source_ref_authority": "historical"}, source_refs=["docs/plans/nope.md"])
    assert errors(write_and_analyze(repo, payload)) == []
    payload = with_case(
        {"source_ref_authority": "source"},
        source_refs=["docs/plans/nope.md"],
        source_ref_authority="advisory",
    )
    assert sorted(code for code, _, _ in errors(write_and_analyze(repo, payload))) == [
        "source_ref_missing",
        "source_ref_not_source_authority",
    ]


def test_invalid_authority_skips_prefix_and_existence_checks(repo: Path) -> None:
    payload = base(source_ref_authority="bogus", source_refs=["docs/plans/nope.md"])
    assert [code for code, _, _ in errors(write_and_analyze(repo, payload))] == [
        "invalid_source_ref_authority"
    ]


def test_non_object_case_elements(repo: Path) -> None:
    payload = {"skill": "demo", "source_refs": ["skills/demo/SKILL.md"], "cases": ["text", 3, [1], {}, True]}
    found = errors(write_and_analyze(repo, payload))
    expected = []
    for i in range(5):
        expected += [("missing_input", f"/cases/{i}", i), ("missing_coverage_tags", f"/cases/{i}", i)]
    assert sorted(found) == sorted(expected)


def test_examples_array_and_pointer(repo: Path) -> None:
    payload = base(cases=None) | {"examples": [{"id": "a", "user_intent": "", "coverage_tags": ["failure"]}]}
    assert errors(write_and_analyze(repo, payload)) == [("missing_input", "/examples/0/user_intent", 0)]


def test_duplicate_member_names_last_wins(repo: Path) -> None:
    text = json.dumps(base())[:-1] + ', "cases": [{"id": "x", "input": "", "coverage_tags": ["failure"]}]}'
    analysis = write_and_analyze(repo, text)
    assert errors(analysis) == [("missing_input", "/cases/0/input", 0)]
    assert [f.code for f in analysis.findings if f.code == "duplicate_json_key"] == ["duplicate_json_key"] * 2


def test_unsaved_buffer_skips_existence(repo: Path) -> None:
    from evalfix_ls.analysis import analyze

    analysis = analyze(json.dumps(base(source_refs=["skills/demo/NOPE.md", "/abs"])), explicit=True)
    assert errors(analysis) == [("invalid_source_ref", "/source_refs/1", 0)]


def test_finding_ranges(repo: Path) -> None:
    text = json.dumps(with_case({"coverage_tags": ["Bad"], "expected_outcome": DELETE}))
    analysis = write_and_analyze(repo, text)
    (tag,) = [f for f in analysis.findings if f.code == "invalid_coverage_tag"]
    assert text[tag.start : tag.end] == '"Bad"'
    assert tag.message == "invalid coverage tag: Bad"


def test_messages_start_with_the_reference_message(repo: Path) -> None:
    payload = {**base(), "cases": [BASE_CASE, dict(BASE_CASE)]}
    (dup,) = [f for f in write_and_analyze(repo, payload).findings if f.code == "duplicate_case_id"]
    assert dup.message.startswith("duplicate case id for demo: plan-request")
    assert dup.data["previous_source_file"] == "skills/demo/evals/cases.json"
    assert dup.related and dup.related[0].path is None
