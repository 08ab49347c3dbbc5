"""The last run's results in a real VS Code (the VS Code server code-server ships, its extension
host running the extension under development): a skill, its suite and two arc-skill-eval runs are
written here, then the Mocha suite test/integration/results.suite.ts checks through VS Code's own
API the lenses, the ✓/✗ hints, the result diagnostic, the hover, a live update when it writes a
third run, and evalfix.openCaseArtifacts opening assistant.md. Skips like test_vscode.py when the
VS Code test tools are absent (fails under CI=true).

The earlier runs are on disk before VS Code opens the folder, as in a repository a user opens:
written by the suite in its first second they raced the start of VS Code's file watcher, and
then, in about half the runs, the new run's folder reached the server as no event at all."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import results_trees as trees
from test_vscode import (  # the tools, the build and the isolation of the main VS Code suite
    BUILD_TIMEOUT_S,
    CODE_SERVER,
    OUTPUT,
    PYTHON_STANDIN,
    SERVER,
    UI_TIMEOUT_S,
    isolated,
    node_tools,  # noqa: F401 - a fixture the ones below use
    npm_test,  # noqa: F401 - a fixture: out/ built
    packaged,  # noqa: F401 - a fixture: the universal .vsix
    print_seen,
    real_vscode,  # noqa: F401 - fixture
    run_node_script,
)

TIMEOUT_S = 300
# The values results.suite.ts expects (it states them again, beside the positions it computes).
JUDGED = "The reply greets 東京 😀"
MISSING = {"type": "file-exists", "path": "missing-😀.txt"}
CASES = [
    {"id": "東京 greeting", "prompt": "Greet 東京 😀", "assertions": [JUDGED, MISSING]},
    {"id": 2, "prompt": "q", "assertions": [JUDGED]},
]
NEWER = "2026-05-02T00-00-00-000Z"
FAILED = f"failed in run {NEWER}: No such file: `missing-😀.txt`"
SUITE = "skills/greeter/evals/evals.json"
SUITE_TITLE = "evalfix-ls run results in VS Code "
TESTS = 6


def point_at_the_server(workspace: Path) -> None:
    """The workspace's settings: the project's server, no telemetry."""
    settings = {"evalfix.server.path": str(SERVER), "telemetry.telemetryLevel": "off"}
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def results_workspace(tmp_path: Path) -> Path:
    """A repository whose skill has a suite and two runs: the newer holds the first case (one
    assertion failed), the older the second; its settings point at the project's server."""
    workspace = tmp_path / "repo"
    skill = workspace / "skills" / "greeter"
    trees.suite(skill, CASES)
    runs = skill / "evals-runs"
    trees.arc_run(runs / "2026-05-01T00-00-00-000Z", {"2": [(JUDGED, True, "older ok")]})
    failed = (MISSING, False, "No such file: `missing-😀.txt`")
    trees.arc_run(runs / NEWER, {"東京 greeting": [(JUDGED, True, "yes"), failed]})
    point_at_the_server(workspace)
    return workspace


@pytest.mark.timeout(BUILD_TIMEOUT_S + TIMEOUT_S)
def test_run_results_in_vscode(
    npm_test: str,  # noqa: F811 - the imported fixture: out/ built
    real_vscode: str,  # noqa: F811 - the imported fixture
    tmp_path: Path,
) -> None:
    workspace = results_workspace(tmp_path)
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


def seen_in_workbench(
    vsix: Path,
    chromium: str,
    workspace: Path,
    tmp_path: Path,
    shots: Path,
    expected: list[str],
    lens: dict[str, str],
) -> dict[str, Any]:
    """The .vsix installed in code-server, ``SUITE`` of ``workspace`` opened in chromium, and what
    ``run-ui.mjs`` saw there (the Problems rows expected, the lens drawn; screenshots in ``shots``)."""
    report_file = tmp_path / "ui.json"
    shutil.rmtree(shots, ignore_errors=True)
    args = ["--code-server", str(CODE_SERVER), "--vsix", str(vsix), "--workspace", str(workspace)]
    args += ["--data", str(tmp_path / "code-server"), "--chromium", chromium, "--open", SUITE]
    args += ["--expect", json.dumps(expected), "--lens", json.dumps(lens)]
    args += ["--screenshots", str(shots), "--report", str(report_file)]
    result = run_node_script("run-ui.mjs", args, isolated(tmp_path), UI_TIMEOUT_S)
    output = f"{result.stdout}\n{result.stderr}"
    assert report_file.is_file(), output
    seen: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    print("\nseen:", json.dumps(seen, ensure_ascii=False, indent=1))
    assert result.returncode == 0, output
    return seen


