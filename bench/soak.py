"""A compressed working week against one server (issue 33): does memory, do file descriptors,
threads and asyncio tasks stay flat over a long session? Prints figures; asserts nothing.

The week (``--operations``, default 20,000, against one server over stdio, a VS Code-like client,
pull diagnostics by default, ``--push`` for a push client): in the repository of
``bench.soak_workspace`` (200 suites of 2-200 KB, two of 2 MB, a 10 MB suite and one of 200,000
keys on disk; closed files are checked too: ``workspace/diagnostic`` pulls, or the push clients'
workspace scan), seeded random operations — documents opened, typed in (valid JSON, and a stray
quote that breaks it until the next keystroke removes it), their diagnostics pulled (or their
push awaited), pulls cancelled, symbols, folding and hovers asked, documents closed, skills moved
and deleted on disk (with the file events an editor sends), the configuration changed.

Every ``--sample-every`` operations (500) the server is left idle for ``SETTLE_SECONDS`` (its idle
clean-up runs after one second of quiet), then its RSS, open file descriptors and threads are read
from ``/proc`` and its asyncio tasks asked (``bench.soak_server``'s ``evalfix/bench/state``). The
table and an SVG of the four curves follow; the summary holds issue 33's done-means: RSS at the
end ≤ 1.2× RSS after ``WARM_UP_OPERATIONS`` (2,000), and file descriptors, threads and tasks at
the end equal to their values then.

Then (unless ``--no-hostile``) a second, fresh server goes through the hostile phase: each text of
``soak_workspace.hostile_texts`` opened, pulled, typed in with a pull cancelled, pulled and
closed, one after another; its RSS idle after all of them is compared with its RSS fresh (≤ 1.5×).

Run: ``python -m bench.soak`` (about half an hour here) or ``python -m bench.soak --operations
2000`` (a few minutes); ``--hostile-only`` runs the hostile phase alone (about a minute).
The server is the checkout's ``evalfix_ls`` importable by the interpreter
that runs the benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # python bench/soak.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness.common import describe_machine, fmt_mb, print_table, save_results
from bench.soak_plot import svg
from bench.soak_week import Week, started_server
from bench.soak_workspace import build_workspace, hostile_texts

SETTLE_SECONDS = 1.5  # idle before a sample: the server's idle clean-up runs after 1 s of quiet
WARM_UP_OPERATIONS = 2_000
MEASURES = ("RSS (MB)", "open fds", "threads", "asyncio tasks")
ALLOCATOR = (
    "allocated blocks",
    "malloc in use",
    "malloc free",
    "malloc mmapped",
    "pymalloc arenas",
    "used pools",
    "empty pools",
    "trailing empty",
)


def proc_status(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "Threads"):
            fields[name] = int(value.split()[0])
    fields["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return fields


async def sample(week: Week, done: int, started_at: float) -> dict[str, Any]:
    await asyncio.sleep(SETTLE_SECONDS)
    state = await week.server_state()
    status = proc_status(week.client.pid)
    return {
        "operations": done,
        "seconds": round(time.perf_counter() - started_at, 1),
        "rss_kib": status["VmRSS"],
        "peak_kib": status["VmHWM"],
        "fds": status["fds"],
        "threads": status["Threads"],
        "asyncio tasks": state["asyncio tasks"],
        "closed-file results": state["closed-file results"],
        "open documents": len(week.documents),
        **{key: state[key] for key in ALLOCATOR if key in state},
    }


async def run_week(root: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    workspace = build_workspace(root)
    print(f"workspace: {len(workspace.suites)} suites + {len(workspace.hostile)} hostile files under {root}")
    client = await started_server(root, pull=not args.push)
    week = Week(client, workspace, random.Random(args.seed), pull=not args.push)
    samples = []
    started_at = time.perf_counter()
    try:
        await week.first_look()
        samples.append(await sample(week, 0, started_at))
        _print_sample(samples[-1])
        for done in range(1, args.operations + 1):
            await week.step()
            if done % args.sample_every == 0 or done == args.operations:
                samples.append(await sample(week, done, started_at))
                _print_sample(samples[-1])
        print(f"operations by kind: {dict(sorted(week.counts.items()))}")
    finally:
        await client.stop()
    return samples


def _allocators(row: dict[str, Any]) -> str:
    """The server's allocated blocks and glibc heap figures, as one string."""
    return " ".join(
        f"{key} {fmt_mb(row[key] / 1024) if key.startswith('malloc') else row[key]}"
        for key in ALLOCATOR
        if key in row
    )


def _print_sample(row: dict[str, Any]) -> None:
    allocator = _allocators(row)
    print(
        f"  {row['operations']:>6} ops {row['seconds']:>7.1f} s  RSS {fmt_mb(row['rss_kib']):>9}"
        f"  fds {row['fds']:>3}  threads {row['threads']:>3}  tasks {row['asyncio tasks']:>3}"
        f"  closed-file results {row['closed-file results']:>4}  open {row['open documents']}  {allocator}",
        flush=True,
    )


