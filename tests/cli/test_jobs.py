"""`--check --jobs N`: the same report for every N, in the planned order, streamed file by file."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sarif_support import workflow_fixture, write

from evalfix_ls.analysis import Analysis
from evalfix_ls.batch import parallel
from evalfix_ls.batch.analyze import Analyzer, FileTask
from evalfix_ls.batch.run import FileReport, check_paths

FILES = 48


def make_tree(root: Path) -> Path:
    """Suites and workflow fixtures of very different sizes (so that workers finish out of order),
    with findings in most, and duplicate case ids across files (cross-file state per process)."""
    (root / ".git").mkdir(parents=True)
    for n in range(FILES // 2):
        skill = root / f"skills/s{n:02d}"
        write(skill / "SKILL.md", f"---\nname: s{n:02d}\n---\n")
        cases = [
            {"id": f"c{i}", "prompt": "请 😀" * (1 + (n * 7919 + i) % 40)} for i in range(1 + (n * 31) % 300)
        ]
        if n % 3 == 0:
            cases.append({"id": "c0", "prompt": "dup", "setup": {"kind": "Seeded"}})
        write(
            skill / "evals/evals.json",
            json.dumps({"skill_name": f"s{n:02d}", "evals": cases}, ensure_ascii=False),
        )
    write(root / "skills/flow/SKILL.md", "---\nname: flow\n---\n")
    for n in range(FILES // 2):
        write(root / f"skills/flow/evals/f{n:02d}.json", workflow_fixture(f"case-{n % 5}"))
    return root


def run_check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalfix_ls", "--check", str(root), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tree(tmp_path_factory.mktemp("jobs") / "repo")


def test_the_tree_is_split_over_two_workers() -> None:
    assert parallel.worker_count(2, FILES) == 2  # otherwise the comparisons below test nothing


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_jobs_give_the_same_report(tree: Path, fmt: str) -> None:
    one = run_check(tree, "--format", fmt, "--jobs", "1")
    two = run_check(tree, "--format", fmt, "--jobs", "2")
    assert one.returncode == two.returncode == 1, one.stderr + two.stderr
    assert one.stdout == two.stdout
    assert "duplicate_case_id" in one.stdout and "duplicate-id" in one.stdout


def test_results_come_back_in_planned_order(tree: Path) -> None:
    """The largest files are first: a pool that yielded in completion order would reorder them."""
    from evalfix_ls.batch.run import plan
    from evalfix_ls.config.project_config import ProjectConfigs
    from evalfix_ls.workspace.view import FileSystemView

    _, tasks = plan([tree], root=tree, cwd=tree, configs=ProjectConfigs())
    tasks.sort(key=lambda t: -t.path.stat().st_size)
    analyzer = Analyzer(FileSystemView())
    got = [task.display for task, _ in parallel.analyze_all(tasks, analyzer, 2)]
    assert got == [task.display for task in tasks]


def test_each_file_is_handed_on_before_the_next_is_analyzed(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, str]] = []
    original = Analyzer.analyze

    def analyze(self: Analyzer, task: FileTask) -> Analysis:
        events.append(("analyze", task.display))
        return original(self, task)

    monkeypatch.setattr(Analyzer, "analyze", analyze)

    def on_file(file: FileReport) -> None:
        events.append(("print", file.display))

    report = check_paths([tree], root=tree, jobs=1, on_file=on_file)
    expected = [
        event for file in report.files for event in (("analyze", file.display), ("print", file.display))
    ]
    assert events == expected


def test_jobs_must_be_positive(tree: Path) -> None:
    proc = run_check(tree, "--jobs", "0")
    assert proc.returncode == 2
    assert "--jobs: must be a whole number of at least 1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_workers_share_one_index_build(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ids index is built once for all workers (in parallel), not loaded again by each worker:
    a worker that loaded it itself would raise here (the forked workers inherit the patch)."""
    from evalfix_ls.batch.run import plan
    from evalfix_ls.config.project_config import ProjectConfigs
    from evalfix_ls.contracts.workflow.index import WorkflowIndex
    from evalfix_ls.workspace.view import FileSystemView

    def refuse(self: WorkflowIndex) -> None:
        raise AssertionError("a worker loaded the index itself")

    if parallel._context().get_start_method() != "fork":
        pytest.skip("workers inherit the patch only when forked (this process has threads)")
    monkeypatch.setattr(WorkflowIndex, "load_from_disk", refuse)
    _, tasks = plan([tree], root=tree, cwd=tree, configs=ProjectConfigs())
    results = list(parallel.analyze_all(tasks, Analyzer(FileSystemView()), 2))
    codes = [f.code for _, analysis in results for f in analysis.findings]
    assert codes.count("duplicate_case_id") == FILES // 2 - 5  # 24 files, 5 distinct ids


def test_a_host_with_threads_does_not_fork(tree: Path) -> None:
    """Forking copies locks that other threads may hold: with a second thread running, the
    workers start from a fork server instead, and give the same results."""
    from evalfix_ls.batch.run import plan
    from evalfix_ls.config.project_config import ProjectConfigs
    from evalfix_ls.workspace.view import FileSystemView

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert parallel._context().get_start_method() != "fork"
        _, tasks = plan([tree], root=tree, cwd=tree, configs=ProjectConfigs())
        parallel_run = [
            (t.display, a.findings) for t, a in parallel.analyze_all(tasks, Analyzer(FileSystemView()), 2)
        ]
    finally:
        stop.set()
        thread.join()
    sequential = [
        (t.display, a.findings) for t, a in parallel.analyze_all(tasks, Analyzer(FileSystemView()), 1)
    ]
    assert parallel_run == sequential