@pytest.mark.timeout(2 * BUILD_TIMEOUT_S + UI_TIMEOUT_S)
def test_the_lens_is_drawn_above_its_case_in_the_workbench(
    packaged: Path,  # noqa: F811 - the imported fixture
    real_vscode: str,  # noqa: F811 - the imported fixture
    tmp_path: Path,
) -> None:
    """The universal .vsix installed in code-server, the suite opened in chromium: the failed
    assertion in the Problems panel, and the first case's lens drawn just above its `id` line."""
    workspace = results_workspace(tmp_path)
    shots = OUTPUT / f"ui-results-{tmp_path.name}"
    lens = {"text": "1/2 passed · 41 s · 12.3k tokens · $0.12 · ", "line": '"id": "東京 greeting"'}
    seen = seen_in_workbench(packaged, real_vscode, workspace, tmp_path, shots, [FAILED], lens)
    # The MISSING assertion's object opens on line 9, column 9 of the suite json.dumps wrote.
    assert any(FAILED in row and "[Ln 9, Col 9]" in row for row in seen["rows"]), seen["rows"]
    drawn = seen["lens"]
    # The case's lenses on one line, as the editor draws them: "▶ run … alone | 1/2 passed · …".
    parts = [part.strip() for part in drawn["text"].split(" | ")]
    assert any(part.startswith(lens["text"]) for part in parts), drawn
    assert drawn["line"].strip().startswith(lens["line"]), drawn
    # Above the case: the lens sits over the case's opening brace, the `id` line one line lower.
    height = drawn["lineBox"]["height"]
    gap = drawn["lineBox"]["y"] - (drawn["box"]["y"] + drawn["box"]["height"])
    assert 0 <= gap <= 2 * height, drawn
    assert (shots / "code-lens.png").stat().st_size > 10_000


CORPUS_NEWEST = "2026-12-03T08-00-00-000Z"
CORPUS_COMPARE = "2026-12-02T11-30-00-000Z"


@pytest.mark.corpus
@pytest.mark.timeout(2 * BUILD_TIMEOUT_S + UI_TIMEOUT_S)
def test_the_corpus_runs_are_drawn_in_the_workbench(
    packaged: Path,  # noqa: F811 - the imported fixture
    real_vscode: str,  # noqa: F811 - the imported fixture
    tmp_path: Path,
    corpus_dir: Path,
) -> None:
    """``../shared/corpus/arc-runs`` (written by arc-skill-eval's own code), copied to tmp_path
    and opened in the workbench: ``default-world``'s lens from the one-case run of 2026-12-03
    (3/6, as the corpus README says) drawn above its ``id`` line, and its three failed
    assertions in the Problems panel with their evidence, and 東京 greeting's from the compare run
    of 2026-12-02 that answered it (the ✓/✗ hints are in the screenshot). Every case's lens is checked over
    stdio (tests/lsp/test_run_results.py) and in Neovim (test_neovim_run_results.py)."""
    workspace = shutil.copytree(corpus_dir / "arc-runs" / "repo", tmp_path / "repo")
    (workspace / ".git").mkdir(exist_ok=True)
    point_at_the_server(workspace)
    shots = OUTPUT / f"ui-corpus-results-{tmp_path.name}"
    lens = {"text": "3/6 passed · ", "line": '"id": "default-world"'}
    failed = [f"failed in run {CORPUS_NEWEST}: No such file: `missing-notes.txt`"]
    seen = seen_in_workbench(packaged, real_vscode, workspace, tmp_path, shots, failed, lens)
    rows = [row for row in seen["rows"] if f"failed in run {CORPUS_NEWEST}" in row]
    assert len(rows) == 3, seen["rows"]  # missing-notes.txt, ^nothing$, the judged "FAIL: …"
    # 東京 greeting's failed judged assertion, from the compare run that answered it (1/2)
    compare = [row for row in seen["rows"] if f"failed in run {CORPUS_COMPARE} (with_skill)" in row]
    assert len(compare) == 1 and "[Ln 30, Col 49]" in compare[0], seen["rows"]
    parts = [part.strip() for part in seen["lens"]["text"].split(" | ")]
    assert any(part.startswith(lens["text"]) for part in parts), seen["lens"]
    assert seen["lens"]["line"].strip().startswith(lens["line"]), seen["lens"]
