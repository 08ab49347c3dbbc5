"""A missing path whose file name exists elsewhere in the repository (a file moved without its
fixtures): each file of that name offered in its place — unsafe, preferred only when it is the
only one — for workflow source refs (anchor kept) and eval-suite copy sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fix_support import (
    EVALS_PATH,
    WORKFLOW_PATH,
    apply_and_revalidate,
    facts,
    finding,
    make_repo,
    view,
)

from evalfix_ls.services import workspace_facts
from evalfix_ls.services.fixes import fixes_for


def workflow_text(refs: list[str]) -> str:
    case = {"id": "一", "input": "输入 🎉", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
    data = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "source_refs": refs,
        "coverage_tags": ["routing"],
        "cases": [case],
    }
    return json.dumps(data, ensure_ascii=False, indent=2)


def suite_text(source: str) -> str:
    case = {"id": "a", "prompt": "p", "setup": {"kind": "seeded", "sources": [{"from": source}]}}
    return json.dumps({"skill_name": "demo", "evals": [case]}, ensure_ascii=False, indent=2)


def touch(root: Path, rel: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("# 安装\n", encoding="utf-8")


def suggestions(root: Path, rel_path: str, text: str, code: str) -> list[tuple[str, bool, bool]]:
    document = view(root, rel_path, text)
    fixes = fixes_for(document, finding(document, code), facts(root))
    return [(fix.title, fix.safe, fix.preferred) for fix in fixes if "same name" in fix.title]


def test_a_moved_source_ref_is_suggested_with_its_anchor(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    touch(root, "docs/指南 🎉.md")
    text = workflow_text(["skills/demo/references/指南 🎉.md#安装"])
    title = 'Change to "docs/指南 🎉.md#安装" (a file of the same name elsewhere in the repository)'
    assert suggestions(root, WORKFLOW_PATH, text, "source_ref_missing") == [(title, False, True)]
    fix, fixed = apply_and_revalidate(root, WORKFLOW_PATH, text, "source_ref_missing", title)
    assert json.loads(fixed)["source_refs"] == ["docs/指南 🎉.md#安装"]


def test_several_files_of_the_name_are_each_offered_and_none_preferred(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    for rel in ("b/guide.md", "a/guide.md", ".hidden/guide.md", "node_modules/x/guide.md", "guide.md.bak"):
        touch(root, rel)
    offered = suggestions(root, WORKFLOW_PATH, workflow_text(["references/guide.md"]), "source_ref_missing")
    assert [(title.split('"')[1], safe, preferred) for title, safe, preferred in offered] == [
        ("a/guide.md", False, False),
        ("b/guide.md", False, False),
    ]


def test_a_moved_copy_source_folder_is_suggested_relative_to_evals(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "skills/demo/evals/fixtures/样例").mkdir(parents=True)
    text = suite_text("files/样例")
    title = 'Change to "fixtures/样例" (a file of the same name elsewhere in the repository)'
    assert suggestions(root, EVALS_PATH, text, "path-not-found") == [(title, False, True)]
    _, fixed = apply_and_revalidate(root, EVALS_PATH, text, "path-not-found", title)
    assert json.loads(fixed)["evals"][0]["setup"]["sources"] == [{"from": "fixtures/样例"}]


def test_no_file_of_the_name_no_suggestion(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    assert (
        suggestions(root, WORKFLOW_PATH, workflow_text(["references/nowhere.md"]), "source_ref_missing") == []
    )


def test_the_repository_is_walked_once_for_every_missing_path_of_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fix-all over a suite still being written asks for hundreds of missing paths: one walk."""
    root = make_repo(tmp_path / "repo")
    touch(root, "docs/a.md")
    touch(root, "docs/b.md")
    document = view(root, WORKFLOW_PATH, workflow_text(["references/a.md", "references/b.md"]))
    walks = []
    real_walk = workspace_facts.walk_directories
    monkeypatch.setattr(workspace_facts, "walk_directories", lambda top: walks.append(top) or real_walk(top))
    shared = facts(root)
    missing = [f for f in document.analysis.findings if f.code == "source_ref_missing"]
    offered = [fix.title for target in missing for fix in fixes_for(document, target, shared)]
    assert [title.split('"')[1] for title in offered if "same name" in title] == ["docs/a.md", "docs/b.md"]
    assert walks == [root]
