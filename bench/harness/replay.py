"""A recorded VS Code session (``bench/recordings/``, made by ``bench.tools.record_vscode``) replayed with
its timing against one server, on a suite of any size: ``python -m bench.traffic --recorded``.

Every message VS Code sent after it opened the document is sent at its recorded time from the
``didOpen`` (never waiting for an answer, as VS Code does not): the edits (``didChange``), the
requests and VS Code's ``$/cancelRequest`` of a request still unanswered, each mapped onto the suite
by ``bench.harness.recording.Rebase``. What the recording cannot carry over is remade from this server's own
answers: a code action's context holds this server's last diagnostics on the requested lines, a
pull its last ``resultId``. A request the server does not offer is not sent (counted as skipped);
answers to the server's own requests come from the client (``bench.harness.client``), not the recording.

Per method: the latency of each right answer, and how long it waited behind others — from its
sending until the last request sent before it and still unanswered then was answered (at most its
own latency): the time it could not have been served on a server that answers in order.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.harness.client import LspError, file_uri
from bench.harness.common import percentile
from bench.harness.recording import LIFECYCLE, Document, Rebase, recorded_initialize_params
from bench.harness.session import OURS, Session, run_then_stop

# Answers that are wrong when empty (symbols and folding of a suite; a hover on a member name the
# schema documents); a diagnostic pull when the server reported findings on the suite as opened.
NON_EMPTY = {"textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/hover"}
OUTDATED = ("-32801", "-32802")  # ContentModified; ServerCancelled (a pull to re-trigger)
CANCELLED = "-32800"  # RequestCancelled: the client cancelled it
NOT_REPLAYED = {"workspace/didChangeConfiguration", "textDocument/didClose"}  # the session sends its own


def right_answer(method: str, result: Any, *, findings: int) -> bool:
    if method == "textDocument/diagnostic":
        report = result or {}
        return report.get("kind") == "unchanged" or bool(report.get("items")) or findings == 0
    return method not in NON_EMPTY or bool(result)


@dataclass(slots=True)
class Samples:
    """Per method: latencies of right answers, their waits behind others, and the answers that
    were outdated, cancelled by the client, or wrong."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    waits: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    modified: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    cancelled: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failed: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    unanswered: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def count_error(self, method: str, error: LspError) -> None:
        text = str(error)
        if any(code in text for code in OUTDATED):
            self.modified[method] += 1
        elif CANCELLED in text:
            self.cancelled[method] += 1
        else:
            self.failed[method] += 1

    def summary(self) -> dict[str, Any]:
        methods = {*self.times, *self.modified, *self.cancelled, *self.failed, *self.unanswered}
        return {method: self._entry(method) for method in sorted(methods)}

    def _entry(self, method: str) -> dict[str, Any]:
        values, waits = self.times.get(method, []), self.waits.get(method, [])
        return {
            "n": len(values),
            "p50": percentile(values, 50) if values else None,
            "p95": percentile(values, 95) if values else None,
            "wait_p50": percentile(waits, 50) if waits else None,
            "wait_p95": percentile(waits, 95) if waits else None,
            "content_modified": self.modified.get(method, 0),
            "cancelled": self.cancelled.get(method, 0),
            "failed": self.failed.get(method, 0),
            "unanswered": self.unanswered.get(method, 0),
        }


@dataclass(slots=True)
class Sent:
    method: str
    sent_at: float
    answered_at: float | None = None  # None: no answer came
    right: bool = False


@dataclass(slots=True)
class ReplayResult:
    startup: float | None = None
    findings: int = 0  # in the server's settled report on the suite as generated
    samples: Samples = field(default_factory=Samples)
    skipped: Counter[str] = field(default_factory=Counter)  # requests the server does not offer
    peak_rss_kib: int | None = None
    error: str | None = None