async def run_hostile(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """A fresh server through the hostile texts; RSS fresh, peak, and idle after them all."""
    from bench.harness.generate import generate_suite

    texts = hostile_texts(generate_suite(2 * 1024 * 1024, seed=args.seed).text)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    client = await started_server(root, pull=True)
    week = Week(client, build_workspace(root, suites=0), random.Random(args.seed), pull=True)
    try:
        await asyncio.sleep(3 * SETTLE_SECONDS)  # initialized, warm-up imports done, idle
        fresh = proc_status(client.pid)["VmRSS"]
        print(
            f"hostile phase: fresh server {fmt_mb(fresh)}, {_allocators(await week.server_state())}",
            flush=True,
        )
        after = {}
        for index, (name, text) in enumerate(texts.items()):
            await week.hostile_round(root / "skills" / f"hostile{index}" / "evals" / "evals.json", text)
            await asyncio.sleep(SETTLE_SECONDS)
            after[name] = proc_status(client.pid)["VmRSS"]
            allocators = _allocators(await week.server_state())
            print(f"  {name:<26} closed: {fmt_mb(after[name]):>9}, {allocators}", flush=True)
        await asyncio.sleep(2 * SETTLE_SECONDS)
        status = proc_status(client.pid)
    finally:
        await client.stop()
    return {
        "fresh_kib": fresh,
        "after_each_kib": after,
        "end_kib": status["VmRSS"],
        "peak_kib": status["VmHWM"],
    }


def table(samples: list[dict[str, Any]]) -> None:
    headers = ["operations", "seconds", "RSS", "peak", "fds", "threads", "tasks", "closed results"]
    rows = [
        [
            str(s["operations"]),
            f"{s['seconds']:.0f}",
            fmt_mb(s["rss_kib"]),
            fmt_mb(s["peak_kib"]),
            str(s["fds"]),
            str(s["threads"]),
            str(s["asyncio tasks"]),
            str(s["closed-file results"]),
        ]
        for s in samples
    ]
    print_table(headers, rows, right=[True] * len(headers))


def verdicts(samples: list[dict[str, Any]], warm_up: int) -> list[str]:
    """Issue 33's done-means for the week, measured."""
    base = next((s for s in samples if s["operations"] >= warm_up), samples[0])
    end = samples[-1]
    lines = [
        f"RSS at the end / after {base['operations']} operations: "
        f"{end['rss_kib'] / base['rss_kib']:.2f}× (target ≤ 1.20×)"
    ]
    for key in ("fds", "threads", "asyncio tasks"):
        lines.append(f"{key}: {base[key]} after warm-up, {end[key]} at the end (target: equal)")
    return lines


def plot(samples: list[dict[str, Any]], path: Path, warm_up: int, caption: str) -> None:
    xs = [s["operations"] for s in samples]
    keys = ("rss_kib", "fds", "threads", "asyncio tasks")
    series = {
        title: (xs, [s[key] / (1024 if key == "rss_kib" else 1) for s in samples])
        for title, key in zip(MEASURES, keys, strict=True)
    }
    path.write_text(svg(series, warm_up, caption), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--operations", type=int, default=20_000)
    parser.add_argument("--sample-every", type=int, default=500)
    parser.add_argument("--push", action="store_true", help="a push client (default: pull, as VS Code)")
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile phase")
    parser.add_argument("--hostile-only", action="store_true", help="only the hostile phase (about a minute)")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--svg", type=Path, default=None, help="where to write the plot")
    args = parser.parse_args(argv)
    warm_up = min(WARM_UP_OPERATIONS, args.operations // 2)
    print(describe_machine(), flush=True)
    with tempfile.TemporaryDirectory(prefix="evalfix-soak-") as tmp:
        samples = [] if args.hostile_only else asyncio.run(run_week(Path(tmp) / "week", args))
        hostile = None if args.no_hostile else asyncio.run(run_hostile(Path(tmp) / "hostile", args))
    if samples:
        print()
        table(samples)
        print("\n" + "\n".join(verdicts(samples, warm_up)))
    if hostile is not None:
        ratio = hostile["end_kib"] / hostile["fresh_kib"]
        print(
            f"hostile phase: fresh {fmt_mb(hostile['fresh_kib'])}, peak {fmt_mb(hostile['peak_kib'])}, "
            f"after all closed {fmt_mb(hostile['end_kib'])}: {ratio:.2f}× (target ≤ 1.50×)"
        )
    machine = describe_machine()
    results = save_results("soak", {"samples": samples, "hostile": hostile, "machine": machine})
    print(machine)
    print(f"\nresults: {results}")
    if samples:
        picture = args.svg or results.with_suffix(".svg")
        plot(samples, picture, warm_up, f"{'push' if args.push else 'pull'} client; {machine}")
        print(f"plot: {picture}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
