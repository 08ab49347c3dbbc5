"""Workspace facts: fixture files per skill, case ids, coverage tags in use, paths."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import make_walking

from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.services.workspace_facts import WorkspaceFacts, skill_of
from evalfix_ls.workspace.view import FileSystemView


def write(root: Path, rel: str, payload: object) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload), encoding="utf-8")


def facts_for(root: Path) -> WorkspaceFacts:
    make_walking(root)  # legacy shapes count as fixtures
    fs = FileSystemView()
    return WorkspaceFacts(root, fs, WorkflowIndex(root, fs))


def test_files_cases_and_tags(tmp_path: Path) -> None:
    write(
        tmp_path,
        "skills/alpha/evals/trigger.json",
        {
            "coverage_tags": ["routing"],
            "cases": [
                {"id": "a1", "input": "x", "coverage_tags": ["trigger"]},
                {"id": "a2", "input": "y", "coverage_tags": ["trigger", "boundary"]},
            ],
        },
    )
    write(
        tmp_path,
        "skills/beta/evals/more.json",
        {"cases": [{"id": "b1", "input": "z", "coverage_tags": ["boundary"]}]},
    )
    facts = facts_for(tmp_path)
    assert facts.workflow_files("alpha") == ["skills/alpha/evals/trigger.json"]
    assert set(facts.workflow_files()) == {"skills/alpha/evals/trigger.json", "skills/beta/evals/more.json"}
    assert facts.case_ids("skills/alpha/evals/trigger.json") == ["a1", "a2"]
    uses = {use.tag: use for use in facts.coverage_tags()}
    # inherited top-level tags count for every case that receives them
    assert uses["routing"].count == 2 and uses["boundary"].count == 2 and uses["trigger"].count == 2
    assert uses["boundary"].example == "skills/alpha/evals/trigger.json"
    ranked = [use.tag for use in facts.coverage_tags()]
    assert ranked == sorted(ranked, key=lambda t: (-uses[t].count, t))
    only_beta = {use.tag for use in facts.coverage_tags(exclude_file="skills/alpha/evals/trigger.json")}
    assert only_beta == {"boundary"}


def test_paths_stay_inside_the_repository(tmp_path: Path) -> None:
    (tmp_path / "skills/alpha/references").mkdir(parents=True)
    (tmp_path / "skills/alpha/references/a.md").write_text("# A\n")
    (tmp_path / "skills/alpha/.hidden").write_text("")
    facts = facts_for(tmp_path)
    assert facts.exists(facts.resolve("skills/alpha/references/a.md"))
    assert facts.resolve("../outside") is None
    entries = facts.list_dir(tmp_path / "skills/alpha")
    assert [(e.name, e.is_dir) for e in entries] == [("references", True)]
    assert facts.list_dir(tmp_path.parent) == []


def test_no_repository_no_facts() -> None:
    empty = WorkspaceFacts.empty()
    assert empty.workflow_files() == [] and empty.coverage_tags() == [] and empty.resolve("a") is None


def test_skill_of() -> None:
    assert skill_of("skills/alpha/evals/x.json") == "alpha"
    assert skill_of("evals/evals.json") is None and skill_of(None) is None


def test_a_link_out_of_the_repository_is_neither_followed_nor_listed(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "docs").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("x")
    (root / "docs/link").symlink_to(outside, target_is_directory=True)
    facts = facts_for(root)
    assert not facts.exists(root / "docs/link/secret.md")  # lexically inside, really outside
    assert facts.list_dir(root / "docs/link") == []
    assert [entry.name for entry in facts.list_dir(root / "docs")] == ["link"]
