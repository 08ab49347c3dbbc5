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
counted apart, never as a time. The mix is modelled on what VS Code sends (the issue's list), not
recorded from a VS Code session. A server is only asked what its capabilities offer. The load
average is printed at the start and the end: on a shared machine every figure is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, describe_machine, fmt_mb, fmt_ms, percentile, print_table, save_results
from bench.generate import (
    SIZES,
    SUITE_REL_PATH,
    Suite,
    generate_suite,
    lsp_position,
    parse_sizes,
    write_suite_tree,
)
from bench.lsp_typing import NEW_CASE
from bench.lspclient import LspClient, LspError, RssSampler, file_uri
from bench.session import ServerSpec, client_capabilities, ours_spec, peer_spec

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
PROVIDERS = {
    "textDocument/diagnostic": "diagnosticProvider",
    "textDocument/documentSymbol": "documentSymbolProvider",
    "textDocument/foldingRange": "foldingRangeProvider",
    "textDocument/codeLens": "codeLensProvider",
    "textDocument/inlayHint": "inlayHintProvider",
    "textDocument/documentLink": "documentLinkProvider",
    "textDocument/codeAction": "codeActionProvider",
    "textDocument/hover": "hoverProvider",
}
# Answers that are wrong when empty (every hover point is a member name the schema documents); a
# diagnostic pull only where the suite holds findings.
NON_EMPTY = {"textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/hover"}


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
class Samples:
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    modified: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failed: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def summary(self) -> dict[str, Any]:
        return {
            method: {
                "n": len(values),
                "p50": percentile(values, 50) if values else None,
                "p95": percentile(values, 95) if values else None,
                "content_modified": self.modified.get(method, 0),
                "failed": self.failed.get(method, 0),
            }
            for method, values in self.times.items()
        } | {
            method: {
                "n": 0,
                "content_modified": self.modified.get(method, 0),
                "failed": self.failed.get(method, 0),
            }
            for method in {*self.modified, *self.failed}
            if method not in self.times
        }


@dataclass(slots=True)
class SessionResult:
    startup: float | None = None
    findings: int = 0
    settled: Samples = field(default_factory=Samples)
    lightbulb: Samples = field(default_factory=Samples)
    typing: Samples = field(default_factory=Samples)
    peak_rss_kib: int | None = None
    error: str | None = None


class TrafficSession:
    def __init__(self, spec: ServerSpec, path: Path, suite: Suite, log_dir: Path) -> None:
        self.spec = spec
        self.path = path
        self.uri = file_uri(path)
        self.root = path.parents[3]
        self.text = suite.text
        self.version = 1
        log = log_dir / f"{spec.name}-{self.root.name}.log"
        self.client = LspClient(spec.argv, cwd=self.root, settings=spec.settings, stderr_path=log)
        self.offered: set[str] = set()
        self.diagnostics: list[dict[str, Any]] = []
        self.result = SessionResult()
        self.timeout = 60 + 30 * len(self.text) / 1e6

    # -- protocol ----------------------------------------------------------------------------

    async def start(self) -> None:
        await self.client.start()
        root_uri = file_uri(self.root)
        init = await self.client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "Visual Studio Code", "version": "1.95.0"},
                "rootUri": root_uri,
                "workspaceFolders": [{"uri": root_uri, "name": self.root.name}],
                "capabilities": capabilities(),
                "initializationOptions": self.spec.init_options,
            },
            timeout=60,
        )
        self.result.startup = init.received_at - self.client.spawned_at
        offered = (init.result or {}).get("capabilities", {})
        # An empty options object offers the method too (the peer's ``documentLinkProvider: {}``).
        self.offered = {method for method, key in PROVIDERS.items() if offered.get(key) not in (None, False)}
        await self.client.notify("initialized", {})
        await self.client.notify("workspace/didChangeConfiguration", {"settings": self.spec.settings})
        item = {"uri": self.uri, "languageId": "json", "version": 1, "text": self.text}
        await self.client.notify("textDocument/didOpen", {"textDocument": item})
        self.diagnostics = await self._pull()
        self.result.findings = len(self.diagnostics)

    async def _pull(self) -> list[dict[str, Any]]:
        response = await self.client.request(
            "textDocument/diagnostic", {"textDocument": {"uri": self.uri}}, timeout=self.timeout
        )
        return list((response.result or {}).get("items") or [])

    def params(self, method: str, line: int, character: int) -> dict[str, Any]:
        document = {"textDocument": {"uri": self.uri}}
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
        if method not in self.offered:
            return None
        try:
            response = await self.client.request(method, params, timeout=self.timeout)
        except LspError as exc:
            # ContentModified, or ServerCancelled with retriggerRequest (a pull outdated by the next
            # keystroke, which the client re-sends): outdated, not wrong.
            outdated = "-32801" in str(exc) or "-32802" in str(exc)
            bucket = samples.modified if outdated else samples.failed
            bucket[method] += 1
            return None
        result = response.result
        if method == "textDocument/diagnostic":
            result = (result or {}).get("items") if (result or {}).get("kind") == "full" else ["unchanged"]
        wanted = method in NON_EMPTY or (method == "textDocument/diagnostic" and self.result.findings > 0)
        if wanted and not result:
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
            letter = TYPED[index % len(TYPED)]
            line, character = lsp_position(self.text, offset)
            at = {"line": line, "character": character}
            self.text = self.text[:offset] + letter + self.text[offset:]
            offset += 1
            self.version += 1
            change = {"range": {"start": at, "end": at}, "text": letter}
            started = time.perf_counter()
            await self.client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [change]},
            )
            cursor = lsp_position(self.text, offset)
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
) -> SessionResult:
    session = TrafficSession(spec, path, suite, log_dir)
    sampler: RssSampler | None = None
    try:
        await session.start()
        sampler = RssSampler(session.client.pid).start()
        points = cursor_points(session.text, args.moves)
        await session.settled(points, args.repeat)
        await session.lightbulb(points)
        offset, hover_at = typing_point(session.text)
        await session.typing(offset, hover_at, args.keys)
    except (LspError, OSError) as exc:
        session.result.error = str(exc)
    finally:
        if sampler is not None:
            session.result.peak_rss_kib = sampler.stop()
        await session.client.stop()
    return session.result


