"""Memory across editing cycles: the server's RSS while pulls are cancelled, after close, and over
many open/edit/close cycles of small documents (issue 14). Prints figures; asserts nothing.

Scenarios (the real server over stdio, a pull client like VS Code):

* ``cancelled``: a large suite (``--size``, default 2.4 MB) is opened; ``--rounds`` times a
  character is typed, a ``textDocument/diagnostic`` is sent and cancelled right away (typing never
  stops); then one pull is answered, the document is closed and the server left idle.
* ``typing``: the same suite, ``--rounds`` edits each answered by a pull, then close and idle.
* ``cycles``: ``--cycles`` small suites opened, edited, pulled and closed one after another.

RSS is read from ``/proc/<pid>/status`` (Linux). For the two suite scenarios a summary prints,
side by side, the RSS before the document was opened (after ``initialized`` and the warm-up
imports, idle), the peak (VmHWM and a 20 ms sampler) and after close and idling, with the ratio
of the last to the first (issue 19, point 5: within 20 %). ``--noisy``: the suite laid out without
the directories its cases copy from (thousands of findings, like ``bench.traffic``'s noisy suite).
Run: ``python -m bench.memory`` (``--quick``:
a 200 KB suite and 60 cycles). The server is the ``evalfix-ls`` next to the interpreter that runs
the benchmark, so another checkout's venv python measures that checkout's server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # python bench/memory.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness.client import LspClient, RssSampler, file_uri, status_kib
from bench.harness.common import describe_machine, evalfix_ls_command, fmt_mb, save_results
from bench.harness.generate import generate_suite, write_suite_tree
from bench.harness.session import client_capabilities, initialize_params

IDLE_SECONDS = 3.0  # after close: long enough for the server's idle clean-up
WARM_UP_SECONDS = 3.0  # after ``initialized``: the analysis core is imported, then idle
TIMEOUT = 120.0


async def started(
    root: Path, *, argv: list[str] | None = None, pull: bool = True, settings: dict[str, Any] | None = None
) -> LspClient:
    """The server (``argv``, default: this checkout's ``evalfix-ls``) initialized on ``root``."""
    client = LspClient(argv or evalfix_ls_command(), cwd=root, settings=settings)
    await client.start()
    params = initialize_params(root, client_capabilities(pull=pull), processId=None)
    await client.request("initialize", params, timeout=TIMEOUT)
    await client.notify("initialized", {})
    return client


def _did_change(uri: str, version: int, offset_line: int) -> dict[str, Any]:
    position = {"line": offset_line, "character": 0}
    return {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": position, "end": position}, "text": " "}],
    }


async def edit_session(root: Path, path: Path, rounds: int, *, cancel: bool) -> list[tuple[str, int]]:
    """RSS after open, after each round, after close and after idling."""
    client = await started(root)
    uri = file_uri(path)
    text = path.read_text(encoding="utf-8")
    await asyncio.sleep(WARM_UP_SECONDS)
    samples = [("before open", status_kib(client.pid, "VmRSS"))]
    sampler = RssSampler(client.pid).start()
    try:
        await client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}},
        )
        await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout=TIMEOUT)
        samples.append(("opened", status_kib(client.pid, "VmRSS")))
        for n in range(rounds):
            await client.notify("textDocument/didChange", _did_change(uri, n + 2, 2 + n))
            pull = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout=TIMEOUT)
            if cancel:
                task = asyncio.ensure_future(pull)
                await asyncio.sleep(0.05)  # the analysis has started
                await client.notify("$/cancelRequest", {"id": client._next_id})
                await asyncio.wait({task}, timeout=TIMEOUT)
                if task.done() and not task.cancelled():
                    task.exception()  # the expected "request cancelled" answer (or a late result)
            else:
                await pull
            samples.append((f"round {n + 1}", status_kib(client.pid, "VmRSS")))
        await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout=TIMEOUT)
        samples.append(("answered", status_kib(client.pid, "VmRSS")))
        await client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        await asyncio.sleep(0.5)
        samples.append(("closed", status_kib(client.pid, "VmRSS")))
        await asyncio.sleep(IDLE_SECONDS)
        samples.append(("idle", status_kib(client.pid, "VmRSS")))
        samples.append(("peak", sampler.stop()))
    finally:
        await client.stop()
    return samples


async def cycles_session(root: Path, cycles: int) -> list[tuple[str, int]]:
    client = await started(root)
    samples = []
    small = json.dumps(
        {"skill_name": "bench-skill", "evals": [{"id": f"c{n}", "prompt": f"写 🎉 {n}"} for n in range(20)]},
        ensure_ascii=False,
        indent=2,
    )
    try:
        for n in range(cycles):
            uri = file_uri(root / "skills" / f"doc{n}" / "evals" / "evals.json")
            item = {"uri": uri, "languageId": "json", "version": 1, "text": small}
            await client.notify("textDocument/didOpen", {"textDocument": item})
            await client.notify("textDocument/didChange", _did_change(uri, 2, 1))
            await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout=TIMEOUT)
            await client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            if (n + 1) % max(1, cycles // 6) == 0:
                samples.append((f"{n + 1} closed", status_kib(client.pid, "VmRSS")))
        await asyncio.sleep(IDLE_SECONDS)
        samples.append(("idle", status_kib(client.pid, "VmRSS")))
    finally:
        await client.stop()
    return samples


def summary(results: dict[str, list[tuple[str, int]]]) -> list[str]:
    """Before open / peak / after close (idle) per scenario, side by side."""
    lines = [f"{'scenario':<10} {'before open':>12} {'peak':>10} {'after close':>12} {'after / before':>15}"]
    for name, samples in results.items():
        found = dict(samples)
        if "before open" not in found:
            continue
        before, peak, after = found["before open"], found["peak"], found["idle"]
        lines.append(
            f"{name:<10} {fmt_mb(before):>12} {fmt_mb(peak):>10} {fmt_mb(after):>12} {after / before:>14.2f}×"
        )
    return lines


def show(title: str, samples: list[tuple[str, int]]) -> None:
    print(f"\n{title}")
    for label, kib in samples:
        print(f"  {label:<14} {fmt_mb(kib):>10}")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    size = int(float(args.size) * 1024 * 1024)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="evalfix-memory-") as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        suite = generate_suite(size)
        path = write_suite_tree(root, suite, sources=not args.noisy)
        print(f"suite: {suite.size / 1024 / 1024:.1f} MB, {args.rounds} rounds, {args.cycles} cycles")
        for name, cancel in (("cancelled", True), ("typing", False)):
            samples = await edit_session(root, path, args.rounds, cancel=cancel)
            show(f"{name}: pulls {'cancelled' if cancel else 'answered'} while typing, then close", samples)
            results[name] = samples
        samples = await cycles_session(root, args.cycles)
        show("cycles: small documents opened, edited, pulled and closed", samples)
        results["cycles"] = samples
    print("\n" + "\n".join(summary(results)))
    return results


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--size", default="2.4", help="suite size in MB (default 2.4)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="a 0.2 MB suite and 60 cycles")
    parser.add_argument("--noisy", action="store_true", help="a suite whose cases name missing files")
    args = parser.parse_args(argv)
    if args.quick:
        args.size, args.cycles = "0.2", 60
    print(describe_machine(), flush=True)
    results = asyncio.run(run(args))
    print(describe_machine())
    print(f"\nresults: {save_results('memory', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
