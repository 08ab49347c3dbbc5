"""The repository the file-move tests (over stdio and in VS Code) move files in: fixtures cite a
Markdown file (with an anchor, an emoji in its name) and a folder, with CJK names throughout; and
what ``--check`` says of missing paths afterwards."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

SKILL = "写作"
GUIDE = f"skills/{SKILL}/references/指南 🎉.md"  # an emoji: UTF-16 and UTF-32 columns differ
NEW_GUIDE = "docs/指南 v2.md"
FOLDER = f"skills/{SKILL}/evals/files/样例"
NEW_FOLDER = f"skills/{SKILL}/evals/files/资料"
FIXTURE = f"skills/{SKILL}/evals/cases.json"
SUITE = f"skills/{SKILL}/evals/evals.json"
MISSING_PATH_CODES = {"source_ref_missing", "path-not-found"}


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def cited_paths_repo(root: Path) -> Path:
    """``root`` made a repository whose workflow fixture cites ``GUIDE`` (top level with an
    anchor, and in a case) and whose suite copies ``FOLDER`` and asserts a file in it."""
    (root / ".git").mkdir(parents=True)
    (root / f"skills/{SKILL}/SKILL.md").parent.mkdir(parents=True)
    (root / f"skills/{SKILL}/SKILL.md").write_text(f"---\nname: {SKILL}\n---\n", encoding="utf-8")
    (root / GUIDE).parent.mkdir(parents=True)
    (root / GUIDE).write_text("# 指南\n\n## 安装\n\ntext\n", encoding="utf-8")
    (root / FOLDER).mkdir(parents=True)
    (root / FOLDER / "说明.md").write_text("x\n", encoding="utf-8")
    case = {"id": "一", "input": "输入 🎉", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
    write_json(
        root / FIXTURE,
        {
            "schema_version": "spec-first.workflow-eval-fixtures.v1",
            "skill": SKILL,
            "source_refs": [f"{GUIDE}#安装"],
            "coverage_tags": ["routing"],
            "cases": [{**case, "source_refs": [GUIDE]}],
        },
    )
    seeded = {"kind": "seeded", "sources": [{"from": "files/样例"}]}
    write_json(
        root / SUITE,
        {
            "skill_name": SKILL,
            "evals": [
                {
                    "id": "二",
                    "prompt": "总结 😀",
                    "setup": seeded,
                    "assertions": [{"type": "file-exists", "path": "files/样例/说明.md"}],
                }
            ],
        },
    )
    return root


def missing_paths(command: list[str], root: Path) -> list[tuple[str, str]]:
    """(file, code) of every missing-path finding ``command --check`` reports for ``root``."""
    run = subprocess.run(
        [*command, "--check", "--format", "json", str(root)], capture_output=True, text=True, check=False
    )
    return [
        (entry["path"], finding["code"])
        for entry in json.loads(run.stdout)["files"]
        for finding in entry["findings"]
        if finding["code"] in MISSING_PATH_CODES
    ]
