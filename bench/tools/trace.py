"""Where each request's time went, from the server's request trace.

    EVALFIX_LS_TRACE=/tmp/trace.jsonl python -m bench.traffic --sizes 2m --suites noisy --servers evalfix-ls
    python -m bench.tools.trace /tmp/trace.jsonl [--method textDocument/hover] [--slowest 10]

The server writes one JSON line per step of each request when ``EVALFIX_LS_TRACE`` names a file
(``server/evalfix_ls/lsp/jsonrpc/trace.py``). Per method, this prints the p50 / p95 of each
segment between two steps (how long a request waited for the loop, its context — a quick tree or
an analysis —, a worker, the interpreter lock while it ran, the writer) and the requests that took
longest from being read to being taken by the writer, segment by segment. The time from the
writer to the client (the pipe, the client parsing what came before) is the client's to measure.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.harness.common import fmt_ms, percentile, print_table

# The steps in the order a request passes them (``waits``/``no quick tree``: only when it waited
# for an analysis; ``superseded``: answered with an error instead, see ``supersession.Supersession``).
ORDER = (
    "received",
    "handler",
    "no quick tree",
    "waits",
    "context",
    "queued",
    "started",
    "done",
    "answered",
    "superseded",
    "writing",
)


def load(path: Path) -> tuple[dict[object, dict[str, dict[str, Any]]], dict[object, str]]:
    """Per request id, its first record of each step; and each request's method."""
    steps: dict[object, dict[str, dict[str, Any]]] = defaultdict(dict)
    methods: dict[object, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        key = json.dumps(record.get("id"))
        steps[key].setdefault(record["step"], record)
        if record["step"] == "received":
            methods[key] = record["method"]
    return steps, methods


def segments(steps: dict[str, dict[str, Any]]) -> list[tuple[str, float]]:
    """``(step, seconds since the step before)`` for the steps the request passed, in order; for
    ``done``, the part of its worker's run spent without the CPU is given as ``lock`` as well."""
    out: list[tuple[str, float]] = []
    previous = None
    for step in ORDER:
        record = steps.get(step)
        if record is None:
            continue
        if previous is not None:
            out.append((step, record["t"] - previous))
            if step == "done" and "cpu" in record:
                out.append(("lock", max(0.0, record["t"] - previous - record["cpu"])))
        previous = record["t"]
    return out


def report(path: Path, method: str | None, slowest: int) -> None:
    steps, methods = load(path)
    per_method: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    totals: list[tuple[float, str, object]] = []
    for key, method_name in methods.items():
        if method is not None and method_name != method:
            continue
        parts = segments(steps[key])
        for step, seconds in parts:
            per_method[method_name][step].append(seconds)
        total = sum(seconds for step, seconds in parts if step != "lock")
        per_method[method_name]["total"].append(total)
        totals.append((total, method_name, key))
    rows = []
    for method_name in sorted(per_method):
        for step in (*ORDER[1:], "lock", "total"):
            values = per_method[method_name].get(step)
            if values:
                cell = f"{fmt_ms(percentile(values, 50))} / {fmt_ms(percentile(values, 95))}"
                rows.append([method_name, f"→ {step}", str(len(values)), cell])
    print("per method: p50 / p95 of the time from the step before to each step (read → writer)")
    print_table(["method", "segment", "n", "p50 / p95"], rows)
    print(f"\nthe {slowest} slowest requests, segment by segment:")
    for total, method_name, key in sorted(totals, reverse=True)[:slowest]:
        parts = " ".join(f"{step}+{fmt_ms(seconds)}" for step, seconds in segments(steps[key]))
        print(f"  {fmt_ms(total):>10} id {key} {method_name}: {parts}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path, help="the file EVALFIX_LS_TRACE named")
    parser.add_argument("--method", help="only this method")
    parser.add_argument("--slowest", type=int, default=10, help="how many of the slowest to list")
    args = parser.parse_args(argv)
    report(args.trace, args.method, args.slowest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
