"""Analysis benchmark: ``evalfix_ls.analysis.analyze`` vs ``json.loads``, and ``evalfix-ls --check``
vs ``check-jsonschema`` on generated evals.json suites.

Run from the repository root (see bench/README.md):

    python -m bench.analysis                 # 20k, 200k, 2m, 10m
    python -m bench.analysis --quick         # 20k and 200k, fewer repeats
    python -m bench.analysis --profile 2m    # also cProfile one analysis and print the hot spots

Every time printed is the MEDIAN of the repeats (the count is printed); the best run is in the
JSON results file too. Subprocess times are wall-clock times from spawn to exit, interpreter start
included. Peak RSS of a subprocess comes from ``os.wait4`` (the kernel's ru_maxrss for that child),
taken by a small launcher interpreter so the benchmark's own memory does not leak into it.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/analysis.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.common import (
    DATA_DIR,
    EVALS_SCHEMA,
    Timing,
    describe_machine,
    evalfix_ls_command,
    find_check_jsonschema,
    fmt_mb,
    fmt_ms,
    fmt_ratio,
    machine_summary,
    print_table,
    ratio,
    save_results,
    time_in_process,
)
from bench.harness.generate import SIZES, parse_sizes, prepare_suite

RATIO_TARGET = 30.0
SEVERITY_WORDS = {1: "error", 2: "warning", 3: "information", 4: "hint"}

# (in-process repeats, subprocess repeats) per size; --quick and --repeat override them.
REPEATS = {"20k": (21, 7), "200k": (11, 5), "2m": (5, 3), "10m": (3, 3)}
QUICK_REPEATS = {"20k": (5, 2), "200k": (3, 2), "2m": (2, 1), "10m": (1, 1)}
SUBPROCESS_TIMEOUT = 600.0


@dataclass(slots=True)
class ProcessRuns:
    timing: Timing = field(default_factory=Timing)
    peak_rss_kib: int | None = None  # the largest ru_maxrss over the runs
    exit_codes: list[int] = field(default_factory=list)
    output_tail: str = ""


@dataclass(slots=True)
class SizeResult:
    label: str
    bytes: int
    cases: int
    path: str
    json_loads: Timing
    analyze: Timing
    findings: dict[str, int]
    check: ProcessRuns
    check_jsonschema: ProcessRuns | None

    @property
    def analysis_ratio(self) -> float | None:
        return ratio(self.analyze.median, self.json_loads.median)


# ---------------------------------------------------------------------------------------------
# Measuring


# Spawns one command and reports [wall seconds, ru_maxrss KiB, exit code] as JSON. The measured
# command is started from this small interpreter, not from the benchmark process, because a child's
# ru_maxrss starts at the RSS of the process that spawned it (Linux carries the parent's high-water
# mark across fork/vfork and exec): spawned from the benchmark, after it analysed a 10 MB suite in
# process, every child would "peak" at the benchmark's own size.
_LAUNCHER = """
import json, os, sys, time
argv, out = json.loads(sys.argv[1]), os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
actions = [(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2)]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
print(json.dumps([elapsed, usage.ru_maxrss, os.waitstatus_to_exitcode(status)]))
"""


def run_process(argv: list[str], repeats: int, cwd: Path) -> ProcessRuns:
    """Run ``argv`` ``repeats`` times after one warm-up (which fills the OS page cache and writes
    .pyc files). Per run: wall time from spawn to exit, and that child's own peak RSS from
    ``os.wait4``, both taken by a small launcher interpreter (see ``_LAUNCHER``)."""
    result = ProcessRuns()
    for attempt in range(repeats + 1):
        with tempfile.NamedTemporaryFile(suffix=".out") as output:
            launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, json.dumps(argv), output.name]
            proc = subprocess.Popen(launcher, cwd=cwd, stdout=subprocess.PIPE, start_new_session=True)
            try:
                stdout, _ = proc.communicate(timeout=SUBPROCESS_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the launcher and the command it started
                proc.communicate()
                raise
            elapsed, maxrss_kib, exit_code = json.loads(stdout)
            tail = Path(output.name).read_bytes()[-4000:].decode("utf-8", "replace")
        if attempt == 0:
            continue  # warm-up
        result.timing.runs.append(elapsed)
        result.exit_codes.append(exit_code)
        result.peak_rss_kib = max(result.peak_rss_kib or 0, int(maxrss_kib))  # KiB on Linux
        result.output_tail = tail
    return result


def measure_size(
    label: str, *, repeats: tuple[int, int], cjs: list[str] | None, check_cmd: list[str]
) -> SizeResult:
    from evalfix_ls.analysis import analyze
    from evalfix_ls.workspace.view import FileSystemView

    path, suite = prepare_suite(label, f"clean-{label}")
    repo_root = path.parents[3]
    text = path.read_text(encoding="utf-8")
    in_process, subprocess_repeats = repeats

    loads = time_in_process(lambda: json.loads(text), in_process)
    # A fresh file-system view per run, as one `--check` run has: existence checks are not free.
    whole = time_in_process(
        lambda: analyze(text, path=path, repo_root=repo_root, fs=FileSystemView()), in_process
    )
    analysis = analyze(text, path=path, repo_root=repo_root, fs=FileSystemView())
    findings = Counter(SEVERITY_WORDS.get(int(f.severity), str(f.severity)) for f in analysis.findings)
    findings["kind:" + analysis.kind] = 1

    check = run_process(
        [*check_cmd, "--check", "--root", str(repo_root), str(path)], subprocess_repeats, repo_root
    )
    cjs_runs = None
    if cjs is not None:
        cjs_runs = run_process(
            [*cjs, "--schemafile", str(EVALS_SCHEMA), str(path)], subprocess_repeats, repo_root
        )
    return SizeResult(
        label,
        suite.size,
        suite.case_count,
        str(path),
        loads,
        whole,
        dict(findings),
        check,
        cjs_runs,
    )


def profile_analysis(label: str, limit: int = 30) -> str:
    """cProfile one whole analysis of the ``label`` suite; the top functions by own time and by
    cumulative time, as text."""
    from evalfix_ls.analysis import analyze
    from evalfix_ls.workspace.view import FileSystemView

    path, _ = prepare_suite(label, f"clean-{label}")
    text = path.read_text(encoding="utf-8")
    profiler = cProfile.Profile()
    profiler.enable()
    analyze(text, path=path, repo_root=path.parents[3], fs=FileSystemView())
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    out.write(f"--- cProfile of analyze() on the {label} suite: by own time ---\n")
    stats.sort_stats("tottime").print_stats(limit)
    out.write("--- by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(limit)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Reporting


def report(results: list[SizeResult], repeats: dict[str, tuple[int, int]]) -> None:
    rows = []
    for r in results:
        cjs = r.check_jsonschema
        rows.append(
            [
                r.label,
                f"{r.bytes:,}",
                f"{r.cases:,}",
                fmt_ms(r.json_loads.median),
                fmt_ms(r.analyze.median),
                fmt_ratio(r.analysis_ratio),
                fmt_ms(r.check.timing.median),
                fmt_ms(cjs.timing.median) if cjs else "—",
                fmt_ratio(ratio(cjs.timing.median, r.check.timing.median)) if cjs else "—",
                fmt_mb(r.check.peak_rss_kib),
                fmt_mb(cjs.peak_rss_kib) if cjs else "—",
            ]
        )
    print()
    print_table(
        [
            "size",
            "bytes",
            "cases",
            "json.loads",
            "analyze",
            "analyze/loads",
            "--check",
            "check-jsonschema",
            "cjs/--check",
            "--check RSS",
            "cjs RSS",
        ],
        rows,
    )
    print()
    counts = ", ".join(
        f"{label} {repeats[label][0]}/{repeats[label][1]}" for label in (r.label for r in results)
    )
    print(f"Times are medians; repeats (in-process/subprocess) per size: {counts}; one warm-up run each.")
    print("--check and check-jsonschema are wall times of a whole process (interpreter start included).")
    for r in results:
        shown = {k: v for k, v in sorted(r.findings.items()) if not k.startswith("kind:")}
        kind = next((k[5:] for k in r.findings if k.startswith("kind:")), "?")
        exits = sorted(set(r.check.exit_codes))
        cjs_exits = sorted(set(r.check_jsonschema.exit_codes)) if r.check_jsonschema else []
        print(
            f"  {r.label}: contract {kind}; findings {shown or 'none'}; --check exit {exits}"
            + (f"; check-jsonschema exit {cjs_exits}" if r.check_jsonschema else "")
        )
        if any(code not in (0, 1) for code in r.check.exit_codes):
            print(f"    --check output: {r.check.output_tail.strip()[-500:]}")
        if r.check_jsonschema and any(code != 0 for code in r.check_jsonschema.exit_codes):
            print(f"    check-jsonschema output: {r.check_jsonschema.output_tail.strip()[-500:]}")
    print()
    print("Targets:")
    ratios = [(r.label, r.analysis_ratio) for r in results]
    met = all(value is not None and value <= RATIO_TARGET for _, value in ratios)
    detail = ", ".join(f"{label} {fmt_ratio(value)}" for label, value in ratios)
    print(
        f"  analyze ≤ {RATIO_TARGET:.0f}× json.loads at every size: {'MET' if met else 'MISSED'} ({detail})"
    )
    big = next((r for r in results if r.label == "10m"), None)
    if big is None:
        print("  --check faster than check-jsonschema on 10m: not measured (10m not in --sizes)")
    elif big.check_jsonschema is None:
        print("  --check faster than check-jsonschema on 10m: not measured (check-jsonschema unavailable)")
    else:
        ours, theirs = big.check.timing.median, big.check_jsonschema.timing.median
        verdict = "MET" if ours is not None and theirs is not None and ours < theirs else "MISSED"
        print(
            f"  --check faster than check-jsonschema on 10m: {verdict} ({fmt_ms(ours)} vs {fmt_ms(theirs)})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.analysis", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help=f"comma-separated sizes from {','.join(SIZES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="20k,200k unless --sizes; fewer repeats")
    parser.add_argument("--repeat", type=int, help="repeats for every measurement (overrides the defaults)")
    parser.add_argument("--no-install", action="store_true", help="never pip-install check-jsonschema")
    parser.add_argument("--profile", metavar="SIZE", help="also print a cProfile of one analysis of SIZE")
    args = parser.parse_args(argv)

    try:
        labels = parse_sizes(args.sizes) if args.sizes else (["20k", "200k"] if args.quick else list(SIZES))
        if args.profile:
            parse_sizes(args.profile)
    except ValueError as exc:
        parser.error(str(exc))
    table = QUICK_REPEATS if args.quick else REPEATS
    repeats = {label: (args.repeat, args.repeat) if args.repeat else table[label] for label in labels}

    cjs = find_check_jsonschema(install=not args.no_install)
    check_cmd = evalfix_ls_command()
    print(f"evalfix-ls: {' '.join(check_cmd)}; check-jsonschema: {' '.join(cjs) if cjs else 'unavailable'}")
    print(f"schema: {EVALS_SCHEMA}; suites under {DATA_DIR}")
    print(describe_machine())
    results: list[SizeResult] = []
    for label in labels:
        print(f"measuring {label} …", flush=True)
        results.append(measure_size(label, repeats=repeats[label], cjs=cjs, check_cmd=check_cmd))
    report(results, repeats)
    print(f"at the end: {describe_machine()}")
    profile_text = profile_analysis(args.profile) if args.profile else ""
    if profile_text:
        print()
        print(profile_text)
    payload: dict[str, Any] = {
        "machine": machine_summary(),
        "repeats": repeats,
        "results": [
            {**asdict(r), "analysis_ratio": r.analysis_ratio, "medians": _medians(r)} for r in results
        ],
        "profile": profile_text,
    }
    print(f"results written to {save_results('analysis', payload)}")
    return 0


def _medians(r: SizeResult) -> dict[str, float | None]:
    return {
        "json_loads": r.json_loads.median,
        "analyze": r.analyze.median,
        "analyze_best": r.analyze.best,
        "check": r.check.timing.median,
        "check_jsonschema": r.check_jsonschema.timing.median if r.check_jsonschema else None,
    }


if __name__ == "__main__":
    sys.exit(main())
