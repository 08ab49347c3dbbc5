"""Conformance with the real spec-first repository (``../shared/corpus/spec-first``): the reference
verdicts and readiness recorded in ``expected.json``, the hints the corpus README lists, and
mutations of a materialised copy. Skipped when the corpus is absent."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fixture_paths import CORPUS, materialize

from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import Report, check_paths
from evalfix_ls.contracts.detection import WORKFLOW
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.contracts.workflow.readiness import skill_readiness
from evalfix_ls.contracts.workflow.rules import case_errors
from evalfix_ls.schema import WORKFLOW_SCHEMA, load
from evalfix_ls.workspace.view import FileSystemView

pytestmark = pytest.mark.corpus
SPEC_FIRST = CORPUS / "spec-first"
EXPECTED_HINTS = Counter(
    {
        ("skills/spec-write-tasks/evals/output-quality-cases.json", "authority_overrides_inherited"): 2,
        ("skills/spec-write-tasks/evals/yao-trigger-cases.json", "tags_without_cases"): 1,
    }
)
FIRST_WAVE = ("spec-plan", "spec-code-review", "spec-debug", "spec-compound")


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    if not SPEC_FIRST.is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    return json.loads((SPEC_FIRST / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checkout(expected: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository rebuilt from tree.txt (read-only for the tests that share it)."""
    root = materialize(SPEC_FIRST, tmp_path_factory.mktemp("spec-first"))
    (root / ".git").mkdir()
    return root


@pytest.fixture(scope="module")
def report(checkout: Path) -> Report:
    return check_paths([checkout], root=checkout, readiness=True)


@pytest.fixture
def copy(checkout: Path, tmp_path: Path) -> Path:
    """A private copy to mutate."""
    return Path(shutil.copytree(checkout, tmp_path / "repo", symlinks=True))


def errors_by_file(repo: Path) -> dict[str, list[tuple[str, str, int | None]]]:
    out = to_json(check_paths([repo], root=repo), "test")
    return {
        f["path"]: [(x["code"], x["pointer"], x["case"]) for x in f["findings"] if x["severity"] == "error"]
        for f in out["files"]
    }


def only_errors(found: dict[str, list], path: str) -> list:
    """The errors of ``path``, after asserting that every other file is still clean."""
    others = {name: errs for name, errs in found.items() if name != path and errs}
    assert others == {}
    return found[path]


def test_reference_verdicts(expected: dict[str, Any], report: Report) -> None:
    out = to_json(report, "test")
    assert [f["path"] for f in out["files"]] == [entry["file"] for entry in expected["files"]]
    assert all(f["kind"] == WORKFLOW for f in out["files"])
    assert out["summary"]["files"] == expected["totals"]["files"] == 29
    assert (out["summary"]["errors"], out["summary"]["warnings"], out["summary"]["information"]) == (0, 0, 0)
    hints = Counter((f["path"], x["code"]) for f in out["files"] for x in f["findings"])
    assert hints == EXPECTED_HINTS
    for file, entry in zip(report.files, expected["files"], strict=True):
        normalized = file.analysis.workflow
        assert len(normalized.cases) == entry["cases"], entry["file"]
        if entry["cases"]:
            assert {case.normalized_from for case in normalized.cases} == {entry["normalized_from"]}
        assert ("canonical" if normalized.canonical else "legacy_adapter") == entry["normalized_from"]
    assert sum(len(f.analysis.workflow.cases) for f in report.files) == expected["totals"]["cases"]


def test_readiness_summary(expected: dict[str, Any], report: Report) -> None:
    want = {}
    for skill_dir, entry in expected["readiness_by_skill_dir"].items():
        buckets = entry["buckets"]
        want[skill_dir] = {name: len(bucket["case_ids"]) for name, bucket in buckets.items()}
        want[skill_dir]["status"] = entry["readiness"]
        want[skill_dir]["fallback"] = [
            name for name, bucket in buckets.items() if "legacy_filename_fallback" in bucket["coverage_basis"]
        ]
    assert report.readiness == want
    assert want["spec-write-skill"]["fallback"] == ["trigger"]


