"""A monorepo of skills (issue 30): does the editor stay as fast with 12,000 fixture files as with
one? ``python -m bench.monorepo`` generates repositories of N skills and measures, per size, the
batch checker and the server in both diagnostic modes, side by side:

* ``--check``: wall time and peak RSS over the whole tree (the linear reference);
* pull (a client that asks ``textDocument/diagnostic`` and ``workspace/diagnostic``, as VS Code
  does): open one suite → its first diagnostics, ``workspace/symbol`` right after the open and
  again once the server's start-up pass over the case ids ended (its log line; a user asks
  seconds after opening the editor), ``workspace/diagnostic`` with every report, the same again
  with ``previousResultIds`` (all unchanged), a keystroke → its diagnostics after the scan (p50),
  peak RSS, CPU while idle after the scan;
* push (the server scans the workspace and publishes): open → first publish, the scan complete
  (every file published once), a keystroke → its publish (p50), peak RSS, idle CPU;
* idle CPU: the share of a core over 3 s in which the client sends nothing, from 2 s after its
  last message (the server's idle clean-up, one collection, runs 1 s after the last analysis);
* bulk events (push): one ``didChangeWatchedFiles`` with 5,000 events (a ``git checkout``), then a
  keystroke in the open suite → its publish.

A latency counts only for a right, non-empty answer: the open suite's diagnostics must hold its
planted findings, the symbol answer must be non-empty, the workspace answer must report every
fixture file.

Each skill is ``skills/skill-i/SKILL.md`` and an ``evals/evals.json`` of 3 cases (≈ 2 KB) with a
missing seeded source and an invalid regular expression; every fifth skill also has a canonical
workflow fixture (``evals/workflow.json``): 1.2 fixture files per skill.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.harness.client import LspClient, file_uri, status_kib
from bench.harness.common import (
    describe_machine,
    evalfix_ls_command,
    fmt_mb,
    fmt_ms,
    median,
    print_table,
    save_results,
)
from bench.harness.session import client_capabilities

DEFAULT_SKILLS = "1000,3000,10000"
KEYSTROKES = 15
BULK_EVENTS = 5000
IDLE_WINDOW_S = 3.0
IDLE_SETTLE_S = 2.0  # quiet before the idle window (the idle clean-up runs 1 s after the last job)
SYMBOLS_INDEXED = "workspace symbols indexed"  # the server's log line when its start-up pass ended
TIMEOUT_S = 900.0
OPEN_SKILL = 7


# -- the repository ----------------------------------------------------------------------------


def suite(i: int) -> dict[str, Any]:
    cases = [
        {
            "id": f"case-{i}-{c}",
            "prompt": f"Greet the user of skill {i} in the style of case {c}; keep it short. " * 3,
            "setup": {"kind": "seeded", "sources": [{"from": f"files/missing-{c}.md"}]},
            "assertions": [
                "The reply greets the user by name",
                {"type": "regex-match", "path": "out.txt", "pattern": "([a-z"},
                {"type": "file-exists", "path": "out.txt"},
            ],
        }
        for c in range(3)
    ]
    return {"skill_name": f"skill-{i}", "evals": cases}


def workflow(i: int) -> dict[str, Any]:
    return {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": f"skill-{i}",
        "source_refs": [f"skills/skill-{i}/SKILL.md"],
        "cases": [
            {"id": f"wf-{i}-{k}", "input": "route this", "coverage_tags": ["trigger"], "expected_outcome": {}}
            for k in range(2)
        ],
    }


def generate(root: Path, skills: int) -> int:
    """Write the repository (kept between runs when its size matches); the fixture file count."""
    marker = root / ".generated"
    files = skills + (skills + 4) // 5
    if marker.is_file() and marker.read_text() == str(skills):
        return files
    shutil.rmtree(root, ignore_errors=True)
    (root / ".git").mkdir(parents=True)
    for i in range(skills):
        evals = root / "skills" / f"skill-{i}" / "evals"
        evals.mkdir(parents=True)
        (evals.parent / "SKILL.md").write_text(f"# skill {i}\n")
        (evals / "evals.json").write_text(json.dumps(suite(i), indent=2))
        if i % 5 == 0:
            (evals / "workflow.json").write_text(json.dumps(workflow(i), indent=2))
    marker.write_text(str(skills))
    return files


# -- measurements ------------------------------------------------------------------------------


def run_check(root: Path) -> dict[str, float]:
    """``evalfix-ls --check`` over the tree: wall seconds and peak RSS (KiB) of the child."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*evalfix_ls_command(), "--check", "."],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": time.perf_counter() - started, "rss_kib": float(usage.ru_maxrss)}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_kib(pid: int) -> float:
    return float(status_kib(pid, "VmHWM"))


async def idle_cpu(pid: int) -> float:
    """Share of a core used over IDLE_WINDOW_S while the client sends nothing, after
    IDLE_SETTLE_S of quiet."""
    await asyncio.sleep(IDLE_SETTLE_S)
    before = cpu_seconds(pid)
    await asyncio.sleep(IDLE_WINDOW_S)
    return (cpu_seconds(pid) - before) / IDLE_WINDOW_S


