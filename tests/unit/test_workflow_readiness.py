"""Readiness per skill directory (workflow-fixtures.md §11.1, §11.1a) and ``--check --readiness``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from workflow_support import DELETE, base, make_repo, with_case

from evalfix_ls.cli import main
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.contracts.workflow.readiness import file_name_matches_bucket, skill_readiness
from evalfix_ls.workspace.view import FileSystemView


def case(case_id: str, tags: list[str], **extra: Any) -> dict[str, Any]:
    return with_case({"id": case_id, "coverage_tags": tags, **extra})["cases"][0]


def fixture(*cases: dict[str, Any], **top: Any) -> dict[str, Any]:
    return base(**top) | {"cases": list(cases)}


def readiness_of(repo: Path, skill_dir: str = "demo"):  # noqa: ANN201 - SkillReadiness
    fs = FileSystemView()
    return skill_readiness(WorkflowIndex(repo, fs), skill_dir, repo, fs)


def test_ready_partial_missing(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "skills/demo/evals/a.json": fixture(
                case("t", ["trigger"]),
                case("b", ["boundary"], expected_outcome=DELETE, boundary_note="out"),
                case("f", ["failure"]),
                case("e", ["expected", "trigger"]),
            ),
            "skills/other/evals/a.json": fixture(case("t", ["trigger"]), skill="other"),
            "skills/empty/evals/a.json": {"coverage_tags": ["trigger"]},
        },
    )
    demo = readiness_of(repo)
    assert demo.summary() == {
        "trigger": 2,
        "boundary": 1,
        "failure": 1,
        "expected": 1,
        "status": "ready",
        "fallback": [],
    }
    other = readiness_of(repo, "other")
    assert (other.readiness, other.missing, other.optional_missing) == (
        "partial",
        ["boundary cases"],
        ["failure cases", "expected behavior"],
    )
    assert readiness_of(repo, "empty").readiness == "missing"


def test_any_error_disqualifies_a_case(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "skills/demo/evals/a.json": fixture(
                case("ok", ["trigger"]),
                case("bad-ref", ["trigger"], source_refs=["skills/demo/gone.md"]),
                case("bad-tag", ["trigger", "Bad"]),
                case("no-outcome", ["boundary", "failure"], expected_outcome=DELETE),
            ),
        },
    )
    demo = readiness_of(repo)
    assert demo.buckets["trigger"].case_ids == ["ok"]
    assert demo.buckets["boundary"].case_ids == []
    assert demo.buckets["failure"].case_ids == []  # missing_boundary_evidence disqualifies it everywhere
    assert demo.readiness == "partial"


def test_duplicates_are_not_considered(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path, {"skills/demo/evals/a.json": fixture(case("x", ["trigger"]), case("x", ["trigger"]))}
    )
    assert readiness_of(repo).buckets["trigger"].case_ids == ["x", "x"]


def test_filename_fallback(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "skills/demo/evals/Trigger-Review-cases.json": fixture(
                case("tagged", ["trigger"]),
                case("only-boundary", ["boundary"]),
                case("fails-as-trigger", ["boundary"], expected_outcome=DELETE, boundary_note="n"),
                case("untagged", [], coverage_tags=DELETE),
            ),
        },
    )
    trigger = readiness_of(repo).buckets["trigger"]
    assert trigger.case_ids == ["tagged", "only-boundary", "untagged"]
    assert trigger.coverage_basis == ["declared_coverage_tags", "legacy_filename_fallback"]
    assert trigger.present_without_filename_fallback
    assert readiness_of(repo).summary()["fallback"] == ["trigger"]


def test_fallback_without_declared_tags(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"skills/demo/evals/boundary-cases.json": fixture(case("b", ["routing"]))})
    boundary = readiness_of(repo).buckets["boundary"]
    assert (boundary.case_ids, boundary.present_without_filename_fallback) == (["b"], False)


@pytest.mark.parametrize(
    ("name", "bucket", "matches"),
    [
        ("trigger-cases.json", "trigger", True),
        ("TRIGGER.json", "trigger", True),
        ("expected-behavior-cases.json", "expected", True),
        ("tr\u0130gger.json", "trigger", False),  # no Unicode case folding without the u flag
        ("examples.json", "failure", False),
        ("skills/trigger/evals/x.json", "trigger", False),  # only the basename counts
    ],
)
def test_file_name_matches_bucket(name: str, bucket: str, matches: bool) -> None:
    assert file_name_matches_bucket(name, bucket) is matches


def test_unreadable_files_count_nothing(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "skills/demo/evals/a.json": "{",
            "skills/demo/evals/b.json": base() | {"cases": [case("t", ["trigger"]), None]},
        },
    )
    demo = readiness_of(repo)
    assert (demo.cases, demo.readiness, demo.files) == (
        0,
        "missing",
        ["skills/demo/evals/a.json", "skills/demo/evals/b.json"],
    )


def run(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(args)
    finally:
        os.chdir(old)
    return code, capsys.readouterr().out


def test_cli_readiness_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(
        tmp_path,
        {
            "skills/demo/evals/trigger-cases.json": fixture(case("t", ["boundary"])),
            "skills/demo/evals/more.json": fixture(case("f", ["failure"])),
            "skills/other/evals/x.json": fixture(case("t", ["trigger"]), skill="other"),
        },
    )
    code, out = run(
        ["--check", "--readiness", "--format", "json", "skills/demo/evals/more.json"], repo, capsys
    )
    assert code == 0
    report = json.loads(out)
    # only skill directories holding a checked fixture, counted over all of their files
    assert report["readiness"] == {
        "demo": {
            "trigger": 1,
            "boundary": 1,
            "failure": 1,
            "expected": 0,
            "status": "ready",
            "fallback": ["trigger"],
        }
    }
    code, out = run(["--check", "--format", "json"], repo, capsys)
    assert "readiness" not in json.loads(out)
    code, out = run(["--check", "--readiness"], repo, capsys)
    lines = out.splitlines()
    assert lines[-1].startswith("0 errors")
    (demo_row,) = [line for line in lines if line.startswith("demo ")]
    assert demo_row.split() == ["demo", "1", "1", "1", "0", "ready", "trigger"]
    (other_row,) = [line for line in lines if line.startswith("other ")]
    assert other_row.split() == ["other", "1", "0", "0", "0", "partial", "-"]
