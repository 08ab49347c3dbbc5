"""Minified-input benchmark: ``evalfix-ls --check`` on a suite written on one line vs the same suite
pretty-printed, and on many findings in one object (a name repeated 50,000 and 200,000 times).

Run from the repository root (see bench/README.md):

    python -m bench.minified                 # the 5 MB suite, 3 runs each
    python -m bench.minified --size 2m --repeat 1

Many tools write JSON without indentation, so a suite is often one line of megabytes. Converting a
finding's offset to a (line, character) position used to scan from the line start: quadratic on
one line. Targets: the one-line suite checks in **no more than 2x** the time of the pretty-printed
one, and 200,000 repeated names cost **no more than 1.5x per name** what 50,000 cost (linear).
Times are wall-clock medians of ``--check`` subprocesses (interpreter start included).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/minified.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.analysis import ProcessRuns, run_process
from bench.harness.common import (
    DATA_DIR,
    describe_machine,
    evalfix_ls_command,
    fmt_ms,
    print_table,
    save_results,
)
from bench.harness.generate import KIB, generate_suite, write_suite_tree

ONE_LINE_TARGET = 2.0
PER_NAME_TARGET = 1.5
SIZES = {"2m": 2 * KIB * KIB, "5m": 5 * KIB * KIB}
REPEATED_NAMES = (50_000, 200_000)


def suite_trees(label: str) -> tuple[Path, Path]:
    """The same generated suite twice: as generated (indented), and re-serialised on one line."""
    suite = generate_suite(SIZES[label])
    pretty = write_suite_tree(DATA_DIR / f"pretty-{label}", suite)
    one_line = write_suite_tree(DATA_DIR / f"oneline-{label}", suite)
    text = json.dumps(json.loads(suite.text), ensure_ascii=False, separators=(",", ":"))
    one_line.write_text(text, encoding="utf-8")
    return pretty, one_line


def repeated_name_suite(count: int) -> Path:
    """One case holding ``count`` members named "k" on one line: ``count`` duplicate-key findings."""
    path = DATA_DIR / f"repeated-{count}" / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    members = ",".join(f'"k":{i}' for i in range(count))
    path.write_text(
        '{"skill_name":"x","evals":[{"id":"a","prompt":"请 😀",' + members + "}]}", encoding="utf-8"
    )
    return path


def check(path: Path, root: Path, repeat: int) -> ProcessRuns:
    argv = [*evalfix_ls_command(), "--check", "--format", "json", "--root", str(root), str(path)]
    return run_process(argv, repeat, root)


def verdict(value: float | None, target: float) -> str:
    return "n/a" if value is None else ("MET" if value <= target else "MISSED")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", choices=sorted(SIZES), default="5m")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(describe_machine())

    pretty, one_line = suite_trees(args.size)
    runs = {
        "pretty-printed": (pretty, check(pretty, pretty.parents[3], args.repeat)),
        "one line": (one_line, check(one_line, one_line.parents[3], args.repeat)),
    }
    for count in REPEATED_NAMES:
        path = repeated_name_suite(count)
        runs[f"{count:,} repeated names"] = (path, check(path, path.parents[1], args.repeat))

    rows = [
        [name, f"{path.stat().st_size:,}", fmt_ms(result.timing.median), str(sorted(set(result.exit_codes)))]
        for name, (path, result) in runs.items()
    ]
    print_table(["input", "bytes", "--check (median)", "exit"], rows, right=[False, True, True, False])

    def median_of(name: str) -> float | None:
        return runs[name][1].timing.median

    pretty_time, one_line_time = median_of("pretty-printed"), median_of("one line")
    one_line_ratio = one_line_time / pretty_time if pretty_time and one_line_time else None
    small, large = (median_of(f"{count:,} repeated names") for count in REPEATED_NAMES)
    per_name = (large / REPEATED_NAMES[1]) / (small / REPEATED_NAMES[0]) if small and large else None
    print(
        f"one line / pretty-printed: {one_line_ratio:.2f}x "
        f"(target <= {ONE_LINE_TARGET}x): {verdict(one_line_ratio, ONE_LINE_TARGET)}"
    )
    print(
        f"per repeated name, 200,000 vs 50,000: {per_name:.2f}x "
        f"(target <= {PER_NAME_TARGET}x): {verdict(per_name, PER_NAME_TARGET)}"
    )
    saved = save_results(
        "minified",
        {
            "size": args.size,
            "runs": {name: result.timing.runs for name, (_, result) in runs.items()},
            "one_line_ratio": one_line_ratio,
            "per_name_ratio": per_name,
        },
    )
    print(f"results: {saved}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
