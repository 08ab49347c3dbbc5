"""The rename planner in-process: which strings of which fixtures a file or folder move rewrites
(workflow refs against the repository root, eval-suite paths against evals/, anchors kept, a
moved suite's own paths recomputed, copied files' assertion paths following their source)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalfix_ls.config.model import Config
from evalfix_ls.contracts.detection import Walk
from evalfix_ls.services.file_moves import Move, Moves, fixture_files, plan_moves

ROOT = Path("/repo")
WORKFLOW_PATH = ROOT / "skills" / "写作" / "evals" / "cases.json"
SUITE_PATH = ROOT / "skills" / "写作" / "evals" / "evals.json"
SCHEMA = "spec-first.workflow-eval-fixtures.v1"


def moves(*pairs: tuple[str, str]) -> Moves:
    return Moves(Move.of(ROOT / old, ROOT / new) for old, new in pairs)


def rewritten(
    files: dict[Path, Any], *pairs: tuple[str, str], opened: tuple[Path, ...] = (), walk: Walk | None = None
) -> dict[Path, Any]:
    """Each file's JSON after the planned replacements are applied (only files that changed);
    ``walk`` is the configuration's ``workflow_walk`` (ROOT holds no normalizer: no walk)."""
    texts = {path: json.dumps(data, ensure_ascii=False, indent=2) for path, data in files.items()}
    planned_moves = moves(*pairs)
    fixtures = fixture_files(
        texts, ROOT, planned_moves, texts.get, lambda path: Config(walk=walk), lambda path: path in opened
    )
    plan = plan_moves(planned_moves, ROOT, fixtures)
    out = {}
    for path, replacements in plan.items():
        text = texts[path]
        for r in reversed(replacements):
            assert text[r.start] == '"' and text[r.end - 1] == '"'  # whole string values only
            text = text[: r.start] + r.new_text + text[r.end :]
        out[path] = json.loads(text)
    return out


