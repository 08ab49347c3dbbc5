"""One keystroke's diagnostics in process, phase by phase, on noisy suites.

    python -m bench.keystroke                      # noisy 2m and 10m
    python -m bench.keystroke --sizes 10m --profile

Per size: the generated suite laid out with the files its cases name missing (``bench.traffic``'s
noisy suite: thousands of findings), opened, analysed once, then ``NEW_CASE`` of ``bench.lsp
--typing`` typed after the middle case one character per keystroke, through every invalid state.
Each keystroke runs as the server runs it (``lsp/diagnostics/worker.py`` ``run_job``, ``JobRunner``'s job,
``diagnostics/encoded.py``): the ranged ``didChange`` applied to the document store (text pieces,
line index spliced), the new text built, the incremental re-parse from the previous tree,
``analyze`` with the document's case cache and ``recover``, the conversion with the previous
result's memo and the edit, the fingerprint (the result id) and the report encoded from the
previous report's pieces — the collector paused, and what the keystroke built frozen after it.
Per phase p50/p95 over the keystrokes, and the work counted on the way (cases re-checked, case texts
hashed for their keys, cases whose alignment the intact view read, findings the case cache
rebuilt, diagnostics converted, fingerprint parts and report pieces computed).
The last keystroke's report is compared with a fresh analysis of the same text (``identical``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

if __package__ in (None, ""):  # run as `python bench/keystroke.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.common import (
    describe_machine,
    fmt_mb,
    fmt_ms,
    machine_summary,
    percentile,
    print_table,
    save_results,
)
from bench.harness.generate import NEW_CASE, SIZES, generate_suite, parse_sizes, write_suite_tree

T = TypeVar("T")
SORT = "cumulative"  # how --profile orders its table
PHASES = ("change", "text", "re-parse", "analysis", "conversion", "fingerprint", "encoding")


@dataclass
class Keystrokes:
    label: str
    cases: int = 0
    findings: int = 0
    full_analysis: float = 0.0
    times: dict[str, list[float]] = field(default_factory=lambda: {phase: [] for phase in PHASES})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {phase: [] for phase in PHASES})
    totals: list[float] = field(default_factory=list)
    rechecked: list[int] = field(default_factory=list)  # cases the case cache missed
    rebuilt: list[int] = field(default_factory=list)  # findings the case cache rebuilt at an offset
    # case texts sliced and hashed for their keys, and cases whose alignment the intact view read
    # (both counters absent from an older checkout: every case then, not counted)
    hashed: list[int] = field(default_factory=list)
    aligned: list[int] = field(default_factory=list)
    converted: list[int] = field(default_factory=list)  # diagnostics not taken from the previous result
    printed: list[int] = field(default_factory=list)  # fingerprint parts computed
    encoded: list[int] = field(default_factory=list)  # diagnostics whose JSON was not reused
    identical: bool | None = None


class Editor:
    """One open document, keystroke after keystroke, as the server's job runner drives it."""

    def __init__(self, root: Path, path: Path) -> None:
        from evalfix_ls.contracts.case_cache import CaseCache
        from evalfix_ls.lsp.diagnostics.encoded import EncodedDocuments
        from evalfix_ls.lsp.session.documents import DocumentStore
        from evalfix_ls.lsp.session.settings import Settings
        from evalfix_ls.lsp.session.workspace_index import WorkspaceIndex

        index = WorkspaceIndex(watching=True)
        index.set_folders([root])
        self.settings = Settings(index)
        self.path = path
        self.repo = index.repo(index.repo_root_for(path, self.settings.config_for(path).root))
        self.store = DocumentStore()
        self.uri = path.as_uri()
        self.cache = CaseCache()
        self.encoded = EncodedDocuments()
        self.snapshot = self.store.open(self.uri, 1, path.read_text(encoding="utf-8"))
        self.result: Any = None
        self.report = ""

    def job(self, *, fresh: bool = False) -> Any:
        from evalfix_ls.lsp.diagnostics.worker import Job
        from evalfix_ls.text.line_index import Encoding

        previous = None if fresh else self.result
        return Job(
            uri=self.uri,
            path=self.path,
            snapshot=self.snapshot,
            repo=self.repo,
            config=self.settings.config_for(self.path),
            encoding=Encoding.UTF16,
            key=(0,),
            case_cache=None if fresh else self.cache,  # fresh: no cache, no blocks (as --check)
            prev_tree=previous.analysis.tree if previous is not None else None,
            edit=self.snapshot.edit if previous is not None else None,
            prev_memo=previous.memo if previous is not None else None,
        )

    def type(self, offset: int, character: str, out: Keystrokes | None) -> None:
        from lsprotocol import types

        from evalfix_ls.text.line_index import Encoding

        line, column = self.snapshot.line_index.position(offset, Encoding.UTF16)
        point = types.Position(line=line, character=column)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=point, end=point), text=character
        )
        version = self.snapshot.version + 1
        self.snapshot = _timed(
            out, "change", lambda: self.store.change(self.uri, version, [change], Encoding.UTF16)
        )
        self.run(out)

    def run(self, out: Keystrokes | None) -> None:
        """``run_job``'s steps one by one (timed), then the report as a pull answers it."""
        from evalfix_ls.analysis import analyze
        from evalfix_ls.lsp.diagnostics import worker
        from evalfix_ls.lsp.diagnostics.case_blocks import Conversion, convert_findings, placed_diagnostics
        from evalfix_ls.lsp.diagnostics.convert import DiagnosticMemo, fingerprint
        from evalfix_ls.memory.gc_pause import gc_paused

        job = self.job()
        misses, shifted = self.cache.misses, self.cache.shifted
        hashed, aligned = _key_work(self.cache)
        with gc_paused():
            text = _timed(out, "text", lambda: job.snapshot.text)
            tree = _timed(out, "re-parse", lambda: worker._reparsed(job, text))
            analysis = _timed(
                out,
                "analysis",
                lambda: analyze(
                    text,
                    path=job.path,
                    repo_root=self.repo.root,
                    fs=self.repo.fs,
                    workspace=None,
                    explicit=True,
                    kind=job.config.kind_for(job.path),
                    walk=job.config.walk,
                    decided_by=worker._decided_by(job),
                    tree=tree,
                    case_cache=job.case_cache,
                    recover=True,
                ),
            )
            memo = DiagnosticMemo(job.snapshot.line_index.line_count)
            reuse = worker._reuse(job)
            conversion = Conversion(
                job.snapshot.line_index,
                job.encoding,
                self.repo.root,
                job.uri,
                True,
                worker.related_resolver(self.store.for_path, self.repo.root),
            )
            parts = None
            if analysis.placed is not None and not job.config.severity:
                # As run_job: cached cases converted per case; the fingerprint is made on the way.
                placed = _timed(
                    out,
                    "conversion",
                    lambda: placed_diagnostics(analysis.placed.pieces, conversion, reuse, memo),
                )
                diagnostics, prints, parts = placed.diagnostics, placed.fingerprint, placed.parts
                _timed(out, "fingerprint", lambda: None)
            else:
                findings = job.config.apply(analysis.findings)
                diagnostics = _timed(
                    out, "conversion", lambda: convert_findings(findings, conversion, reuse, memo)
                )
                prints = _timed(
                    out,
                    "fingerprint",
                    lambda: fingerprint(diagnostics, memo, job.prev_memo if reuse is not None else None),
                )
            previous = self.result
            self.result = worker.Result(
                job.uri, job.path, job.version, job.key, text, analysis.kind, diagnostics, prints,
                analysis=analysis, revision=job.revision, memo=memo, parts=parts,
            )  # fmt: skip
            items = self.encoded.items(self.uri, diagnostics, parts)
            known = items._previous.known() if items._previous is not None else {}
            encoded = _to_encode(diagnostics, parts, known)
            self.report = _timed(out, "encoding", items.text)
        gc.freeze()  # what the job built is frozen after it (``collector.settle``)
        if out is not None:
            out.rechecked.append(self.cache.misses - misses)
            out.rebuilt.append(self.cache.shifted - shifted)
            hashed_after, aligned_after = _key_work(self.cache)
            if hashed_after is not None and hashed is not None:
                out.hashed.append(hashed_after - hashed)
            if aligned_after is not None and aligned is not None:
                out.aligned.append(aligned_after - aligned)
            kept = {id(d) for d in previous.diagnostics} if previous is not None else set()
            out.converted.append(sum(1 for d in diagnostics if id(d) not in kept))
            out.printed.append(memo.printed)
            out.encoded.append(encoded)

    def fresh_report(self) -> str:
        """The report of a fresh analysis of the current text (no cache, no previous result)."""
        from evalfix_ls.lsp.diagnostics.encoded import encode_items
        from evalfix_ls.lsp.diagnostics.worker import run_job

        result = run_job(self.job(fresh=True), self.store.for_path)
        return encode_items(result.diagnostics)[1]