def test_readiness_details(expected: dict[str, Any], checkout: Path) -> None:
    fs = FileSystemView()
    index = WorkflowIndex(checkout, fs)
    for skill_dir, entry in expected["readiness_by_skill_dir"].items():
        mine = skill_readiness(index, skill_dir, checkout, fs)
        assert (mine.files, mine.cases, mine.readiness, mine.missing, mine.optional_missing) == (
            entry["files"],
            entry["cases"],
            entry["readiness"],
            entry["missing"],
            entry["optional_missing"],
        ), skill_dir
        for name, bucket in entry["buckets"].items():
            got = mine.buckets[name]
            assert (got.case_ids, got.coverage_basis, got.present, got.present_without_filename_fallback) == (
                bucket["case_ids"],
                bucket["coverage_basis"],
                bucket["present"],
                bucket["present_without_filename_fallback"],
            ), (skill_dir, name)


def test_first_wave_contract(expected: dict[str, Any], checkout: Path) -> None:
    """§11.2, computed from the normalized files (a report, not diagnostics)."""
    fs = FileSystemView()
    index = WorkflowIndex(checkout, fs)
    for skill in FIRST_WAVE:
        rel = f"skills/{skill}/evals/examples.json"
        normalized = index.normalized(rel)
        skill_node = normalized.root.get("skill")
        problems = []
        if not normalized.canonical:
            problems.append("schema_version")
        if skill_node is None or skill_node.value != skill:
            problems.append("skill")
        if any(case_errors(case, checkout, fs) for case in normalized.cases):
            problems.append("errors")
        for bucket in ("trigger", "boundary"):
            if not any(case.has_tag(bucket) for case in normalized.cases):
                problems.append(bucket)
        assert expected["first_wave"][skill] == {"file": rel, "pass": not problems, "problems": problems}