def prepare(label: str, kind: str) -> tuple[Path, Suite]:
    suite = generate_suite(SIZES[label])
    root = DATA_DIR / f"traffic-{kind}-{label}"
    return write_suite_tree(root, suite, sources=kind == "clean"), suite


def _cell(summary: dict[str, Any], method: str) -> str:
    entry = summary.get(method)
    if not entry or not entry.get("n"):  # "—" alone: not offered; else every answer outdated or wrong
        counts = [
            f"{entry[key]} {word}"
            for key, word in (("content_modified", "modified"), ("failed", "failed"))
            if entry and entry.get(key)
        ]
        return "—" + (f" ({', '.join(counts)})" if counts else "")
    text = f"{fmt_ms(entry['p50'])} / {fmt_ms(entry['p95'])}"
    if entry["content_modified"] or entry["failed"]:
        text += f" ({entry['content_modified']} mod, {entry['failed']} fail)"
    return text


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
                result = await run_session(spec, path, suite, args, log_dir)
                row["servers"][spec.name] = {
                    "startup": result.startup,
                    "findings": result.findings,
                    "peak_rss_kib": result.peak_rss_kib,
                    "error": result.error,
                    "settled": result.settled.summary(),
                    "lightbulb": result.lightbulb.summary(),
                    "typing": result.typing.summary(),
                }
            rows.append(row)
    print_report(rows, [spec.name for spec in specs])
    print(describe_machine())
    print(f"results: {save_results('traffic', {'runs': rows, 'args': vars(args)})}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.traffic", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200k,2m")
    parser.add_argument("--suites", default="clean,noisy")
    parser.add_argument("--servers", default="evalfix-ls,vscode-json")
    parser.add_argument("--keys", type=int, default=20, help="keystrokes typed with the mix (default 20)")
    parser.add_argument("--moves", type=int, default=10, help="lightbulb cursor positions (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="settled requests per method (default 5)")
    parser.add_argument("--no-install", action="store_true")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