async def timed(call: Awaitable[Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await call
    return time.perf_counter() - started, result


class Editor:
    """One server session on the repository with one suite open."""

    def __init__(self, root: Path, *, pull: bool) -> None:
        self.root = root
        self.pull = pull
        self.client = LspClient(evalfix_ls_command(), cwd=root)
        self.path = root / "skills" / f"skill-{OPEN_SKILL}" / "evals" / "evals.json"
        self.uri = file_uri(self.path)
        self.text = self.path.read_text()
        self.version = 1

    async def start(self) -> None:
        await self.client.start()
        folder = {"uri": file_uri(self.root), "name": "monorepo"}
        caps = client_capabilities(pull=self.pull)
        # as VS Code declares it: a symbol's range is asked later (``workspaceSymbol/resolve``)
        caps["workspace"]["symbol"] = {"resolveSupport": {"properties": ["location.range"]}}
        params = {
            "processId": None,
            "rootUri": folder["uri"],
            "workspaceFolders": [folder],
            "capabilities": caps,
        }
        await self.client.request("initialize", params, timeout=TIMEOUT_S)
        await self.client.notify("initialized", {})

    async def open(self) -> float:
        """didOpen → the suite's first diagnostics (with its planted findings)."""
        mark = self.client.publish_mark(self.uri)
        started = time.perf_counter()
        document = {"uri": self.uri, "languageId": "json", "version": 1, "text": self.text}
        await self.client.notify("textDocument/didOpen", {"textDocument": document})
        await self._diagnostics(mark)
        return time.perf_counter() - started

    async def _diagnostics(self, mark: int) -> list[Any]:
        if self.pull:
            params = {"textDocument": {"uri": self.uri}}
            answer = await self.client.request("textDocument/diagnostic", params, timeout=TIMEOUT_S)
            items = (answer.result or {}).get("items") or []
        else:
            published = await self.client.wait_for_publish(
                self.uri, mark=mark, timeout=TIMEOUT_S, version=self.version
            )
            items = published.diagnostics
        codes = {item.get("code") for item in items}
        if not {"regex-invalid", "path-not-found"} <= codes:
            raise AssertionError(f"the open suite's diagnostics lack its planted findings: {sorted(codes)}")
        return items

    async def keystroke(self) -> float:
        """Type one character into the first prompt → the diagnostics of that version."""
        at = self.text.index('"prompt": "') + len('"prompt": "')
        self.text = self.text[:at] + "x" + self.text[at:]
        self.version += 1
        line = self.text.count("\n", 0, at)
        character = at - (self.text.rfind("\n", 0, at) + 1)
        change = {
            "range": {
                "start": {"line": line, "character": character},
                "end": {"line": line, "character": character},
            },
            "text": "x",
        }
        mark = self.client.publish_mark(self.uri)
        started = time.perf_counter()
        await self.client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [change]},
        )
        await self._diagnostics(mark)
        return time.perf_counter() - started

    async def symbols(self) -> float:
        elapsed, answer = await timed(
            self.client.request("workspace/symbol", {"query": "case-42"}, timeout=TIMEOUT_S)
        )
        if not answer.result:
            raise AssertionError("workspace/symbol answered nothing")
        return elapsed

    async def symbols_when_indexed(self) -> float:
        """``workspace/symbol`` once the server logged that its start-up pass ended."""
        deadline = time.perf_counter() + TIMEOUT_S
        while not any(line.startswith(SYMBOLS_INDEXED) for line in self.client.log.log_messages):
            if time.perf_counter() > deadline:
                raise AssertionError("the server never logged that the case ids were indexed")
            await asyncio.sleep(0.05)
        return await self.symbols()

    async def workspace_diagnostics(self, files: int) -> tuple[float, float]:
        """All reports, with a partial result token as VS Code sends one (its reports come as
        ``$/progress``); then again with their result ids and no token (every report unchanged:
        a request with a token would be held until something changes, as VS Code wants)."""
        token = str(uuid.uuid4())
        params = {"identifier": "evalfix-ls", "previousResultIds": [], "partialResultToken": token}
        elapsed, answer = await timed(self.client.request("workspace/diagnostic", params, timeout=TIMEOUT_S))
        partial = [item for value in self.client.partial_results.pop(token, []) for item in value["items"]]
        items = answer.result["items"] + partial
        if len({item["uri"] for item in items}) < files:
            raise AssertionError(f"workspace/diagnostic reported {len(items)} of {files} files")
        previous = [{"uri": item["uri"], "value": item["resultId"]} for item in items if item.get("resultId")]
        again, answer = await timed(
            self.client.request("workspace/diagnostic", {"previousResultIds": previous}, timeout=TIMEOUT_S)
        )
        kinds = {item["kind"] for item in answer.result["items"]}
        if kinds - {"unchanged"}:
            raise AssertionError(f"a second workspace/diagnostic with nothing changed answered {kinds}")
        return elapsed, again

    async def scan_complete(self, files: int, started: float) -> float:
        """Push: seconds from ``started`` until every fixture file had a publish."""
        while len(self.client.published) < files:
            await self.client.wait_for_any_publish(timeout=TIMEOUT_S)
        return max(items[0].received_at for items in self.client.published.values()) - started

    async def bulk_events(self) -> float:
        """5,000 change events in one notification, then a keystroke → its diagnostics."""
        paths = sorted(self.root.glob("skills/*/evals/evals.json"))[:BULK_EVENTS]
        changes = [{"uri": file_uri(path), "type": 2} for path in paths]
        await self.client.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        return await self.keystroke()

    async def stop(self) -> None:
        await self.client.stop()


