"""Which files are workflow fixtures (specs/README.md "Which contract applies", workflow-fixtures.md
§2) — detection by path and content, and the ``--check`` directory walk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_paths import make_walking
from workflow_support import base, make_repo, write

from evalfix_ls.batch.run import check_paths
from evalfix_ls.contracts.detection import EVALS, UNKNOWN, WORKFLOW, classify, detect_kind
from evalfix_ls.parser import parse
from evalfix_ls.workspace.walk import walk

CANONICAL = '{"schema_version": "spec-first.workflow-eval-fixtures.v1"}'


@pytest.mark.parametrize(
    ("rel", "text", "explicit", "kind"),
    [
        # rule 1: the canonical schema id, wherever the file is
        ("docs/anything.json", CANONICAL, False, WORKFLOW),
        ("x/evals/evals.json", CANONICAL, False, WORKFLOW),
        (None, CANONICAL, False, WORKFLOW),
        ("docs/x.json", '{"schema_version": "spec-first.workflow-eval-fixtures.v2"}', False, UNKNOWN),
        # rule 2: evals/evals.json is a suite unless it is a workflow-shaped file under skills/**/evals/
        ("skills/x/evals/evals.json", '{"cases": []}', False, WORKFLOW),
        ("skills/x/evals/evals.json", '{"examples": []}', False, WORKFLOW),
        ("skills/x/evals/evals.json", '{"cases": [], "evals": []}', False, EVALS),
        ("skills/x/evals/evals.json", '{"cases": [], "skill_name": "x"}', False, EVALS),
        ("skills/x/evals/evals.json", '{"cases": {}}', False, EVALS),
        ("skills/x/evals/evals.json", "{", False, EVALS),
        ("x/evals/evals.json", '{"cases": []}', True, EVALS),  # never re-classified by rule 4
        # rule 3: skills/…/evals/…/*.json, whatever the content
        ("skills/x/evals/cases.json", "{}", False, WORKFLOW),
        ("skills/x/evals/cases.json", "{", False, WORKFLOW),
        ("skills/x/evals/sub/deeper/cases.json", "[]", False, WORKFLOW),
        ("skills/x/docs/evals/cases.json", "{}", False, WORKFLOW),
        ("skills/evals/cases.json", "{}", False, WORKFLOW),
        ("skills/x/evals.json", "{}", False, UNKNOWN),
        ("skills/x/evals/cases.JSON", "{}", False, UNKNOWN),
        ("skills/x/evals/cases.json.bak", "{}", False, UNKNOWN),
        (".claude/skills/x/evals/cases.json", "{}", False, UNKNOWN),
        # rule 4: named or opened, with a cases/examples array
        ("fixtures/x.json", '{"cases": []}', True, WORKFLOW),
        ("fixtures/x.json", '{"examples": [{}]}', True, WORKFLOW),
        ("skills/x/evals.json", '{"cases": []}', True, WORKFLOW),
        (None, '{"cases": []}', True, WORKFLOW),
        ("fixtures/x.json", '{"cases": []}', False, UNKNOWN),
        ("fixtures/x.json", '{"cases": {}}', True, UNKNOWN),
        ("fixtures/x.json", '[{"cases": []}]', True, UNKNOWN),
    ],
)
def test_detect_kind(rel: str | None, text: str, explicit: bool, kind: str) -> None:
    assert detect_kind(rel, parse(text).root, explicit=explicit) == kind


def test_check_lists_a_named_non_fixture_as_unknown(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"docs/notes.json": {"a": 1}, "fixtures/x.json": base(skill="demo")})
    report = check_paths([repo / "docs/notes.json", repo / "fixtures/x.json"], root=repo)
    assert [(f.display, f.analysis.kind) for f in report.files] == [
        ("docs/notes.json", UNKNOWN),
        ("fixtures/x.json", WORKFLOW),
    ]


def test_walk_collects_fixtures_and_skips_nothing_under_skills(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "outer" / "skills" / "repo",  # a checkout below some skills/ directory
        {
            "skills/demo/evals/a.json": {},
            "skills/demo/evals/.drafts/b.json": {},
            "skills/demo/evals/node_modules/c.json": {},
            "skills/demo/docs/evals/d.json": {},
            "skills/demo/evals.json": {},
            "skills/demo/evals/e.jsonl": "",
            "node_modules/pkg/evals/evals.json": {},
            ".hidden/evals/evals.json": {},
            "suites/x/evals/evals.json": {},
        },
    )
    found = sorted(p.relative_to(repo).as_posix() for p in walk(repo))
    assert found == [
        "skills/demo/docs/evals/d.json",
        "skills/demo/evals/.drafts/b.json",
        "skills/demo/evals/a.json",
        "skills/demo/evals/node_modules/c.json",
        "suites/x/evals/evals.json",
    ]
    # walking a skill directory is still "inside skills/": its dot-directories are read
    found = sorted(p.relative_to(repo).as_posix() for p in walk(repo / "skills" / "demo"))
    assert "skills/demo/evals/.drafts/b.json" in found


def test_walk_ignores_symlinked_fixtures(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"skills/demo/evals/a.json": {}})
    (repo / "skills/demo/evals/link.json").symlink_to(repo / "skills/demo/evals/a.json")
    (repo / "skills/linked").symlink_to(repo / "skills/demo", target_is_directory=True)
    assert [p.relative_to(repo).as_posix() for p in walk(repo)] == ["skills/demo/evals/a.json"]


def test_walked_and_named_files_agree(tmp_path: Path) -> None:
    payload = base() | {"cases": [dict(base()["cases"][0], input="")]}
    repo = make_repo(tmp_path, {"skills/demo/evals/a.json": payload})
    walked = check_paths([repo], root=repo).files
    named = check_paths([repo / "skills/demo/evals/a.json"], root=repo).files
    summary = [
        [(f.code, f.pointer, f.case) for f in report.analysis.findings] for report in (*walked, *named)
    ]
    assert summary[0] == summary[1] == [("missing_input", "/cases/0/input", 0)]


def test_evals_json_in_a_workflow_repository(tmp_path: Path) -> None:
    """An arc-style suite under skills/x/evals/ stays an eval suite and adds no workflow ids."""
    repo = make_repo(tmp_path)
    write(
        repo,
        "skills/demo/evals/evals.json",
        json.dumps({"skill_name": "demo", "evals": [{"id": "plan-request"}]}),
    )
    write(repo, "skills/demo/evals/z.json", base())
    report = check_paths([repo], root=repo)
    kinds = {f.display: f.analysis.kind for f in report.files}
    assert kinds == {"skills/demo/evals/evals.json": EVALS, "skills/demo/evals/z.json": WORKFLOW}
    z = next(f for f in report.files if f.display.endswith("z.json"))
    assert not [f for f in z.analysis.findings if f.code == "duplicate_case_id"]


# Elsewhere than in a walking repository (spec-first v1.13 and later retired the normalizer):
# only canonical files are workflow fixtures (specs/README.md rules 1-4, workflow-fixtures.md §2.1a).
@pytest.mark.parametrize(
    ("rel", "text", "explicit", "kind", "reason"),
    [
        ("skills/x/evals/cases.json", CANONICAL, False, WORKFLOW, "declares schema_version"),
        ("docs/anything.json", CANONICAL, True, WORKFLOW, "declares schema_version"),
        ("skills/x/evals/evals.json", '{"skill": "x", "cases": []}', False, EVALS, "arc-skill-eval"),
        ("skills/x/evals/evals.json", '{"examples": []}', True, EVALS, "arc-skill-eval"),
        (
            "skills/x/evals/cases.json",
            '{"schema_version": "x.v2", "cases": [{"kind": "y"}]}',
            False,
            UNKNOWN,
            'skill-local shape (schema_version "x.v2") under skills/**/evals/ in a repository without',
        ),
        (
            "skills/x/evals/cases.json",
            '{"cases": []}',
            True,
            UNKNOWN,
            "skill-local shape (no schema_version)",
        ),
        ("skills/x/evals/cases.json", "{", False, UNKNOWN, "skill-local shape"),
        ("fixtures/x.json", '{"cases": []}', True, UNKNOWN, "without spec-first's fixture walk"),
        (None, '{"cases": []}', True, UNKNOWN, "array outside skills/**/evals/ in a repository without"),
        ("docs/x.json", '{"cases": []}', False, UNKNOWN, "no tool reads it as a fixture"),
    ],
)
def test_classify_without_the_walk(
    rel: str | None, text: str, explicit: bool, kind: str, reason: str
) -> None:
    found = classify(rel, parse(text).root, explicit=explicit, walking=False)
    assert found.kind == kind and reason in found.reason


def test_the_normalizer_makes_a_walking_repository(tmp_path: Path) -> None:
    legacy = {"skill": "demo", "cases": [{"id": "a"}]}  # missing input, tags and refs: 3 errors
    repo = make_repo(tmp_path, {"skills/demo/evals/legacy.json": legacy}, walking=False)
    [plain] = check_paths([repo], root=repo).files
    assert (plain.analysis.kind, plain.analysis.findings) == (UNKNOWN, [])
    make_walking(repo)
    [walked] = check_paths([repo / "skills/demo/evals/legacy.json"], root=repo).files
    assert walked.analysis.kind == WORKFLOW
    assert {f.code for f in walked.analysis.findings if f.severity.word == "error"} == {
        "missing_input",
        "missing_coverage_tags",
        "missing_source_refs",
    }


@pytest.mark.parametrize("walking", [True, False])
def test_duplicate_ids_and_readiness_follow_the_classification(tmp_path: Path, walking: bool) -> None:
    """A legacy file that sorts first and repeats a canonical file's id: a duplicate only where the
    walk reads the legacy file; readiness counts its cases only there too."""
    legacy = {"skill": "demo", "source_refs": ["skills/demo/SKILL.md"], "cases": [dict(base()["cases"][0])]}
    repo = make_repo(
        tmp_path,
        {"skills/demo/evals/a-legacy.json": legacy, "skills/demo/evals/b.json": base()},
        walking=walking,
    )
    report = check_paths([repo], root=repo, readiness=True)
    b = next(f for f in report.files if f.display.endswith("b.json"))
    duplicates = [f.code for f in b.analysis.findings if f.code == "duplicate_case_id"]
    assert duplicates == (["duplicate_case_id"] if walking else [])
    trigger = report.readiness["demo"]["trigger"]
    assert trigger == (2 if walking else 1)


def test_a_setting_forces_the_walk_and_says_where(tmp_path: Path) -> None:
    legacy = {"skill": "demo", "cases": [{"id": "a"}]}
    repo = make_repo(tmp_path, {"skills/demo/evals/legacy.json": legacy}, walking=False)
    (repo / ".evalfix.toml").write_text("# our fixtures\n\nworkflow_walk = true\n", encoding="utf-8")
    [forced_on] = check_paths([repo], root=repo).files
    assert forced_on.analysis.kind == WORKFLOW
    assert "where spec-first's fixture walk is forced on (.evalfix.toml:3)" in forced_on.analysis.reason
    assert forced_on.analysis.classification.decided_by == ".evalfix.toml:3"
    make_walking(repo)
    (repo / ".evalfix.toml").write_text("workflow-walk = false\n", encoding="utf-8")
    [forced_off] = check_paths([repo], root=repo).files
    assert forced_off.analysis.kind == UNKNOWN and forced_off.analysis.findings == []
    assert "where spec-first's fixture walk is forced off (.evalfix.toml:1)" in forced_off.analysis.reason


def test_a_mapping_says_which_line_decided(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"skills/demo/evals/legacy.json": {"cases": []}}, walking=False)
    (repo / ".evalfix.toml").write_text('[files]\n"skills/demo/evals/legacy.json" = "workflow"\n')
    [mapped] = check_paths([repo], root=repo).files
    assert mapped.analysis.kind == WORKFLOW
    assert mapped.analysis.reason == "mapped to workflow-fixture by configuration (.evalfix.toml:2)"
