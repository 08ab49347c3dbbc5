"""arc-skill-eval's trees (run-results.md A.2–A.8): run roots, runs, one case's artifacts.

A folder is a run when it holds ``benchmark.json`` or an ``eval-*`` subfolder; otherwise an
``iteration-*`` folder is a bucket whose run children are runs too (structure, not names: a custom
run id may itself start with ``iteration-``). Runs are ordered by time: the run id's timestamp,
else ``benchmark.json``'s ``generated_at``, else the folder's mtime; bucket membership does not
count. A case is looked up newest run first (a run may hold a subset: ``--case``, an error, a run
still going), and the folder is confirmed by ``grading.json``'s ``case_id`` (ids that collide
after sanitizing share a folder; the later case overwrote the earlier).
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .model import ARC, CaseResult, GradedRow, Run, Timing, VariantResult
from .naming import BUCKET_PREFIX, CASE_PREFIX, case_dir_name, is_timestamp_run
from .reading import BENCHMARK_LIMIT, GRADING_LIMIT, NOT_YET, child_dirs, mtime_of, read_json

RUNS_FOLDER = "evals-runs"
WITH, WITHOUT = "with_skill", "without_skill"


@dataclass(frozen=True, slots=True)
class Benchmark:
    """What a compare run's ``benchmark.json`` adds: per-case deltas and errors."""

    deltas: Mapping[str, float]
    errors: Mapping[str, str]
    generated_at: float | None


def _is_run(path: Path) -> bool:
    if (path / "benchmark.json").is_file():
        return True
    try:
        return any(child.name.startswith(CASE_PREFIX) and child.is_dir() for child in path.iterdir())
    except OSError:
        return False


def _timestamp_seconds(name: str) -> float:
    # 2026-05-04T22-31-04-123Z
    parsed = time.strptime(name[:19], "%Y-%m-%dT%H-%M-%S")
    return calendar.timegm(parsed) + int(name[20:23]) / 1000


def _iso_seconds(value: object) -> float | None:
    if not isinstance(value, str) or len(value) < 19:
        return None
    try:
        parsed = time.strptime(value[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return float(calendar.timegm(parsed))


def find_runs(base: Path, repo_root: Path) -> list[Run]:
    """The runs under one run root (``S/evals-runs`` or ``<output-dir>/<skill folder>``), newest first."""
    runs = []
    for name, path in child_dirs(base, repo_root):
        if _is_run(path):
            runs.append(_run(name, path, repo_root))
        elif name.startswith(BUCKET_PREFIX):
            runs.extend(
                _run(f"{name}/{child}", inner, repo_root)
                for child, inner in child_dirs(path, repo_root)
                if _is_run(inner)
            )
    runs.sort(key=lambda run: run.order, reverse=True)
    return runs


def _run(label: str, path: Path, repo_root: Path) -> Run:
    name = path.name
    if is_timestamp_run(name):
        when = _timestamp_seconds(name)
    else:
        generated = None
        if (path / "benchmark.json").is_file():
            generated = _iso_seconds(_benchmark_field(path, repo_root))
        when = generated if generated is not None else mtime_of(path)
    return Run(ARC, label, path, when, (when, name))


def _benchmark_field(path: Path, repo_root: Path) -> object:
    data = read_json(path / "benchmark.json", repo_root, BENCHMARK_LIMIT)
    return data.get("generated_at") if isinstance(data, dict) else None


def read_benchmark(run: Run, repo_root: Path) -> Benchmark | None:
    """A compare run's benchmark (None: none, or not complete yet). Its absolute paths
    (``artifact_root``, ``case_artifacts``) are never used: folders are found from the run's own."""
    data = read_json(run.path / "benchmark.json", repo_root, BENCHMARK_LIMIT)
    if not isinstance(data, dict):
        return None
    deltas: dict[str, float] = {}
    for case in _list(data.get("cases")):
        if isinstance(case, dict) and isinstance(case.get("case_id"), str):
            delta = case.get("delta")
            if isinstance(delta, (int, float)) and not isinstance(delta, bool):
                deltas[case["case_id"]] = float(delta)
    errors = {
        error["case_id"]: str(error.get("message", ""))
        for error in _list(data.get("errors"))
        if isinstance(error, dict) and isinstance(error.get("case_id"), str)
    }
    return Benchmark(deltas, errors, _iso_seconds(data.get("generated_at")))


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


class Pending(Exception):
    """A result file exists but does not parse yet (half written): ``path`` names it."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path


def case_in_run(run: Run, case_id: str, repo_root: Path, benchmark: Benchmark | None) -> CaseResult | None:
    """The case's result in ``run`` (None: not there, or its folder belongs to another id).
    Raises ``Pending`` when its grading.json is there but half written."""
    folder = run.path / case_dir_name(case_id)
    if not folder.is_dir():
        return None
    compare = (folder / WITH).is_dir()
    primary = read_variant(folder / WITH if compare else folder, WITH if compare else "", case_id, repo_root)
    if primary is None:
        return None
    baseline = None
    if compare:
        try:
            baseline = read_variant(folder / WITHOUT, WITHOUT, case_id, repo_root)
        except Pending:
            baseline = None  # the baseline is being written: the primary result shows meanwhile
    delta = benchmark.deltas.get(case_id) if benchmark is not None else None
    if delta is None and baseline is not None and primary.pass_rate is not None:
        if baseline.pass_rate is not None:
            delta = primary.pass_rate - baseline.pass_rate
    error = benchmark.errors.get(case_id) if benchmark is not None else None
    return CaseResult(case_id, run, primary, baseline, delta, error)


def read_variant(folder: Path, name: str, case_id: str, repo_root: Path) -> VariantResult | None:
    grading_path = folder / "grading.json"
    grading = read_json(grading_path, repo_root, GRADING_LIMIT)
    if grading is NOT_YET:
        raise Pending(grading_path)
    if not isinstance(grading, dict) or grading.get("case_id") != case_id:
        return None
    rows = tuple(_row(row) for row in _list(grading.get("assertion_results")) if isinstance(row, dict))
    return VariantResult(name, folder, True, rows, read_timing(folder, repo_root))


def _row(row: dict[str, object]) -> GradedRow:
    from .matching import canonical

    passed = row.get("passed") is True
    copy = row.get("assertion")
    has_copy = "assertion" in row
    text, evidence = str(row.get("text", "")), str(row.get("evidence", ""))
    return GradedRow(text, passed, evidence, copy, has_copy, canonical(copy) if has_copy else None)


def read_timing(folder: Path, repo_root: Path) -> Timing | None:
    """``timing.json`` of either producer (arc: ``duration_ms``, tokens, cost, model; skill-creator:
    ``duration_ms`` or ``total_duration_seconds``, tokens, no cost). A half-written one is absent."""
    data = read_json(folder / "timing.json", repo_root)
    if not isinstance(data, dict):
        return None
    duration = _number(data.get("duration_ms"))
    if duration is None and (seconds := _number(data.get("total_duration_seconds"))) is not None:
        duration = seconds * 1000
    tokens = _number(data.get("total_tokens"))
    model = data.get("model")
    model_id = model.get("id") if isinstance(model, dict) else None
    return Timing(
        duration,
        int(tokens) if tokens is not None else None,
        _number(data.get("estimated_cost_usd")),
        model_id if isinstance(model_id, str) else None,
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
