"""A small repository whose findings exercise every part of the SARIF and GitHub output: CJK and
emoji before a finding (UTF-16 columns), a related location in the same file and one in another
file, a directory name that needs URI escaping, and messages with commas and colons."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import make_walking

# A duplicate id (related: the first use, same file) after CJK text and an emoji on the line.
SUITE = (
    '{"skill_name": "demo", "evals": [\n'
    '  {"id": "a", "prompt": "请总结 😀"},\n'
    '  {"id": "b", "prompt": "说明 🎉", "setup": {"kind": "Seeded"}}, {"id": "a", "prompt": "再一次"}\n'
    "]}\n"
)
CASE = {"input": "Plan it.", "coverage_tags": ["trigger"], "expected_outcome": "Plans."}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def workflow_fixture(case_id: str) -> str:
    body = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "flow",
        "source_refs": ["skills/flow/SKILL.md"],
        "cases": [{"id": case_id, **CASE}],
    }
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def make_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    make_walking(root)
    write(root / "skills/démo 演示/SKILL.md", "---\nname: demo\n---\n")
    write(root / "skills/démo 演示/evals/evals.json", SUITE)
    write(root / "skills/flow/SKILL.md", "---\nname: flow\n---\n")
    write(root / "skills/flow/evals/a.json", workflow_fixture("same"))
    write(root / "skills/flow/evals/b.json", workflow_fixture("same"))  # duplicate_case_id, related: a.json
    return root
