"""The last run's results in a real VS Code (the VS Code server code-server ships, its extension
host running the extension under development): the Mocha suite test/integration/results.suite.ts
writes a skill, its suite and arc-skill-eval runs into the empty workspace given here, and checks
through VS Code's own API the lenses, the ✓/✗ hints, the result diagnostics, the hover, a live
update when it writes a new run, and evalfix.openCaseArtifacts opening assistant.md. Skips like
test_vscode.py when the VS Code test tools are absent (fails under CI=true)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from test_vscode import (  # the tools, the build and the isolation of the main VS Code suite
    CODE_SERVER,
    PYTHON_STANDIN,
    SERVER,
    isolated,
    node_tools,  # noqa: F401 - a fixture the two below use
    npm_test,  # noqa: F401 - a fixture real_vscode's caller needs built
    print_seen,
    real_vscode,  # noqa: F401 - fixture
    run_node_script,
)

TIMEOUT_S = 300
SUITE_TITLE = "evalfix-ls run results in VS Code "
TESTS = 6


def test_run_results_in_vscode(
    npm_test: str,  # noqa: F811 - the imported fixture: out/ built
    real_vscode: str,  # noqa: F811 - the imported fixture
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "repo"
    settings = {"evalfix.server.path": str(SERVER), "telemetry.telemetryLevel": "off"}
    (workspace / ".vscode").mkdir(parents=True)
    (workspace / ".vscode" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    shutil.copytree(PYTHON_STANDIN, tmp_path / "vscode" / "extensions" / "ms-python.python-0.0.1-standin")
    report_file = tmp_path / "report.json"
    args = ["--code-server", str(CODE_SERVER), "--workspace", str(workspace)]
    args += ["--data", str(tmp_path / "vscode")]
    args += ["--chromium", real_vscode, "--timeout", str((TIMEOUT_S - 60) * 1000)]
    args += ["--tests", "out/test/integration/resultsIndex"]
    env = isolated(tmp_path, EVALFIX_TEST_PYTHON=sys.executable, EVALFIX_TEST_REPORT=str(report_file))
    result = run_node_script("run-integration.mjs", args, env, TIMEOUT_S)
    output = f"{result.stdout}\n{result.stderr}"
    assert report_file.is_file(), f"the Mocha suite wrote no report:\n{output}"
    report = json.loads(report_file.read_text(encoding="utf-8"))
    print_seen(report)
    tests = [test for test in report["tests"] if test["title"].startswith(SUITE_TITLE)]
    assert len(tests) == TESTS, report["tests"]
    for test in tests:
        assert test["state"] == "passed", f"{test['title']}: {test.get('error')}\n{output}"
    assert result.returncode == 0, output