async def measure_pull(root: Path, files: int) -> dict[str, float]:
    editor = Editor(root, pull=True)
    await editor.start()
    try:
        figures = {"open_s": await editor.open(), "symbol_s": await editor.symbols()}
        figures["symbol_indexed_s"] = await editor.symbols_when_indexed()
        figures["workspace_s"], figures["workspace_again_s"] = await editor.workspace_diagnostics(files)
        figures["keystroke_s"] = median([await editor.keystroke() for _ in range(KEYSTROKES)])
        figures["idle_cpu"] = await idle_cpu(editor.client.pid)
        figures["rss_kib"] = peak_kib(editor.client.pid)
        return figures
    finally:
        await editor.stop()


async def measure_push(root: Path, files: int) -> dict[str, float]:
    editor = Editor(root, pull=False)
    started = time.perf_counter()
    await editor.start()
    try:
        figures = {"open_s": await editor.open()}
        figures["scan_s"] = await editor.scan_complete(files, started)
        figures["keystroke_s"] = median([await editor.keystroke() for _ in range(KEYSTROKES)])
        figures["idle_cpu"] = await idle_cpu(editor.client.pid)
        figures["bulk_keystroke_s"] = await editor.bulk_events()
        figures["rss_kib"] = peak_kib(editor.client.pid)
        return figures
    finally:
        await editor.stop()


# -- report --------------------------------------------------------------------------------------


def fmt_s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s"


def fmt_share(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f} %"


# Per mode, the columns after "skills (files)" and "--check": (header, figure, format).
COLUMNS: dict[str, list[tuple[str, str, Callable[[Any], str]]]] = {
    "pull": [
        ("open→diag", "open_s", fmt_ms),
        ("ws/symbol", "symbol_s", fmt_ms),
        ("indexed", "symbol_indexed_s", fmt_ms),
        ("ws/diagnostic", "workspace_s", fmt_s),
        ("again", "workspace_again_s", fmt_ms),
        ("keystroke p50", "keystroke_s", fmt_ms),
        ("peak RSS", "rss_kib", fmt_mb),
        ("idle CPU", "idle_cpu", fmt_share),
    ],
    "push": [
        ("open→publish", "open_s", fmt_ms),
        ("scan complete", "scan_s", fmt_s),
        ("keystroke p50", "keystroke_s", fmt_ms),
        ("5,000 events→keystroke", "bulk_keystroke_s", fmt_ms),
        ("peak RSS", "rss_kib", fmt_mb),
        ("idle CPU", "idle_cpu", fmt_share),
    ],
}


def report(results: list[dict[str, Any]]) -> None:
    """One table per mode, each beside ``--check``'s time (the pull table with its RSS too)."""
    for mode, columns in COLUMNS.items():
        headers = ["skills (files)", "--check", *(["check RSS"] if mode == "pull" else [])]
        rows = []
        for row in results:
            figures = row.get(mode) or {}
            cells = [f"{row['skills']:,} ({row['files']:,})", fmt_s(row["check"]["wall_s"])]
            if mode == "pull":
                cells.append(fmt_mb(row["check"]["rss_kib"]))
            cells += [fmt(figures[key]) if figures.get(key) is not None else "-" for _, key, fmt in columns]
            rows.append(cells)
        print_table(headers + [header for header, _, _ in columns], rows)
        print()


async def run(sizes: list[int], data: Path, modes: list[str]) -> list[dict[str, Any]]:
    results = []
    for skills in sizes:
        root = data / f"monorepo-{skills}"
        files = generate(root, skills)
        row: dict[str, Any] = {"skills": skills, "files": files, "check": run_check(root)}
        for mode in modes:
            measure = measure_pull if mode == "pull" else measure_push
            try:
                row[mode] = await measure(root, files)
            except Exception as exc:  # noqa: BLE001 - a failed mode is reported, the others still run
                print(f"{skills} skills, {mode}: {exc}")
        results.append(row)
        print(f"{skills:,} skills done")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", default=DEFAULT_SKILLS, help="comma-separated repository sizes")
    parser.add_argument("--modes", default="pull,push", help="pull, push or both")
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).parent / ".data", help="where the trees go"
    )
    args = parser.parse_args()
    print(describe_machine())
    sizes = [int(size) for size in args.skills.split(",")]
    results = asyncio.run(run(sizes, args.data, args.modes.split(",")))
    report(results)
    print(describe_machine())
    save_results("monorepo", {"results": results})


if __name__ == "__main__":
    main()