class Replay:
    def __init__(self, session: Session, recording: dict[str, Any], drain: float) -> None:
        self.session = session
        self.drain = drain  # how long answers are awaited after the last recorded message
        self.recording = recording
        self.rebase = Rebase.onto(recording, session.text, session.uri, file_uri(session.repo_root))
        self.document = Document(session.text)
        self.result = ReplayResult()
        self.sent: list[Sent] = []
        self.ids: dict[Any, int] = {}  # recorded id -> id sent
        self.pending: dict[int, asyncio.Task[None]] = {}
        self.diagnostics: list[dict[str, Any]] = []
        self.result_id: str | None = None

    async def run(self) -> None:
        """The server's settled report on the suite as generated (which answers must be
        non-empty), the document closed, then the recording from its ``didOpen``."""
        await self.session.open_pull()
        self.result.findings = len(self.session.result.open_diagnostics)
        await self.session.client.notify("textDocument/didClose", {"textDocument": {"uri": self.session.uri}})
        messages = [m for m in self.recording["messages"] if m["dir"] == "c2s" and "method" in m]
        opened = next(i for i, m in enumerate(messages) if m["method"] == "textDocument/didOpen")
        origin = messages[opened]["t"]
        start = time.perf_counter()
        for message in messages[opened:]:
            delay = start + message["t"] - origin - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            await self.send(message)
        await self.collect()
        self.count_waits()

    async def collect(self) -> None:
        """Wait for the answers still due, ``drain`` seconds at most; the rest are unanswered."""
        tasks = {task: sent_id for sent_id, task in self.pending.items()}
        _, late = await asyncio.wait(tasks, timeout=self.drain) if tasks else (set(), set())
        for task in late:
            task.cancel()
        for sent in self.sent:
            if sent.answered_at is None:
                self.result.samples.unanswered[sent.method] += 1

    async def send(self, message: dict[str, Any]) -> None:
        method = message["method"]
        client = self.session.client
        if method in LIFECYCLE or method in NOT_REPLAYED:
            return
        if method == "textDocument/didOpen":
            version = int(message["params"]["textDocument"].get("version", 1))
            document = {"uri": self.session.uri, "languageId": "json", "version": version}
            await client.notify(method, {"textDocument": document | {"text": self.session.text}})
            return
        if method == "$/cancelRequest":
            sent_id = self.ids.get(message["params"]["id"])
            task = self.pending.get(sent_id) if sent_id is not None else None
            if task is not None and not task.done():
                await client.notify(method, {"id": sent_id})
            return
        params = self.rebase.params(message.get("params"))
        if method == "textDocument/didChange":
            for change in params["contentChanges"]:
                self.document.apply(change)
            await client.notify(method, params)
            return
        if "id" not in message:
            await client.notify(method, params)
            return
        if not self.offered(method):
            self.result.skipped[method] += 1
            return
        sent_id = client.reserve_id()
        self.ids[message["id"]] = sent_id
        task = asyncio.ensure_future(self.request(method, self.remake(method, params), sent_id))
        self.pending[sent_id] = task

    def offered(self, method: str) -> bool:
        if method.startswith("evalfix/"):  # our own requests: the peer has no such method
            return self.session.spec.name == OURS
        return self.session.offers(method)

    def remake(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Positions clamped to the replayed text; what belongs to this server's answers."""
        params = self._clamped(params)
        if method == "textDocument/diagnostic":
            params = {key: value for key, value in params.items() if key != "previousResultId"}
            if self.result_id is not None:
                params["previousResultId"] = self.result_id
        elif method == "workspace/diagnostic":
            # No partial results (this client does not read $/progress); no previous reports.
            params = {key: value for key, value in params.items() if key != "partialResultToken"}
            params["previousResultIds"] = []
        elif method == "textDocument/codeAction":
            first, last = params["range"]["start"]["line"], params["range"]["end"]["line"]
            on_lines = [
                d
                for d in self.diagnostics
                if d["range"]["start"]["line"] <= last and d["range"]["end"]["line"] >= first
            ]
            params["context"] = {**params.get("context", {}), "diagnostics": on_lines}
        return params

    def _clamped(self, value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {"line", "character"}:
                return self.document.clamp(value)
            return {key: self._clamped(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._clamped(item) for item in value]
        return value

    async def request(self, method: str, params: dict[str, Any], sent_id: int) -> None:
        sent = Sent(method, time.perf_counter())
        self.sent.append(sent)
        samples = self.result.samples
        try:
            response = await self.session.client.request(
                method, params, timeout=self.session.open_timeout, request_id=sent_id
            )
        except LspError as exc:
            sent.answered_at = time.perf_counter()
            samples.count_error(method, exc)
            return
        sent.sent_at, sent.answered_at = response.sent_at, response.received_at
        report = response.result or {}
        if method == "textDocument/diagnostic" and report.get("kind") == "full":
            self.diagnostics = list(report.get("items") or [])
            self.result_id = report.get("resultId")
        if right_answer(method, response.result, findings=self.result.findings):
            sent.right = True
            samples.times[method].append(response.elapsed)
        else:
            samples.failed[method] += 1

    def count_waits(self) -> None:
        for request in self.sent:
            if request.right:
                self.result.samples.waits[request.method].append(wait_behind(request, self.sent))


def wait_behind(request: Sent, sent: list[Sent]) -> float:
    """From ``request``'s sending until the last request sent before it, and unanswered then,
    was answered (never, for one that got no answer); at most its own latency."""
    assert request.answered_at is not None
    ahead = [
        math.inf if other.answered_at is None else other.answered_at
        for other in sent
        if other.sent_at < request.sent_at
        and (other.answered_at is None or other.answered_at > request.sent_at)
    ]
    if not ahead:
        return 0.0
    return min(max(ahead), request.answered_at) - request.sent_at


async def replay_session(session: Session, recording: dict[str, Any], drain: float) -> ReplayResult:
    """Start ``session``'s server with the recorded VS Code's capabilities, replay, stop."""
    replay = Replay(session, recording, drain)
    init = recorded_initialize_params(recording)

    async def work() -> None:
        await session.start(init["capabilities"], init.get("clientInfo"))
        replay.result.startup = session.result.startup
        await replay.run()

    replay.result.error = await run_then_stop(session, work)
    replay.result.peak_rss_kib = session.result.peak_rss_kib
    return replay.result