def _key_work(cache: Any) -> tuple[int | None, int | None]:
    """(case texts hashed, cases' alignment read) so far, or None where the checkout does not
    count them (before issue 19's sixth round every case was, on every keystroke)."""
    intact = getattr(cache, "intact", None)
    return getattr(cache, "hashed", None), getattr(intact, "aligned", None)


def _to_encode(diagnostics: list[Any], parts: list[Any] | None, known: dict[int, Any]) -> int:
    """How many diagnostics the report's encoding writes anew: not known from the previous
    report, or (joined from parts) in a cached case whose JSON is not kept yet."""
    if parts is None:
        return sum(1 for d in diagnostics if id(d) not in known)
    count = 0
    for part in parts:
        if isinstance(part, list):
            count += sum(1 for d in part if id(d) not in known)
            continue
        case, start, stop = part if isinstance(part, tuple) else (part, 0, len(part.diagnostics))
        count += stop - start if case._pieces is None else 0
    return count


def _timed(out: Keystrokes | None, phase: str, call: Callable[[], T]) -> T:
    """``call()``, its wall time and the CPU time of this thread kept under ``phase`` (the CPU
    time is what the phase costs; the wall time adds the waits for a core on a busy machine)."""
    start, cpu = time.perf_counter(), time.thread_time()
    value = call()
    if out is not None:
        out.times[phase].append(time.perf_counter() - start)
        out.cpu[phase].append(time.thread_time() - cpu)
    return value


