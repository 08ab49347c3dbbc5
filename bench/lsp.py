"""LSP benchmark: evalfix-ls (``python -m evalfix_ls``) vs Microsoft's JSON language server
(``vscode-json-language-server --stdio`` from the npm package vscode-langservers-extracted, given
``schemas/evals.schema.json`` for ``evals/evals.json``), driven by the same asyncio client over stdio.

Run from the repository root (see bench/README.md):

    python -m bench.lsp                      # 20k, 200k, 2m, 10m
    python -m bench.lsp --quick              # 20k and 200k, fewer edits
    python -m bench.lsp --sizes 2m --servers evalfix-ls

Per size and server, two sessions, one after the other (never two servers at once):

* pull session — the client advertises ``textDocument.diagnostic`` (as VS Code does): open → the
  answer to the first ``textDocument/diagnostic``; then single-character edits typed into a case's
  prompt (incremental ``didChange`` + diagnostic request, timed until the answer), then whole-document
  replacements; the diagnostics on open are checked against the planted violations.
* push session — no pull capability: open → first ``publishDiagnostics``; then bursts of keystrokes
  30 ms apart, timed from the last keystroke to the diagnostics for that version.

Startup is spawn → ``initialize`` result (every session contributes one sample). Peak memory is the
RSS of the server's process tree, sampled from /proc every 20 ms (or the kernel's high-water mark
of the server process if larger). Everything has a timeout; only the children's pipes are used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pstats
import sys
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/lsp.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.client import LspError
from bench.harness.common import (
    DATA_DIR,
    RESULTS_DIR,
    describe_machine,
    fmt_mb,
    fmt_ms,
    fmt_ratio,
    machine_summary,
    median,
    percentile_or_none,
    print_table,
    ratio,
    save_results,
)
from bench.harness.generate import SIZES, SUITE_REL_PATH, Planted, Suite, lsp_position, parse_sizes
from bench.harness.session import (
    KEYSTROKE_GAP,
    KEYSTROKES,
    OURS,
    PEER,
    PEER_PACKAGE,
    SETTLE,
    ServerSpec,
    Session,
    SessionResult,
    ours_spec,
    peer_spec,
    prepare,
)
from bench.lsp_editing import EDITING_PLANS, QUICK_EDITING_PLANS, EditingPlan, measure_editing

TYPING_TARGET = 0.150  # seconds from the last keystroke, up to 200 KB
WARMUP_EDITS = 2  # untimed edits of each kind first, so neither runtime is timed while warming up


@dataclass(frozen=True, slots=True)
class Plan:
    single_edits: int
    whole_edits: int
    bursts: int
    editing: EditingPlan | None = None  # completion and hover (pull sessions)


PLANS = {
    "20k": Plan(30, 10, 8, EDITING_PLANS["20k"]),
    "200k": Plan(30, 10, 8, EDITING_PLANS["200k"]),
    "2m": Plan(20, 8, 4, EDITING_PLANS["2m"]),
    "10m": Plan(12, 5, 3, EDITING_PLANS["10m"]),
}
QUICK_PLANS = {
    "20k": Plan(10, 4, 2, QUICK_EDITING_PLANS["20k"]),
    "200k": Plan(10, 4, 2, QUICK_EDITING_PLANS["200k"]),
    "2m": Plan(6, 3, 2, QUICK_EDITING_PLANS["2m"]),
    "10m": Plan(4, 2, 1, QUICK_EDITING_PLANS["10m"]),
}


async def pull_workload(session: Session, plan: Plan) -> None:
    await session.open_pull()
    for _ in range(WARMUP_EDITS):
        await session.edit_pull(whole=False)
        await session.edit_pull(whole=True)
    for _ in range(plan.single_edits):
        session.result.single_edits.append(await session.edit_pull(whole=False))
    for _ in range(plan.whole_edits):
        session.result.whole_edits.append(await session.edit_pull(whole=True))
    if plan.editing is not None:
        session.result.editing = await measure_editing(session, plan.editing)


async def push_workload(session: Session, plan: Plan) -> None:
    await session.open_push()
    await asyncio.sleep(SETTLE)
    for _ in range(plan.bursts):
        session.result.typing.append(await session.typing_burst())


async def run_session(
    spec: ServerSpec, path: Path, suite: Suite, plan: Plan, log_dir: Path, *, pull: bool, watch_files: bool
) -> SessionResult:
    """One session; a failure (timeout, crash, protocol error) is recorded, not raised."""
    session = Session(spec, path, suite, pull=pull, log_dir=log_dir, watch_files=watch_files)
    try:
        await session.start()
        await (pull_workload if pull else push_workload)(session, plan)
    except (LspError, OSError) as exc:
        session.result.error = f"{type(exc).__name__}: {exc}"
    finally:
        await session.stop()
    return session.result


# ---------------------------------------------------------------------------------------------
# Planted violations


@dataclass(slots=True)
class RangeCheck:
    code: str
    what: str
    expected: str
    verdicts: dict[str, str] = field(default_factory=dict)  # server → "exact" / "other range …" / "missed"


def _range_text(rng: dict[str, Any]) -> str:
    s, e = rng["start"], rng["end"]
    return f"{s['line'] + 1}:{s['character'] + 1}–{e['line'] + 1}:{e['character'] + 1}"


def check_planted(suite: Suite, diagnostics_by_server: dict[str, list[dict[str, Any]]]) -> list[RangeCheck]:
    """Did each server report each planted violation at exactly its anchor range? ``exact``: a
    diagnostic with that range (and, for evalfix-ls, the planted code); ``other range``: none
    exact, but one inside the planted case; ``missed``: nothing inside that case."""
    checks = []
    for planted in suite.planted:
        expected = _lsp_range(suite.text, planted)
        check = RangeCheck(planted.code, planted.what, _range_text(expected))
        case_range = _case_line_range(suite, planted)
        for server, diagnostics in diagnostics_by_server.items():
            check.verdicts[server] = _verdict(server, planted, expected, case_range, diagnostics)
        checks.append(check)
    return checks


def _lsp_range(text: str, planted: Planted) -> dict[str, Any]:
    (sl, sc), (el, ec) = lsp_position(text, planted.start), lsp_position(text, planted.end)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def _case_line_range(suite: Suite, planted: Planted) -> tuple[int, int]:
    """First and last line of the planted case (cases are 4-space indented objects)."""
    text = suite.text
    start = text.rfind("\n    {", 0, planted.start + 1) + 1
    end = text.find("\n    }", planted.start)
    return text.count("\n", 0, start), text.count("\n", 0, end if end != -1 else len(text)) + 1


def _verdict(
    server: str,
    planted: Planted,
    expected: dict[str, Any],
    case_lines: tuple[int, int],
    diagnostics: list[dict[str, Any]],
) -> str:
    same_range = [d for d in diagnostics if d.get("range") == expected]
    if server == OURS:
        same_range = [d for d in same_range if d.get("code") == planted.code]
    if same_range:
        return "exact"
    first, last = case_lines
    inside = [d for d in diagnostics if first <= d.get("range", {}).get("start", {}).get("line", -1) <= last]
    if inside:
        return "other range " + ", ".join(sorted({_range_text(d["range"]) for d in inside})[:3])
    return "missed"


# ---------------------------------------------------------------------------------------------
# Running and reporting


@dataclass(slots=True)
class SizeRun:
    label: str
    bytes: int
    cases: int
    pull: dict[str, SessionResult] = field(default_factory=dict)
    push: dict[str, SessionResult] = field(default_factory=dict)
    planted: list[RangeCheck] = field(default_factory=list)

    def peak_rss(self, server: str) -> int | None:
        values = [
            r.peak_rss_kib for r in (self.pull.get(server), self.push.get(server)) if r and r.peak_rss_kib
        ]
        return max(values) if values else None


async def run_size(
    label: str, specs: list[ServerSpec], plan: Plan, log_dir: Path, *, watch_files: bool
) -> SizeRun:
    path, suite = prepare(label)
    assert path == DATA_DIR / f"planted-{label}" / SUITE_REL_PATH
    run = SizeRun(label, suite.size, suite.case_count)
    for spec in specs:
        print(f"  {label} {spec.name}: pull session …", flush=True)
        run.pull[spec.name] = await run_session(
            spec, path, suite, plan, log_dir, pull=True, watch_files=watch_files
        )
        print(f"  {label} {spec.name}: push session …", flush=True)
        run.push[spec.name] = await run_session(
            spec, path, suite, plan, log_dir, pull=False, watch_files=watch_files
        )
        for mode, result in (("pull", run.pull[spec.name]), ("push", run.push[spec.name])):
            if result.error:
                print(f"    {spec.name} {mode} session failed: {result.error}")
    run.planted = check_planted(suite, {name: r.open_diagnostics for name, r in run.pull.items()})
    return run


EDITING_METRICS = (
    ("completion", "completion (settled)"),
    ("completion_after_edit", "completion right after an edit"),
    ("hover", "hover"),
)


def _editing(result: SessionResult, key: str) -> list[float]:
    return getattr(result.editing, key) if result.editing is not None else []


def _severity_counts(diagnostics: list[dict[str, Any]]) -> str:
    counts = Counter(d.get("severity", 1) for d in diagnostics)
    return "/".join(str(counts.get(s, 0)) for s in (1, 2, 3, 4))


def _startups(runs: list[SizeRun], name: str) -> list[float]:
    sessions = [r for run in runs for r in (run.pull.get(name), run.push.get(name)) if r is not None]
    return [r.startup for r in sessions if r.startup is not None]


def _verdict_word(met: bool) -> str:
    return "MET" if met else "MISSED"


def report(runs: list[SizeRun], specs: list[ServerSpec]) -> dict[str, Any]:
    names = [s.name for s in specs]
    two = OURS in names and PEER in names
    rows: list[list[str]] = []

    def add(
        label: str, metric: str, values: dict[str, Any], fmt: Any = fmt_ms, *, compare: bool = True
    ) -> None:
        row = [label, metric, *(fmt(values.get(n)) for n in names)]
        if two:
            row.append(fmt_ratio(ratio(values.get(OURS), values.get(PEER))) if compare else "")
        rows.append(row)

    startups = {n: _startups(runs, n) for n in names}
    spawns = max((len(v) for v in startups.values()), default=0)
    add(
        "all",
        f"startup (median of {spawns} spawns)",
        {n: median(v) if v else None for n, v in startups.items()},
    )
    for run in runs:
        pull = {n: run.pull.get(n, SessionResult()) for n in names}
        push = {n: run.push.get(n, SessionResult()) for n in names}
        add(run.label, "open → diagnostics (pull)", {n: r.open_to_diagnostics for n, r in pull.items()})
        add(run.label, "open → diagnostics (push)", {n: r.open_to_diagnostics for n, r in push.items()})
        for key, title in (("single_edits", "1-char edit"), ("whole_edits", "whole-doc edit")):
            for pct in (50, 95):
                values = {n: percentile_or_none(getattr(r, key), pct) for n, r in pull.items()}
                add(run.label, f"{title} → diagnostics (pull) p{pct}", values)
        for pct in (50, 95):
            add(
                run.label,
                f"typing → diagnostics (push) p{pct}",
                {n: percentile_or_none(r.typing, pct) for n, r in push.items()},
            )
        for key, title in EDITING_METRICS:
            for pct in (50, 95):
                values = {n: percentile_or_none(_editing(r, key), pct) for n, r in pull.items()}
                add(run.label, f"{title} p{pct}", values)
        add(run.label, "peak RSS", {n: run.peak_rss(n) for n in names}, fmt_mb)
        counts = {n: _severity_counts(r.open_diagnostics) for n, r in pull.items()}
        add(run.label, "diagnostics on open E/W/I/H", counts, str, compare=False)
    headers = ["size", "metric", *names] + (["ours/peer"] if two else [])
    print()
    print_table(headers, rows, right=[False, False, *([True] * (len(headers) - 2))])
    print()
    for run in runs:
        sample = next(iter(run.pull.values()), SessionResult())
        bursts = len(next(iter(run.push.values()), SessionResult()).typing)
        print(
            f"  {run.label}: {len(sample.single_edits)} 1-char edits, {len(sample.whole_edits)} whole-doc "
            f"edits (after {WARMUP_EDITS} untimed ones of each), {bursts} typing bursts per server"
        )
    print("p50/p95 interpolate between ranks (a single sample is its own p95).")
    print(
        f"Typing: bursts of {KEYSTROKES} keystrokes {KEYSTROKE_GAP * 1000:.0f} ms apart, "
        "timed from the last one."
    )
    _print_session_notes(runs, names)
    _print_planted(runs, names)
    return targets(runs, names)


def _print_session_notes(runs: list[SizeRun], names: list[str]) -> None:
    for name in names:
        for run in runs:
            for mode, result in (("pull", run.pull.get(name)), ("push", run.push.get(name))):
                if result is None:
                    continue
                notes = []
                if result.error:
                    notes.append(f"FAILED: {result.error}")
                if result.sync_kind == 1:
                    notes.append("full-document sync (every edit resends the text)")
                if result.editing is not None and result.editing.failures:
                    notes.append(f"{len(result.editing.failures)} bad answers: {result.editing.failures[0]}")
                if mode == "push" and result.versioned_publishes is False:
                    notes.append("publishes carry no version (the first publish after the last key is taken)")
                if notes:
                    print(f"  {name} {run.label} {mode}: {'; '.join(notes)}")


def _print_planted(runs: list[SizeRun], names: list[str]) -> None:
    if not runs or not runs[0].planted:
        return
    first = runs[0]
    print()
    print(
        f"Planted violations, {first.label} suite ('exact': a diagnostic at exactly the anchor range, UTF-16;"
    )
    print("for evalfix-ls also with the planted code). Ranges are 1-based line:column.")
    print_table(
        ["planted", "expected range", *names],
        [[c.what, c.expected, *(c.verdicts.get(n, "—") for n in names)] for c in first.planted],
        right=[False] * (2 + len(names)),
    )
    for run in runs:
        exact = {n: sum(c.verdicts.get(n) == "exact" for c in run.planted) for n in names}
        print(f"  {run.label}: " + ", ".join(f"{n} {exact[n]}/{len(run.planted)} exact" for n in names))


def targets(runs: list[SizeRun], names: list[str]) -> dict[str, Any]:
    print()
    print("Targets:")
    verdicts: dict[str, Any] = {}
    if OURS not in names:
        print("  (evalfix-ls was not run)")
        return verdicts
    ours_runs = {run.label: run.pull.get(OURS, SessionResult()) for run in runs}
    if PEER in names:
        for key, title in (("single_edits", "1-char"), ("whole_edits", "whole-doc")):
            parts, met = [], True
            for run in runs:
                ours = percentile_or_none(getattr(ours_runs[run.label], key), 50)
                peer = percentile_or_none(getattr(run.pull.get(PEER, SessionResult()), key), 50)
                met &= ours is not None and peer is not None and ours <= peer
                parts.append(f"{run.label} {fmt_ms(ours)} vs {fmt_ms(peer)}")
            verdicts[f"pull_p50_{key}"] = met
            print(f"  {title} edit → diagnostics (pull) p50 ≤ peer at every size: {_verdict_word(met)}")
            print(f"      ({'; '.join(parts)})")
    small = [run for run in runs if run.bytes <= 210 * 1024]
    if small:
        parts, met = [], True
        for run in small:
            typing = run.push.get(OURS, SessionResult()).typing
            worst = max(typing) if typing else None
            met &= worst is not None and worst <= TYPING_TARGET
            parts.append(f"{run.label} p50 {fmt_ms(percentile_or_none(typing, 50))}, worst {fmt_ms(worst)}")
        verdicts["typing_150ms"] = met
        print(
            f"  typing feedback ≤ {TYPING_TARGET * 1000:.0f} ms after the last keystroke up to 200 KB "
            f"(every burst): {_verdict_word(met)}"
        )
        print(f"      ({'; '.join(parts)})")
    if PEER in names:
        completion_targets(runs, verdicts)
        ours_start, peer_start = _startups(runs, OURS), _startups(runs, PEER)
        if ours_start and peer_start:
            met = median(ours_start) <= median(peer_start)
            verdicts["startup"] = met
            print(
                f"  startup ≤ peer: {_verdict_word(met)} "
                f"(median {fmt_ms(median(ours_start))} vs {fmt_ms(median(peer_start))})"
            )
        parts, met = [], True
        for run in runs:
            ours, peer = run.peak_rss(OURS), run.peak_rss(PEER)
            met &= ours is not None and peer is not None and ours <= peer
            parts.append(f"{run.label} {fmt_mb(ours)} vs {fmt_mb(peer)}")
        verdicts["memory"] = met
        print(f"  peak memory ≤ peer at every size: {_verdict_word(met)}")
        print(f"      ({'; '.join(parts)})")
    return verdicts


COMPLETION_ABSOLUTE = 0.010  # seconds: completion p50 on the 10 MB suite
COMPLETION_RATIO_2M = 1.5  # completion p50 on the 2 MB suite, at most this many times the peer's


def completion_targets(runs: list[SizeRun], verdicts: dict[str, Any]) -> None:
    """Issue 8: completion p50 (settled and right after an edit) at 10 MB no slower than the peer
    and under 10 ms; at 2 MB within 1.5x of the peer."""
    for run in runs:
        if run.label not in ("2m", "10m"):
            continue
        for key, title in EDITING_METRICS[:2]:
            ours = percentile_or_none(_editing(run.pull.get(OURS, SessionResult()), key), 50)
            peer = percentile_or_none(_editing(run.pull.get(PEER, SessionResult()), key), 50)
            if run.label == "10m":
                met = ours is not None and peer is not None and ours <= peer and ours < COMPLETION_ABSOLUTE
                rule = f"≤ peer and < {COMPLETION_ABSOLUTE * 1000:.0f} ms"
            else:
                met = ours is not None and peer is not None and ours <= COMPLETION_RATIO_2M * peer
                rule = f"≤ {COMPLETION_RATIO_2M}× peer"
            verdicts[f"{key}_{run.label}"] = met
            print(
                f"  {run.label} {title} p50 {rule}: {_verdict_word(met)} ({fmt_ms(ours)} vs {fmt_ms(peer)})"
            )


def print_server_profiles(run: SizeRun, limit: int = 25) -> None:
    for mode, result in (("pull", run.pull.get(OURS)), ("push", run.push.get(OURS))):
        if result is None or not result.profile or not Path(result.profile).is_file():
            continue
        print()
        print(f"--- evalfix-ls {run.label} {mode} session under cProfile (all threads): by own time ---")
        stats = pstats.Stats(result.profile).strip_dirs()
        stats.sort_stats("tottime").print_stats(limit)
        print(f"--- by cumulative time ({result.profile}) ---")
        stats.sort_stats("cumulative").print_stats(limit)


async def main_async(args: argparse.Namespace) -> int:
    labels = parse_sizes(args.sizes) if args.sizes else (["20k", "200k"] if args.quick else list(SIZES))
    plans = QUICK_PLANS if args.quick else PLANS
    specs: list[ServerSpec] = []
    wanted = [s.strip() for s in args.servers.split(",")]
    if OURS in wanted:
        specs.append(ours_spec(profile=args.profile_server))
    if PEER in wanted:
        peer = peer_spec(install=not args.no_install)
        if peer is not None:
            specs.append(peer)
    if not specs:
        print("no server to run")
        return 2
    for spec in specs:
        print(f"{spec.name}: {' '.join(spec.argv)}" + (f"  [{spec.version}]" if spec.version else ""))
    log_dir = RESULTS_DIR / "lsp-logs"
    print(f"suites under {DATA_DIR}; server stderr under {log_dir}")
    print(describe_machine())
    if args.typing:
        return await typing_main(args, specs, log_dir)
    runs = []
    for label in labels:
        print(f"measuring {label} …", flush=True)
        runs.append(
            await run_size(label, specs, plans[label], log_dir, watch_files=not args.no_file_watching)
        )
    payload = {
        "machine": machine_summary(),
        "servers": [asdict(s) for s in specs],
        "plans": {label: asdict(plans[label]) for label in labels},
        "runs": [asdict(run) for run in runs],
        "targets": None,
    }
    for run in payload["runs"]:  # keep the file small: diagnostics counts, not the lists
        for mode in ("pull", "push"):
            for result in run[mode].values():
                result["open_diagnostics"] = len(result["open_diagnostics"])
    saved = save_results("lsp", payload)  # before reporting, so a reporting bug loses nothing
    payload["targets"] = report(runs, specs)
    print(f"at the end: {describe_machine()}")
    saved.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(f"results written to {saved}")
    if args.profile_server and runs:
        print_server_profiles(runs[-1])
    return 0


async def typing_main(args: argparse.Namespace, specs: list[ServerSpec], log_dir: Path) -> int:
    """``--typing``: a new assertion and a new case typed through invalid states (``lsp_typing``)."""
    from bench.lsp_typing import report_typing, run_typing_size

    labels = parse_sizes(args.sizes) if args.sizes else ["200k", "2m"]
    runs = {}
    for label in labels:
        print(f"measuring {label} (typing) …", flush=True)
        runs[label] = await run_typing_size(
            label, specs, log_dir, watch_files=not args.no_file_watching, settle=SETTLE, noisy=args.noisy
        )
    payload = {
        "machine": machine_summary(),
        "servers": [asdict(s) for s in specs],
        "typing": {
            label: {n: {m: asdict(r) for m, r in by.items()} for n, by in run.items()}
            for label, run in runs.items()
        },
    }
    saved = save_results("lsp-typing", payload)
    report_typing(runs, [s.name for s in specs], OURS, PEER)
    print(f"at the end: {describe_machine()}")
    print(f"results written to {saved}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lsp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help=f"comma-separated sizes from {','.join(SIZES)} (default: all)")
    parser.add_argument(
        "--quick", action="store_true", help="20k,200k unless --sizes; fewer edits and bursts"
    )
    parser.add_argument("--servers", default=f"{OURS},{PEER}", help=f"which servers (default: {OURS},{PEER})")
    parser.add_argument("--no-install", action="store_true", help=f"never npm-install {PEER_PACKAGE}")
    parser.add_argument(
        "--no-file-watching",
        action="store_true",
        help="do not offer workspace/didChangeWatchedFiles, as a client without file watching; "
        "by default it is offered, as VS Code does",
    )
    parser.add_argument(
        "--typing",
        action="store_true",
        help="type a new assertion and a new case character by character through invalid states "
        "(default sizes 200k,2m); see bench/lsp_typing.py",
    )
    parser.add_argument(
        "--noisy",
        action="store_true",
        help="with --typing: the suite without the directories its cases copy from, so that every "
        "case carries findings (a suite still being written, issue 19)",
    )
    parser.add_argument(
        "--profile-server",
        action="store_true",
        help="run evalfix-ls under cProfile (all threads) and print its hot spots for the largest size; "
        "times are inflated by the profiler",
    )
    args = parser.parse_args(argv)
    try:
        if args.sizes:
            parse_sizes(args.sizes)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return asyncio.run(main_async(args))
    except KeyboardInterrupt:
        return 130
    except Exception:  # noqa: BLE001 - print where it broke, exit non-zero
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
