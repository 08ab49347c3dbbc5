"""Navigation benchmark: document symbols, folding ranges, selection ranges and code lenses on a
large suite, evalfix-ls vs Microsoft's JSON language server in the same run (same client, stdio,
one server at a time). The peer has no code lenses: its column says so.

    python -m bench.navigation                 # 2m and 10m
    python -m bench.navigation --sizes 2m --repeat 5

A latency counts only when the answer is right: a symbol answer must name the suite's cases, a
folding answer must fold the case array; an error reply or an empty list is reported, not timed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.client import LspError
from bench.harness.common import describe_machine, fmt_ms, median, percentile, print_table, save_results
from bench.harness.generate import lsp_position, parse_sizes
from bench.harness.session import ServerSpec, Session, ours_spec, peer_spec, prepare

REQUESTS = {
    "documentSymbol": "textDocument/documentSymbol",
    "foldingRange": "textDocument/foldingRange",
    "selectionRange": "textDocument/selectionRange",
    "codeLens": "textDocument/codeLens",
}


def _params(method: str, session: Session) -> dict[str, Any]:
    params: dict[str, Any] = {"textDocument": {"uri": session.uri}}
    if method == "selectionRange":
        at = session.suite.text.index('"prompt"', len(session.suite.text) // 2)
        line, character = lsp_position(session.suite.text, at + 3)
        params["positions"] = [{"line": line, "character": character}]
    return params


def _right(method: str, result: Any, session: Session) -> bool:
    if not result:
        return False
    if method == "documentSymbol":
        top = result[0]
        children = top.get("children") or []
        return len(children) > 100 or len(result) > 100  # hierarchical (ours) or the peer's flat tree
    if method == "foldingRange":
        return len(result) > 100
    if method == "selectionRange":
        return "parent" in result[0]
    return len(result) > 0


async def measure(spec: ServerSpec, label: str, repeat: int, log_dir: Path) -> dict[str, dict[str, Any]]:
    path, suite = prepare(label)
    session = Session(spec, path, suite, pull=True, log_dir=log_dir)
    out: dict[str, dict[str, Any]] = {}
    await session.start()
    try:
        await session.open_pull()
        for name, method in REQUESTS.items():
            times: list[float] = []
            note = ""
            for _ in range(repeat + 1):  # the first request warms up and is not timed
                try:
                    response = await session.client.request(method, _params(name, session), timeout=120)
                except LspError as error:  # an error reply (the peer has no code lenses)
                    note = f"error: {str(error)[:48]}"
                    break
                if not _right(name, response.result, session):
                    note = "wrong or empty answer"
                    break
                times.append(response.received_at - response.sent_at)
            out[name] = {"times": times[1:], "note": note}
    finally:
        await session.stop()
    return out


async def main_async(args: argparse.Namespace) -> int:
    specs = [ours_spec()]
    peer = None if args.no_peer else peer_spec(install=not args.no_install)
    if peer is not None:
        specs.append(peer)
    print(describe_machine())
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as log_dir:
        for label in args.sizes:
            for spec in specs:
                print(f"  {label} {spec.name} …", flush=True)
                results.setdefault(label, {})[spec.name] = await measure(
                    spec, label, args.repeat, Path(log_dir)
                )
    names = [spec.name for spec in specs]
    rows = []
    for label, by_server in results.items():
        for request in REQUESTS:
            row = [f"{label} {request} p50 / p90"]
            for name in names:
                entry = by_server[name][request]
                times = entry["times"]
                row.append(
                    f"{fmt_ms(median(times))} / {fmt_ms(percentile(times, 90))}"
                    if times
                    else entry["note"] or "—"
                )
            rows.append(row)
    print_table(["request", *names], rows)
    print(describe_machine())
    saved = save_results("navigation", {"results": results, "servers": names})
    print(f"results: {saved}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes("2m,10m"))
    parser.add_argument(
        "--repeat", type=int, default=10, help="timed requests per method (after one warm-up)"
    )
    parser.add_argument("--no-peer", action="store_true", help="measure evalfix-ls only")
    parser.add_argument("--no-install", action="store_true", help="do not npm-install the peer when missing")
    args = parser.parse_args(argv)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