def typing_offsets(text: str) -> int:
    """Where ``NEW_CASE`` is typed: right after the closing ``},`` of the case in the middle."""
    return text.index("\n    },", len(text) // 2) + len("\n    },")


def measure(label: str, root: Path, profile: bool) -> Keystrokes:
    suite = generate_suite(SIZES[label])
    path = write_suite_tree(root / label, suite, sources=False)
    out = Keystrokes(label)
    editor = Editor(root / label, path)
    start = time.perf_counter()
    editor.run(None)
    out.full_analysis = time.perf_counter() - start
    analysis = editor.result.analysis
    out.findings = len(analysis.findings)
    out.cases = len(analysis.tree.root.get("evals").items)
    at = typing_offsets(editor.snapshot.text)
    profiler = cProfile.Profile() if profile else None
    for count, character in enumerate(NEW_CASE):
        started = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        editor.type(at + count, character, out)
        if profiler is not None:
            profiler.disable()
        out.totals.append(time.perf_counter() - started)
    out.identical = editor.report == editor.fresh_report()
    if profiler is not None:
        stream = io.StringIO()
        stats = pstats.Stats(profiler, stream=stream).sort_stats(SORT)
        stats.print_stats(60)
        stats.print_callees("_analyze|_intact_findings|_check_cases")
        print(stream.getvalue())
    return out


def report(runs: list[Keystrokes]) -> None:
    rows = []
    for run in runs:
        head = f"noisy-{run.label}"
        rows.append([head, "full analysis (open)", fmt_ms(run.full_analysis), "", "", ""])
        for phase in PHASES:
            times, cpu = run.times[phase], run.cpu[phase]
            cells = [
                fmt_ms(percentile(times, 50)),
                fmt_ms(percentile(times, 95)),
                fmt_ms(percentile(cpu, 50)),
                fmt_ms(percentile(cpu, 95)),
            ]
            rows.append([head, phase, *cells])
        total_cpu = [sum(values) for values in zip(*run.cpu.values(), strict=True)]
        all_in = [fmt_ms(percentile(run.totals, 50)), fmt_ms(percentile(run.totals, 95))]
        rows.append(
            [
                head,
                "keystroke, all in",
                *all_in,
                fmt_ms(percentile(total_cpu, 50)),
                fmt_ms(percentile(total_cpu, 95)),
            ]
        )
    headers = ["suite", "phase", "wall p50", "wall p95", "CPU p50", "CPU p95"]
    print_table(headers, rows, right=[False, False, True, True, True, True])
    print()
    counts = []
    for run in runs:
        counted = (run.rechecked, run.hashed, run.aligned, run.rebuilt)
        counted += (run.converted, run.printed, run.encoded)
        cells = [
            f"{percentile(values, 50):,.0f} / {max(values):,}" if values else "all" for values in counted
        ]
        counts.append(
            [f"noisy-{run.label}", f"{run.cases:,}", f"{run.findings:,}", *cells, str(run.identical)]
        )
    headers = ["suite", "cases", "findings", "re-checked", "hashed", "aligned", "rebuilt", "converted"]
    print("Work per keystroke, p50 / max:")
    print_table([*headers, "printed", "encoded", "identical"], counts, right=[False, *[True] * 9, False])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="2m,10m", help="suite sizes (default 2m,10m)")
    parser.add_argument("--profile", action="store_true", help="cProfile the keystrokes of each size")
    args = parser.parse_args(argv)
    print(describe_machine())
    runs = []
    with tempfile.TemporaryDirectory(prefix="evalfix-keystroke-") as folder:
        for label in parse_sizes(args.sizes):
            runs.append(measure(label, Path(folder), args.profile))
    print(f"{len(NEW_CASE)} keystrokes typing a new case after the middle one, per size")
    report(runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS of this process: {fmt_mb(peak)}")
    print(describe_machine())
    payload = {"machine": machine_summary(), "runs": [asdict(run) for run in runs]}
    print(f"results: {save_results('keystroke', payload)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
