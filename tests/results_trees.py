"""Writing run-result trees as the producers write them (run-results.md), for the results tests
(unit, CLI, LSP). Import as ``results_trees``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

# A row: (assertion as in evals.json, passed, evidence)
Row = tuple[object, bool, str]


def dump(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def text_of(assertion: object) -> str:
    return assertion if isinstance(assertion, str) else json.dumps(assertion)


def grading(case_id: str, rows: Sequence[Row]) -> dict[str, object]:
    passed = sum(1 for _a, ok, _e in rows if ok)
    return {
        "case_id": case_id,
        "assertion_results": [
            {"text": text_of(a), "passed": ok, "evidence": ev, "assertion": a} for a, ok, ev in rows
        ],
        "summary": {"passed": passed, "failed": len(rows) - passed, "total": len(rows),
                    "pass_rate": passed / len(rows) if rows else None},
    }  # fmt: skip


def timing(duration_ms: int = 41207, tokens: int = 12345, cost: float = 0.1234) -> dict[str, object]:
    return {
        "total_tokens": tokens,
        "duration_ms": duration_ms,
        "model": {"provider": "anthropic", "id": "claude-sonnet-4-5"},
        "estimated_cost_usd": cost,
    }


def arc_variant(folder: Path, case_id: str, rows: Sequence[Row], **timing_args: object) -> None:
    dump(folder / "grading.json", grading(case_id, rows))
    dump(folder / "timing.json", timing(**timing_args))  # type: ignore[arg-type]
    (folder / "outputs").mkdir(parents=True, exist_ok=True)
    (folder / "assistant.md").write_text(f"Hello from {case_id}\n", encoding="utf-8")


def case_folder(case_id: str) -> str:
    from evalfix_ls.results.naming import case_dir_name

    return case_dir_name(case_id)


def arc_run(run_root: Path, cases: dict[str, Sequence[Row]], **timing_args: object) -> Path:
    """A single-variant run: ``eval-<slug>/`` with the seven artifacts (the four read here)."""
    for case_id, rows in cases.items():
        arc_variant(run_root / case_folder(case_id), case_id, rows, **timing_args)
    return run_root


def arc_compare_run(
    run_root: Path,
    cases: dict[str, tuple[Sequence[Row], Sequence[Row]]],
    errors: dict[str, str] | None = None,
) -> Path:
    """A ``--compare`` run: ``with_skill``/``without_skill`` per case and ``benchmark.json`` (whose
    absolute paths point at another machine, as a tree copied from CI has them)."""
    entries = []
    for case_id, (with_rows, without_rows) in cases.items():
        folder = run_root / case_folder(case_id)
        arc_variant(folder / "with_skill", case_id, with_rows)
        arc_variant(
            folder / "without_skill", case_id, without_rows, duration_ms=30114, tokens=15020, cost=0.05
        )
        rate = sum(ok for _a, ok, _e in with_rows) / len(with_rows)
        base = sum(ok for _a, ok, _e in without_rows) / len(without_rows)
        entries.append({"case_id": case_id, "delta": rate - base})
    dump(
        run_root / "benchmark.json",
        {
            "benchmark_version": "1",
            "run_id": run_root.name,
            "generated_at": "2026-05-05T10:04:41.337Z",
            "cases": entries,
            "errors": [{"case_id": k, "message": v} for k, v in (errors or {}).items()],
            "metadata": {"extensions": {"artifact_root": "/home/elsewhere/run"}},
        },
    )
    return run_root


def suite(skill_dir: Path, cases: list[dict[str, object]], skill_name: str = "") -> Path:
    path = skill_dir / "evals" / "evals.json"
    dump(path, {"skill_name": skill_name or skill_dir.name, "evals": cases})
    (skill_dir / "SKILL.md").write_text("# skill\n", encoding="utf-8")
    return path


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root
