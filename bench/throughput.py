"""``--check --jobs N`` on a tree of many fixture files, next to ``check-jsonschema`` on the same files.

    python -m bench.throughput [--files 10000] [--jobs 1,2] [--repeat 3] [--no-install]

The tree (``bench/.data/tree-<files>/``, deterministic, written once): half eval suites
(``skills/sNNNN/evals/evals.json``, three generated cases each, without setup sources), half
workflow fixtures (``skills/flow-NN/evals/fixture-NNN.json``, three canonical cases each, their
``source_refs`` pointing at the skill's ``SKILL.md``). Every figure is the wall time of a whole
process, output to a file, median of ``--repeat`` runs after one warm-up. ``check-jsonschema``
runs twice (one schema per family, every file of that family on one command line); its time is
the sum. The text outputs of every ``--jobs`` value are compared byte for byte. Nothing here is a
test: it prints figures and the load average, which says how much other work skewed them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness.common import (
    DATA_DIR,
    REPO_ROOT,
    describe_machine,
    evalfix_ls_command,
    find_check_jsonschema,
    machine_summary,
    median,
    save_results,
)
from bench.harness.generate import DEFAULT_SEED, build_case

WORKFLOW_SCHEMA = REPO_ROOT / "schemas" / "workflow-fixture.schema.json"
EVALS_SCHEMA = REPO_ROOT / "schemas" / "evals.schema.json"
TIMEOUT = 1800


def build_tree(files: int) -> Path:
    root = DATA_DIR / f"tree-{files}"
    marker = root / ".complete"
    if marker.is_file():
        return root
    rng = random.Random(DEFAULT_SEED)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    suites, fixtures = files // 2, files - files // 2
    for n in range(suites):
        skill = root / f"skills/s{n:04d}"
        cases = [build_case(rng, n * 3 + k) for k in range(3)]
        for case in cases:
            case.pop("setup", None)
            case.pop("files", None)
        _write(skill / "SKILL.md", f"---\nname: s{n:04d}\n---\n")
        _write(
            skill / "evals/evals.json",
            json.dumps({"skill_name": f"s{n:04d}", "evals": cases}, ensure_ascii=False),
        )
    per_skill = 100
    for n in range(fixtures):
        skill = f"flow-{n // per_skill:02d}"
        _write(root / f"skills/{skill}/SKILL.md", f"---\nname: {skill}\n---\n")
        _write(root / f"skills/{skill}/evals/fixture-{n % per_skill:03d}.json", _fixture(skill, n))
    marker.write_text("", encoding="utf-8")
    return root


def _fixture(skill: str, n: int) -> str:
    cases = [
        {
            "id": f"c{n:05d}-trigger",
            "input": "请根据需求写计划 📋",
            "coverage_tags": ["trigger"],
            "expected_outcome": "Plans.",
        },
        {
            "id": f"c{n:05d}-boundary",
            "input": "Just write the code.",
            "coverage_tags": ["boundary"],
            "boundary_note": "No code.",
        },
        {
            "id": f"c{n:05d}-failure",
            "input": "No ticket given.",
            "coverage_tags": ["failure"],
            "expected_outcome": "Asks.",
        },
    ]
    body = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": skill,
        "source_refs": [f"skills/{skill}/SKILL.md"],
        "cases": cases,
    }
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def timed(argv: list[str], cwd: Path, repeat: int) -> tuple[float, float, int, bytes]:
    """Median wall time and median CPU time (user + system of the process and every process it
    waited for: the workers) of ``argv`` after a warm-up, its exit code and its stdout."""
    times, cpu, code, out = [], [], 0, b""
    for attempt in range(repeat + 1):
        with tempfile.TemporaryFile() as sink:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(argv, cwd=cwd, stdout=sink, stderr=subprocess.DEVNULL, timeout=TIMEOUT)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            sink.seek(0)
            out, code = sink.read(), proc.returncode
        if attempt:
            times.append(elapsed)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return median(times), median(cpu), code, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values (default 1,2)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-install", action="store_true", help="never pip-install check-jsonschema")
    args = parser.parse_args(argv)
    print(describe_machine())
    root = build_tree(args.files)
    evals = sorted(str(p) for p in root.glob("skills/s*/evals/evals.json"))
    flows = sorted(str(p) for p in root.glob("skills/flow-*/evals/*.json"))
    print(f"tree: {root} ({len(evals)} eval suites, {len(flows)} workflow fixtures)")
    count = len(evals) + len(flows)
    results: dict[str, object] = {"machine_start": machine_summary(), "files": count}
    outputs = {}
    for jobs in (int(j) for j in args.jobs.split(",")):
        seconds, cpu, code, out = timed(
            [*evalfix_ls_command(), "--check", "--jobs", str(jobs), str(root)], root, args.repeat
        )
        outputs[jobs] = out
        results[f"jobs_{jobs}"] = {"seconds": seconds, "cpu_seconds": cpu, "exit": code}
        print(
            f"evalfix-ls --check --jobs {jobs}: {seconds:8.2f} s  {count / seconds:8.0f} files/s"
            f"  CPU {cpu:7.2f} s  exit {code}"
        )
    cjs = find_check_jsonschema(install=not args.no_install)
    if cjs:
        total, total_cpu, codes = 0.0, 0.0, []
        for schema, paths in ((EVALS_SCHEMA, evals), (WORKFLOW_SCHEMA, flows)):
            seconds, cpu, code, _ = timed([*cjs, "--schemafile", str(schema), *paths], root, args.repeat)
            total, total_cpu = total + seconds, total_cpu + cpu
            codes.append(code)
        results["check_jsonschema"] = {"seconds": total, "cpu_seconds": total_cpu, "exit": codes}
        print(
            f"check-jsonschema (both schemas): {total:8.2f} s  {count / total:8.0f} files/s"
            f"  CPU {total_cpu:7.2f} s  exit {codes}"
        )
    first = next(iter(outputs.values()))
    identical = all(out == first for out in outputs.values())
    results["outputs_identical"] = identical
    print(
        f"text output identical for every --jobs value: {'yes' if identical else 'NO'} ({len(first):,} bytes)"
    )
    jobs_values = sorted(outputs)
    if len(jobs_values) > 1:
        base, best = results[f"jobs_{jobs_values[0]}"], results[f"jobs_{jobs_values[-1]}"]
        speedup = base["seconds"] / best["seconds"]  # type: ignore[index]
        results["speedup"] = speedup
        print(f"speed-up --jobs {jobs_values[-1]} over --jobs {jobs_values[0]}: {speedup:.2f}x")
    results["machine_end"] = machine_summary()
    print(describe_machine())
    print(f"results: {save_results('throughput', results)}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.path.insert(0, os.fspath(REPO_ROOT))
    sys.exit(main())
