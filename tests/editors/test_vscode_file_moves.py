"""Moving files in a real VS Code (the VS Code server code-server ships, its extension host running
the packaged extension): the Mocha suite test/integration/fileMoves.test.ts renames a cited
Markdown file and a cited folder through ``workspace.applyEdit`` (the explorer's file operation,
so VS Code sends ``workspace/willRenameFiles`` and applies the server's edits first); here the
workspace is written beforehand and checked afterwards with ``evalfix-ls --check``: no missing
path. Skips like test_vscode.py when the VS Code test tools are absent (fails under CI=true)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from test_vscode import (  # the tools, the build and the isolation of the main VS Code suite
    CODE_SERVER,
    PYTHON_STANDIN,
    SERVER,
    isolated,
    node_tools,  # noqa: F401 - a fixture the two below use
    packaged,  # noqa: F401 - fixture
    real_vscode,  # noqa: F401 - fixture
    run_node_script,
)

TIMEOUT_S = 300
SKILL = "写作"
MISSING_PATH_CODES = {"source_ref_missing", "path-not-found"}


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def workspace(tmp_path: Path) -> Path:
    """A repository whose fixtures cite a Markdown file (with an anchor) and a folder, CJK names."""
    root = tmp_path / "仓库"
    skill = root / "skills" / SKILL
    (root / ".git").mkdir(parents=True)
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {SKILL}\n---\n", encoding="utf-8")
    guide = f"skills/{SKILL}/references/指南 🎉.md"
    (root / guide).write_text("# 指南\n\n## 安装\n", encoding="utf-8")
    (skill / "evals" / "files" / "样例").mkdir(parents=True)
    (skill / "evals" / "files" / "样例" / "说明.md").write_text("x\n", encoding="utf-8")
    write_json(
        skill / "evals" / "cases.json",
        {
            "schema_version": "spec-first.workflow-eval-fixtures.v1",
            "skill": SKILL,
            "source_refs": [f"{guide}#安装"],
            "coverage_tags": ["routing"],
            "cases": [
                {
                    "id": "一",
                    "input": "输入 🎉",
                    "coverage_tags": ["trigger"],
                    "expected_outcome": "ok",
                    "source_refs": [guide],
                }
            ],
        },
    )
    write_json(
        skill / "evals" / "evals.json",
        {
            "skill_name": SKILL,
            "evals": [
                {
                    "id": "二",
                    "prompt": "总结",
                    "setup": {"kind": "seeded", "sources": [{"from": "files/样例"}]},
                    "assertions": [{"type": "file-exists", "path": "files/样例/说明.md"}],
                }
            ],
        },
    )
    settings = {"evalfix.server.path": str(SERVER), "telemetry.telemetryLevel": "off"}
    write_json(root / ".vscode" / "settings.json", settings)
    return root


def missing_paths(root: Path) -> list[tuple[str, str]]:
    run = subprocess.run(
        [str(SERVER), "--check", "--format", "json", str(root)], capture_output=True, text=True, check=False
    )
    return [
        (entry["path"], finding["code"])
        for entry in json.loads(run.stdout)["files"]
        for finding in entry["findings"]
        if finding["code"] in MISSING_PATH_CODES
    ]


def test_moving_a_cited_file_and_folder_in_vscode(
    packaged: Path,  # noqa: F811 - the imported fixture
    real_vscode: str,  # noqa: F811 - the imported fixture
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path)
    assert missing_paths(root) == []  # clean before the moves
    shutil.copytree(PYTHON_STANDIN, tmp_path / "vscode" / "extensions" / "ms-python.python-0.0.1-standin")
    args = ["--code-server", str(CODE_SERVER), "--workspace", str(root), "--data", str(tmp_path / "vscode")]
    args += ["--chromium", real_vscode, "--timeout", str((TIMEOUT_S - 60) * 1000)]
    args += ["--tests", "out/test/integration/fileMovesIndex"]
    env = isolated(tmp_path, EVALFIX_TEST_PYTHON=sys.executable)
    result = run_node_script("run-integration.mjs", args, env, TIMEOUT_S)
    output = f"{result.stdout}\n{result.stderr}"
    print(output)
    assert result.returncode == 0, output
    # VS Code moved the files and saved the server's edits: nothing cites a missing path.
    assert (root / "docs" / "指南 v2.md").is_file()
    assert (root / "skills" / SKILL / "evals" / "files" / "资料" / "说明.md").is_file()
    assert missing_paths(root) == []
