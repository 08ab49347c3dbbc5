"""Moving files in a real VS Code (the VS Code server code-server ships, its extension host running
the packaged extension): the Mocha suite test/integration/fileMoves.suite.ts renames a cited
Markdown file and a cited folder through ``workspace.applyEdit`` (the explorer's file operation,
so VS Code sends ``workspace/willRenameFiles`` and applies the server's edits first); here the
workspace is written beforehand and checked afterwards with ``evalfix-ls --check``: no missing
path. Skips like test_vscode.py when the VS Code test tools are absent (fails under CI=true)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from file_moves_workspace import FOLDER, NEW_FOLDER, NEW_GUIDE, cited_paths_repo, missing_paths, write_json
from test_vscode import (  # the tools, the build and the isolation of the main VS Code suite
    CODE_SERVER,
    PYTHON_STANDIN,
    SERVER,
    isolated,
    node_tools,  # noqa: F401 - a fixture the two below use
    npm_test,  # noqa: F401 - a fixture packaged uses
    packaged,  # noqa: F401 - fixture
    real_vscode,  # noqa: F401 - fixture
    run_node_script,
)

TIMEOUT_S = 300
pytestmark = pytest.mark.timeout(1200)  # the build (when this runs first) and the run's own 300 s


def test_moving_a_cited_file_and_folder_in_vscode(
    packaged: Path,  # noqa: F811 - the imported fixture
    real_vscode: str,  # noqa: F811 - the imported fixture
    tmp_path: Path,
) -> None:
    root = cited_paths_repo(tmp_path / "仓库")
    settings = {"evalfix.server.path": str(SERVER), "telemetry.telemetryLevel": "off"}
    write_json(root / ".vscode" / "settings.json", settings)
    assert missing_paths([str(SERVER)], root) == []  # clean before the moves
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
    assert (root / NEW_GUIDE).is_file() and (root / NEW_FOLDER / "说明.md").is_file()
    assert not (root / FOLDER).exists()
    assert missing_paths([str(SERVER)], root) == []