def test_every_fixture_validates_against_the_schema(expected: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(load(WORKFLOW_SCHEMA))
    for entry in expected["files"]:
        payload = json.loads((SPEC_FIRST / entry["file"]).read_text(encoding="utf-8"))
        assert list(validator.iter_errors(payload)) == [], entry["file"]


# -- mutations of a private copy -------------------------------------------------------------------


def edit(repo: Path, rel: str, change: Any) -> None:
    path = repo / rel
    payload = json.loads(path.read_text(encoding="utf-8"))
    change(payload)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")


def test_deleted_reference_is_missing_on_every_case_that_inherits_it(copy: Path) -> None:
    (copy / "skills/spec-debug/SKILL.md").unlink()
    found = errors_by_file(copy)
    debug = found.pop("skills/spec-debug/evals/examples.json")
    assert debug == [("source_ref_missing", "/source_refs/0", i) for i in range(5)]
    # the one other file citing it (spec-write-skill only mentions the path in an input), nothing else
    assert {path for path, errs in found.items() if errs} == {
        "skills/spec-brainstorm/evals/routing-cases.json"
    }
    assert {code for errs in found.values() for code, _, _ in errs} == {"source_ref_missing"}


@pytest.mark.parametrize(
    ("new_name", "flagged"), [("aa-extra.json", "examples.json"), ("zz-extra.json", "zz-extra.json")]
)
def test_sibling_with_a_repeated_id(copy: Path, new_name: str, flagged: str) -> None:
    original = json.loads((copy / "skills/spec-debug/evals/examples.json").read_text(encoding="utf-8"))
    sibling = dict(original, cases=[original["cases"][2]])  # feature-planning-boundary
    (copy / f"skills/spec-debug/evals/{new_name}").write_text(json.dumps(sibling), encoding="utf-8")
    found = errors_by_file(copy)
    case = 2 if flagged == "examples.json" else 0
    assert only_errors(found, f"skills/spec-debug/evals/{flagged}") == [
        ("duplicate_case_id", f"/cases/{case}/id", case)
    ]
    report = check_paths([copy / f"skills/spec-debug/evals/{flagged}"], root=copy)
    (duplicate,) = [f for f in report.files[0].analysis.findings if f.code == "duplicate_case_id"]
    earlier = "examples.json" if flagged == "zz-extra.json" else new_name
    assert duplicate.data["previous_source_file"] == f"skills/spec-debug/evals/{earlier}"


def test_declared_skill_of_another_directory_collides(copy: Path) -> None:
    debug = json.loads((copy / "skills/spec-debug/evals/examples.json").read_text(encoding="utf-8"))
    (copy / "skills/spec-plan/evals/zz.json").write_text(
        json.dumps(dict(debug, cases=debug["cases"][:1])), encoding="utf-8"
    )
    found = errors_by_file(copy)
    assert only_errors(found, "skills/spec-plan/evals/zz.json") == [("duplicate_case_id", "/cases/0/id", 0)]


def test_blanked_inputs(copy: Path) -> None:
    edit(copy, "skills/spec-plan/evals/examples.json", lambda p: p["cases"][3].update(input=" \u3000"))
    edit(
        copy,
        "skills/spec-doc-review/evals/examples.json",
        lambda p: p["examples"][1].update(user_intent="\ufeff"),
    )
    found = errors_by_file(copy)
    assert found["skills/spec-plan/evals/examples.json"] == [("missing_input", "/cases/3/input", 3)]
    assert found["skills/spec-doc-review/evals/examples.json"] == [
        ("missing_input", "/examples/1/user_intent", 1)
    ]


def test_trigger_without_outcome_and_bad_tag(copy: Path) -> None:
    def change(payload: dict) -> None:
        first = payload["cases"][0]
        del first["expected_outcome"]
        first["coverage_tags"] = ["trigger", "Routing"]

    edit(copy, "skills/spec-debug/evals/examples.json", change)
    found = errors_by_file(copy)
    assert sorted(only_errors(found, "skills/spec-debug/evals/examples.json")) == [
        ("invalid_coverage_tag", "/cases/0/coverage_tags/1", 0),
        ("missing_expected_outcome", "/cases/0", 0),
    ]


def test_inferred_skill_and_moved_file(copy: Path) -> None:
    edit(copy, "skills/spec-plan/evals/examples.json", lambda p: p.pop("skill"))
    assert errors_by_file(copy)["skills/spec-plan/evals/examples.json"] == []
    # a skill-less file moved into another skill's directory is re-targeted: no collision there
    shutil.move(
        copy / "skills/spec-team-standards-governance/evals/trigger-cases.json",
        copy / "skills/spec-debug/evals/trigger-cases.json",
    )
    assert all(errs == [] for errs in errors_by_file(copy).values())


def test_unreadable_and_invalid_files(copy: Path) -> None:
    edit(copy, "skills/spec-work/evals/examples.json", lambda p: p["examples"].append(None))
    path = copy / "skills/spec-compound/evals/examples.json"
    path.write_text(path.read_text(encoding="utf-8")[:-20], encoding="utf-8")
    found = errors_by_file(copy)
    assert found["skills/spec-work/evals/examples.json"] == [("fixture_unreadable", "/examples/5", None)]
    assert [code for code, _, _ in found["skills/spec-compound/evals/examples.json"]] == ["invalid_json"]
    assert sum(len(errs) for errs in found.values()) == 2


def test_historical_cases_lose_their_inherited_anchor(copy: Path) -> None:
    edit(copy, "skills/spec-write-tasks/evals/output-quality-cases.json", lambda p: p.update(source_refs=[]))
    out = to_json(
        check_paths([copy / "skills/spec-write-tasks/evals/output-quality-cases.json"], root=copy), "t"
    )
    findings = out["files"][0]["findings"]
    errors = [(x["code"], x["case"]) for x in findings if x["severity"] == "error"]
    assert errors == [("missing_source_refs", i) for i in (0, 1, 2)]
    # case 3 still cites an existing docs/tasks/ file; case 4 cites only a plan
    anchors = [x["case"] for x in findings if x["code"] == "historical_without_source_anchor"]
    assert anchors == [4]