def workflow(refs: list[str], case_refs: list[str] | None = None) -> dict[str, Any]:
    case = {"id": "c1", "input": "做点什么", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
    if case_refs is not None:
        case["source_refs"] = case_refs
    return {"schema_version": SCHEMA, "skill": "写作", "source_refs": refs, "cases": [case]}


def test_a_moved_file_is_followed_in_top_level_and_case_refs_with_anchors_kept() -> None:
    data = workflow(
        ["references/指南.md#安装-步骤", "https://example.com/references/指南.md", "README.md"],
        ["references/指南.md", "references/指南.md.bak"],
    )
    out = rewritten({WORKFLOW_PATH: data}, ("references/指南.md", "docs/手册/指南.md"))
    fixture = out[WORKFLOW_PATH]
    assert fixture["source_refs"] == [
        "docs/手册/指南.md#安装-步骤",
        "https://example.com/references/指南.md",
        "README.md",
    ]
    assert fixture["cases"][0]["source_refs"] == ["docs/手册/指南.md", "references/指南.md.bak"]


def test_a_moved_folder_moves_every_path_below_it_and_nothing_beside_it() -> None:
    data = workflow(["references/a.md", "references-old/a.md", "references/", "./references/sub/b.md#x"])
    out = rewritten({WORKFLOW_PATH: data}, ("references", "参考"))
    assert out[WORKFLOW_PATH]["source_refs"] == [
        "参考/a.md",
        "references-old/a.md",
        "参考/",
        "参考/sub/b.md#x",
    ]


def test_no_reference_to_the_moved_path_plans_nothing() -> None:
    data = workflow(["skills/写作/SKILL.md", "../outside/references/a.md"])
    assert rewritten({WORKFLOW_PATH: data}, ("references", "docs")) == {}


def test_a_workflow_fixture_that_moves_keeps_its_repository_relative_refs() -> None:
    data = workflow(["skills/写作/SKILL.md"])
    assert rewritten({WORKFLOW_PATH: data}, ("skills/写作/evals", "skills/写作/测试")) == {}


def suite_case(**members: Any) -> dict[str, Any]:
    return {"skill_name": "写作", "evals": [{"id": "c1", "prompt": "p", **members}]}


def test_suite_paths_resolve_against_evals_and_copied_files_assertions_follow() -> None:
    data = suite_case(
        setup={
            "kind": "seeded",
            "sources": [{"from": "files/仓库"}, {"from": "files/仓库/a.md", "to": "kept.md"}],
        },
        files=["files/仓库/b.md"],
        assertions=[
            {"type": "file-exists", "path": "files/仓库/README.md"},
            {"type": "file-exists", "path": "kept.md"},
            {"type": "regex-match", "pattern": "x", "target": {"file": "files/仓库/b.md"}},
            "the answer mentions files/仓库",
        ],
    )
    out = rewritten({SUITE_PATH: data}, ("skills/写作/evals/files/仓库", "skills/写作/evals/files/repo"))
    case = out[SUITE_PATH]["evals"][0]
    assert case["setup"]["sources"] == [{"from": "files/repo"}, {"from": "files/repo/a.md", "to": "kept.md"}]
    assert case["files"] == ["files/repo/b.md"]
    assert case["assertions"][:3] == [
        {"type": "file-exists", "path": "files/repo/README.md"},
        {"type": "file-exists", "path": "kept.md"},
        {"type": "regex-match", "pattern": "x", "target": {"file": "files/repo/b.md"}},
    ]
    assert case["assertions"][3] == "the answer mentions files/仓库"  # judged text is not a path


def test_a_flattened_or_fixture_copy_keeps_its_destinations() -> None:
    data = suite_case(
        setup={"kind": "seeded", "mountMode": "flatten-contents", "sources": ["files/repo"]},
        assertions=[{"type": "file-exists", "path": "files/repo/x"}],
    )
    fixture = suite_case(setup={"kind": "fixture", "fixture": {"kind": "repo", "source": "files/repo"}})
    other_suite = ROOT / "skills" / "b" / "evals" / "evals.json"
    out = rewritten(
        {SUITE_PATH: data, other_suite: fixture}, ("skills/写作/evals/files/repo", "skills/写作/evals/r")
    )
    assert out[SUITE_PATH]["evals"][0]["setup"]["sources"] == ["r"]
    assert out[SUITE_PATH]["evals"][0]["assertions"] == [{"type": "file-exists", "path": "files/repo/x"}]
    assert other_suite not in out  # its files/repo is its own evals/files/repo


def test_a_moved_suite_recomputes_its_own_paths_to_files_that_stay() -> None:
    data = suite_case(setup={"kind": "seeded", "sources": ["files/a.md", "../shared/b.md"]})
    out = rewritten({SUITE_PATH: data}, ("skills/写作/evals", "skills/写作/v2/evals"))
    # files/ moved with the suite; ../shared did not
    assert out[SUITE_PATH]["evals"][0]["setup"]["sources"] == ["files/a.md", "../../shared/b.md"]


def test_a_path_that_leaves_the_repository_is_never_rewritten() -> None:
    data = suite_case(files=["../../../../outside/x.md"])
    assert rewritten({SUITE_PATH: data}, ("skills/写作/evals", "a/b/c/evals")) == {}


def test_a_file_that_is_no_fixture_is_not_edited() -> None:
    notes = ROOT / "docs" / "notes.json"
    data = {"cases": [], "source_refs": ["references/a.md"]}
    assert rewritten({notes: data}, ("references", "refs")) == {}  # closed: not walked, not checked
    opened = rewritten({notes: data}, ("references", "refs"), opened=(notes,), walk=Walk(True))
    assert opened[notes]["source_refs"] == ["refs/a.md"]  # an open file with cases is a fixture (rule 4)
    assert rewritten({notes: data}, ("references", "refs"), opened=(notes,)) == {}  # not without the walk


def test_escaped_paths_are_found_and_written_plainly() -> None:
    text = json.dumps(workflow(["references/\u6307.md"]), ensure_ascii=True)
    assert "\\u6307" in text
    planned = moves(("references/指.md", "docs/指.md"))
    fixtures = list(
        fixture_files(
            [WORKFLOW_PATH], ROOT, planned, {WORKFLOW_PATH: text}.get, lambda p: Config(), lambda p: False
        )
    )
    (replacement,) = plan_moves(planned, ROOT, fixtures)[WORKFLOW_PATH]
    assert replacement.new_text == '"docs/指.md"'
