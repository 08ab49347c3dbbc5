"""The traffic an editor sends, replayed against evalfix-ls and Microsoft's JSON language server.

One command (see bench/README.md): ``python -m bench.traffic``. Per size (``--sizes``, default
``200k,2m``), suite (``--suites clean,noisy``: the generated suite with the directories its cases
name present, or missing — a suite still being written, full of findings) and server, one pull
session with VS Code's capabilities for these methods (hierarchical symbols, code action resolve,
code lenses, inlay hints, links, folding):

* **settled** — each method alone on an analysed text (documentSymbol, foldingRange, codeLens,
  inlayHint, documentLink, hover, codeAction), ``--repeat`` times;
* **lightbulb** — at ``--moves`` cursor positions spread over the suite, an automatic
  ``textDocument/codeAction`` carrying the diagnostics of that line (as VS Code sends it on every
  cursor move), and a hover sent right behind it: how long the hover waits behind the code action;
* **typing** — ``--keys`` letters typed into a prompt in the middle of the suite at ten a second;
  after each keystroke, without waiting, what VS Code sends then: a diagnostic pull,
  documentSymbol, foldingRange, codeLens, inlayHint, documentLink, an automatic codeAction at the
  cursor, and a hover (the mouse resting on a member name near the cursor).

Per method: p50/p95 of the requests answered with a right answer (no error, and for symbols,
folding and diagnostics a non-empty one); requests answered ``ContentModified`` or failing are
counted apart, never as a time. The mix is modelled on what VS Code was believed to send (the
issue's list). ``--recorded [FILE]`` replays instead what a real VS Code sent (a recording of
``bench.tools.record_vscode``; ``bench/harness/replay.py``) on suites of 200 KB, 2 MB and 10 MB by default. A
server is only asked what its capabilities offer. The load average is printed at the start and the
end: on a shared machine every figure is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness.client import LspError
from bench.harness.common import describe_machine, fmt_mb, fmt_ms, print_table, save_results
from bench.harness.generate import (
    NEW_CASE,
    SUITE_REL_PATH,
    Suite,
    lsp_position,
    parse_sizes,
    prepare_suite,
)
from bench.harness.recording import DEFAULT_RECORDING as RECORDING
from bench.harness.replay import Samples, replay_session, right_answer
from bench.harness.session import (
    ServerSpec,
    Session,
    client_capabilities,
    ours_spec,
    peer_spec,
    run_then_stop,
)

KEY_INTERVAL = 0.1  # ten keystrokes a second
# Typed after a case, one character per keystroke: the text passes through invalid JSON as a new
# case is written (bench.lsp --typing types the same case).
TYPED = NEW_CASE
MIX = (
    "textDocument/diagnostic",
    "textDocument/documentSymbol",
    "textDocument/foldingRange",
    "textDocument/codeLens",
    "textDocument/inlayHint",
    "textDocument/documentLink",
    "textDocument/codeAction",
    "textDocument/hover",
)


def capabilities() -> dict[str, Any]:
    caps = client_capabilities(pull=True)
    text_document = caps["textDocument"]
    text_document["documentSymbol"] = {"hierarchicalDocumentSymbolSupport": True}
    text_document["codeAction"] = {
        "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source", "source.fixAll"]}},
        "resolveSupport": {"properties": ["edit"]},
        "dataSupport": True,
        "isPreferredSupport": True,
    }
    text_document["foldingRange"] = {"lineFoldingOnly": True, "rangeLimit": 5000}
    text_document["codeLens"] = {}
    text_document["inlayHint"] = {}
    text_document["documentLink"] = {"tooltipSupport": True}
    caps["workspace"]["workspaceEdit"] = {"documentChanges": True}
    return caps


@dataclass(slots=True)
class TrafficResult:
    startup: float | None = None
    findings: int = 0
    settled: Samples = field(default_factory=Samples)
    lightbulb: Samples = field(default_factory=Samples)
    typing: Samples = field(default_factory=Samples)
    peak_rss_kib: int | None = None
    error: str | None = None


VSCODE = {"name": "Visual Studio Code", "version": "1.95.0"}


class Traffic:
    """The three phases of the modelled mix, over one session with VS Code's capabilities."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.diagnostics: list[dict[str, Any]] = []
        self.result = TrafficResult()

    async def start(self) -> None:
        await self.session.start(capabilities(), VSCODE)
        self.result.startup = self.session.result.startup
        await self.session.open_pull()
        self.diagnostics = self.session.result.open_diagnostics
        self.result.findings = len(self.diagnostics)

    def params(self, method: str, line: int, character: int) -> dict[str, Any]:
        document = {"textDocument": {"uri": self.session.uri}}
        position = {"line": line, "character": character}
        if method in ("textDocument/hover",):
            return document | {"position": position}
        if method == "textDocument/inlayHint":
            visible = {
                "start": {"line": max(0, line - 30), "character": 0},
                "end": {"line": line + 30, "character": 0},
            }
            return document | {"range": visible}
        if method == "textDocument/codeAction":
            at_line = [
                d
                for d in self.diagnostics
                if d["range"]["start"]["line"] <= line <= d["range"]["end"]["line"]
            ]
            context = {"diagnostics": at_line, "triggerKind": 2}  # automatic: the lightbulb
            return document | {"range": {"start": position, "end": position}, "context": context}
        return document

    async def timed(self, samples: Samples, method: str, params: dict[str, Any]) -> float | None:
        """Send one request and record its latency if the answer is right."""
        if not self.session.offers(method):
            return None
        try:
            response = await self.session.client.request(method, params, timeout=self.session.open_timeout)
        except LspError as exc:
            samples.count_error(method, exc)
            return None
        if not right_answer(method, response.result, findings=self.result.findings):
            samples.failed[method] += 1
            return None
        samples.times[method].append(response.elapsed)
        return response.elapsed

    # -- the three phases --------------------------------------------------------------------

    async def settled(self, points: list[tuple[int, int]], repeat: int) -> None:
        line, character = points[len(points) // 2]
        for _ in range(repeat):
            for method in MIX[1:]:
                await self.timed(self.result.settled, method, self.params(method, line, character))

    async def lightbulb(self, points: list[tuple[int, int]]) -> None:
        for line, character in points:
            action, hover = "textDocument/codeAction", "textDocument/hover"
            await asyncio.gather(
                self.timed(self.result.lightbulb, action, self.params(action, line, character)),
                self.timed(self.result.lightbulb, hover, self.params(hover, line, character)),
            )

    async def typing(self, offset: int, hover_at: tuple[int, int], keys: int) -> None:
        pending: list[asyncio.Task[Any]] = []
        for index in range(keys):
            change = self.session.insert(offset, TYPED[index % len(TYPED)])
            offset += 1
            started = time.perf_counter()
            await self.session.client.send(change)
            cursor = lsp_position(self.session.text, offset)
            for method in MIX:
                where = hover_at if method == "textDocument/hover" else cursor
                request = self.timed(self.result.typing, method, self.params(method, *where))
                pending.append(asyncio.ensure_future(request))
            await asyncio.sleep(max(0.0, KEY_INTERVAL - (time.perf_counter() - started)))
        await asyncio.gather(*pending)


def cursor_points(text: str, count: int) -> list[tuple[int, int]]:
    """``count`` positions spread over the suite, each inside a case's ``"prompt"`` member name."""
    offsets = []
    at = text.find('"prompt"')
    while at >= 0:
        offsets.append(at + 2)
        at = text.find('"prompt"', at + 1)
    step = max(1, len(offsets) // max(1, count))
    return [lsp_position(text, offset) for offset in offsets[::step][:count]]


def typing_point(text: str) -> tuple[int, tuple[int, int]]:
    """The offset right after a case's closing ``},`` in the middle of the suite (where a new case
    is typed), and a hover point before it that the typing does not move (that case's
    ``"prompt"`` member name)."""
    case_end = text.index("\n    },", len(text) // 2) + len("\n    },")
    prompt = text.rfind('"prompt"', 0, case_end)
    return case_end, lsp_position(text, prompt + 2)


async def run_session(
    spec: ServerSpec, path: Path, suite: Suite, args: argparse.Namespace, log_dir: Path
) -> TrafficResult:
    session = Session(spec, path, suite, pull=True, log_dir=log_dir)
    traffic = Traffic(session)

    async def work() -> None:
        await traffic.start()
        points = cursor_points(session.text, args.moves)
        await traffic.settled(points, args.repeat)
        await traffic.lightbulb(points)
        offset, hover_at = typing_point(session.text)
        await traffic.typing(offset, hover_at, args.keys)

    traffic.result.error = await run_then_stop(session, work)
    traffic.result.peak_rss_kib = session.result.peak_rss_kib
    return traffic.result


def prepare(label: str, kind: str) -> tuple[Path, Suite]:
    return prepare_suite(label, f"traffic-{kind}-{label}", sources=kind == "clean")


COUNTED = (
    ("content_modified", "mod"),
    ("cancelled", "cancelled"),
    ("failed", "fail"),
    ("unanswered", "unanswered"),
)


def _cell(summary: dict[str, Any], method: str, *, waits: bool = False) -> str:
    """``p50 / p95`` of the right answers (with ``waits``: then their wait behind others), and
    the answers that were outdated, cancelled by the client or wrong; ``—`` alone: not offered."""
    entry = summary.get(method)
    counts = [f"{entry[key]} {word}" for key, word in COUNTED if entry and entry.get(key)]
    if not entry or not entry.get("n"):
        return "—" + (f" ({', '.join(counts)})" if counts else "")
    text = f"{fmt_ms(entry['p50'])} / {fmt_ms(entry['p95'])}"
    if waits:
        text += f" (wait {fmt_ms(entry['wait_p50'])} / {fmt_ms(entry['wait_p95'])})"
    return text + (f" ({', '.join(counts)})" if counts else "")


def print_report(rows: list[dict[str, Any]], names: list[str]) -> None:
    for phase in ("settled", "lightbulb", "typing"):
        print(f"\n{phase}: p50 / p95 per method (" + " | ".join(names) + ")")
        headers = ["suite", "method", *names]
        table = []
        for row in rows:
            for method in MIX:
                cells = [_cell(row["servers"].get(n, {}).get(phase, {}), method) for n in names]
                if any(cell != "—" for cell in cells):
                    table.append([f"{row['kind']}-{row['size']}", method.split("/")[-1], *cells])
        print_table(headers, table)
    print_sessions(rows)


def print_recorded(rows: list[dict[str, Any]], names: list[str]) -> None:
    print("\nrecorded VS Code traffic replayed: p50 / p95 per method of the right answers (wait behind")
    print("others p50 / p95); counts of answers outdated (mod), cancelled by the client or wrong (fail)")
    table = []
    for row in rows:
        summaries = [row["servers"].get(n, {}).get("replay", {}) for n in names]
        methods = sorted({method for summary in summaries for method in summary})
        for method in methods:
            cells = [_cell(summary, method, waits=True) for summary in summaries]
            table.append([f"{row['kind']}-{row['size']}", method.removeprefix("textDocument/"), *cells])
    print_table(["suite", "method", *names], table)
    skipped = {
        f"{row['kind']}-{row['size']} {name}": result.get("skipped")
        for row in rows
        for name, result in row["servers"].items()
        if result.get("skipped")
    }
    for where, methods in skipped.items():
        print(f"not offered, not sent: {where}: " + ", ".join(f"{m} ×{n}" for m, n in methods.items()))
    print_sessions(rows)


def print_sessions(rows: list[dict[str, Any]]) -> None:
    print("\nsessions: findings on open, startup, peak RSS")
    table = [
        [
            f"{row['kind']}-{row['size']}",
            name,
            str(result.get("findings")),
            fmt_ms(result.get("startup")),
            fmt_mb(result.get("peak_rss_kib")),
            result.get("error") or "",
        ]
        for row in rows
        for name, result in row["servers"].items()
    ]
    print_table(["suite", "server", "findings", "startup", "peak RSS", "error"], table)


async def one_session(
    spec: ServerSpec, path: Path, suite: Suite, args: argparse.Namespace, log_dir: Path
) -> dict[str, Any]:
    """One server on one suite: the recording replayed (``--recorded``), or the modelled mix."""
    if args.recorded:
        session = Session(spec, path, suite, pull=True, log_dir=log_dir)
        replayed = await replay_session(session, args.recording, args.drain)
        return {
            "startup": replayed.startup,
            "findings": replayed.findings,
            "peak_rss_kib": replayed.peak_rss_kib,
            "error": replayed.error,
            "replay": replayed.samples.summary(),
            "skipped": dict(replayed.skipped),
        }
    result = await run_session(spec, path, suite, args, log_dir)
    return {
        "startup": result.startup,
        "findings": result.findings,
        "peak_rss_kib": result.peak_rss_kib,
        "error": result.error,
        "settled": result.settled.summary(),
        "lightbulb": result.lightbulb.summary(),
        "typing": result.typing.summary(),
    }


async def main_async(args: argparse.Namespace) -> int:
    specs = [ours_spec()]
    if "vscode-json" in args.servers:
        peer = peer_spec(install=not args.no_install)
        if peer is not None:
            specs.append(peer)
    specs = [spec for spec in specs if spec.name in args.servers]
    log_dir = Path(__file__).resolve().parent / "results" / "traffic-logs"
    print(describe_machine(), flush=True)
    rows = []
    for label in parse_sizes(args.sizes):
        for kind in args.suites.split(","):
            path, suite = prepare(label, kind)
            assert path.as_posix().endswith(SUITE_REL_PATH)
            row: dict[str, Any] = {"size": label, "kind": kind, "bytes": suite.size, "servers": {}}
            for spec in specs:
                print(f"  {kind}-{label} {spec.name} …", flush=True)
                row["servers"][spec.name] = await one_session(spec, path, suite, args, log_dir)
            rows.append(row)
    names = [spec.name for spec in specs]
    print_recorded(rows, names) if args.recorded else print_report(rows, names)
    print(describe_machine())
    saved = {"runs": rows, "args": {k: v for k, v in vars(args).items() if k != "recording"}}
    print(f"results: {save_results('traffic-recorded' if args.recorded else 'traffic', saved)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.traffic", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="default 200k,2m; with --recorded 200k,2m,10m")
    parser.add_argument("--suites", default="clean,noisy")
    parser.add_argument("--servers", default="evalfix-ls,vscode-json")
    parser.add_argument("--keys", type=int, default=20, help="keystrokes typed with the mix (default 20)")
    parser.add_argument("--moves", type=int, default=10, help="lightbulb cursor positions (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="settled requests per method (default 5)")
    parser.add_argument("--no-install", action="store_true")
    parser.add_argument(
        "--recorded",
        nargs="?",
        const=RECORDING,
        type=Path,
        help=f"replay a recording of a real VS Code instead of the modelled mix (default {RECORDING.name})",
    )
    parser.add_argument(
        "--drain", type=float, default=120.0, help="--recorded: seconds answers are awaited after the replay"
    )
    args = parser.parse_args(argv)
    args.sizes = args.sizes or ("200k,2m,10m" if args.recorded else "200k,2m")
    if args.recorded:
        args.recording = json.loads(args.recorded.read_text(encoding="utf-8"))
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
