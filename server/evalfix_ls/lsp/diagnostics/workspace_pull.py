"""``workspace/diagnostic``: every fixture file's report, cheap when nothing changed, streamed when
the client gives a ``partialResultToken``, held open (long poll) while nothing is new.

At 12,000 files (issue 30) a second request whose ``previousResultIds`` matched everything took
0.3-0.7 s: a ``Job`` built per file to learn its cache key, then 12,000 lsprotocol report objects
unstructured by cattrs. Here a file's report is a ``WorkspaceItem`` (a tuple), the cache key is
checked without a job (``JobRunner.disk_current``), and the answer is written as JSON in one pass
on the encoding thread (an unchanged report is ~100 bytes of f-string).

Partial results (LSP 3.17, "Partial Result Progress"): once one batch went out as
``$/progress`` with the client's token, every other item goes that way too and the response's
own ``items`` is empty — the spec's rule, so that a client never has to guess whether the final
result replaces or extends the partial ones. A batch is sent as soon as it holds a report the
client has not had (a first request streams while the files are analysed); reports it had are
held back, so that an answer with nothing new can still be parked instead of sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from lsprotocol import types

from ...contracts.detection import UNKNOWN
from ..jsonrpc.encoded import EncodedParts, EncodedResult, InOrderResult, encoder_pool
from ..session.documents import path_to_uri
from .encoded import encode_items
from .progress import WorkProgress
from .worker import Result

if TYPE_CHECKING:
    from ..session.host import Host
    from .jobs import JobRunner

logger = logging.getLogger(__name__)

STREAM_BATCH = 512  # closed files per batch: a first request's reports flow every ~0.4 s
PROGRESS_MIN_FILES = 32  # a pass analysing fewer files (an edit's re-checks) shows no progress
PROGRESS_TITLE = "evalfix-ls: checking fixture files"


def _ids_digest(ids: Iterable[str | None]) -> bytes:
    """The client's result ids, in order, as a digest: the stamp kept them as a tuple, the
    12,000 strings of a request held for as long as the memo (~1.8 MB at 10,000 skills)."""
    joined = "\x00".join("\x01" if result_id is None else result_id for result_id in ids)
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class WorkspaceItem(NamedTuple):
    """One file's report; ``diagnostics`` None: unchanged against the client's previous id.
    ``written``: the report's JSON once written (its diagnostics are then dropped, ``written``)."""

    uri: str
    result_id: str
    version: int | None
    diagnostics: Sequence[types.Diagnostic] | None
    written: bytes | None = None  # (UTF-8: the answer is written as it is)


def item_json(item: WorkspaceItem) -> str:
    """The report as JSON (the fields pygls writes for the lsprotocol report, in another order):
    one ``json.dumps`` of a small dict per report (three calls for the fields cost twice as much
    at 12,000 unchanged reports)."""
    if item.written is not None:
        return item.written.decode("utf-8")
    fields = {"uri": item.uri, "resultId": item.result_id, "version": item.version}
    if item.diagnostics is None:
        fields["kind"] = "unchanged"
        return json.dumps(fields)
    return f'{json.dumps(fields)[:-1]}, "items": {encode_items(item.diagnostics)[1]}, "kind": "full"}}'


def items_json(items: Sequence[WorkspaceItem]) -> str:
    return "[" + ", ".join(item_json(item) for item in items) + "]"


async def items_json_off_loop(items: Sequence[WorkspaceItem]) -> str:
    return await asyncio.get_running_loop().run_in_executor(encoder_pool()[0], items_json, items)


def _written(items: Sequence[WorkspaceItem]) -> list[WorkspaceItem]:
    """Full reports with their JSON written and their diagnostics dropped: a first request over
    12,000 files held every report's ``Diagnostic`` objects (~60 MB) until the answer was written,
    though most are not kept (``disk_results``' budget)."""
    return [
        item._replace(diagnostics=(), written=item_json(item).encode("utf-8")) if item.diagnostics else item
        for item in items
    ]


async def written_off_loop(items: Sequence[WorkspaceItem]) -> list[WorkspaceItem]:
    return await asyncio.get_running_loop().run_in_executor(encoder_pool()[0], _written, items)


def answer_parts(items: Sequence[WorkspaceItem]) -> list[bytes]:
    """The answer ``{"items": [...]}`` in UTF-8 pieces, sent as they are
    (``jsonrpc.encoded.EncodedParts``): each written report is its own piece (not copied into a
    larger one while the report itself is still held), the others written together."""
    parts = [b'{"items": [']
    others: list[str] = []
    for index, item in enumerate(items):
        if item.written is None:
            others.append(item_json(item))
            continue
        if others:
            parts.append(", ".join(others).encode("utf-8"))
            others = []
            parts.append(b", ")
        parts.append(item.written)
        if index + 1 < len(items):
            parts.append(b", ")
    if others:
        parts.append(", ".join(others).encode("utf-8"))
    parts.append(b"]}")
    return parts


async def answer_off_loop(items: Sequence[WorkspaceItem]) -> EncodedParts:
    parts = await asyncio.get_running_loop().run_in_executor(encoder_pool()[0], answer_parts, items)
    return EncodedParts(parts)


class ProgressItems:
    """``$/progress`` params whose value (``{"items": [...]}``) is already JSON: the protocol
    writes ``to_json()`` as it is (``EvalfixProtocol.write_data``)."""

    __slots__ = ("token", "items")

    def __init__(self, token: int | str, items: str) -> None:
        self.token = token
        self.items = items

    def to_json(self) -> str:
        return f'{{"token": {json.dumps(self.token)}, "value": {{"items": {self.items}}}}}'


class Stream:
    """The partial results of one request: news goes out at once, the rest once something did."""

    def __init__(self, server: Host, token: int | str, last: dict[str, str]) -> None:
        self.server = server
        self.token = token
        self.last = last  # uri -> result id of the last answer: what the client has seen
        self.pending: list[WorkspaceItem] = []
        self.sent = False

    async def offer(self, items: Sequence[WorkspaceItem]) -> None:
        self.pending.extend(items)
        if self.sent or any(self.last.get(item.uri) != item.result_id for item in items):
            await self.flush()

    async def flush(self) -> None:
        if not self.pending:
            return
        batch, self.pending = self.pending, []
        self.sent = True
        text = await items_json_off_loop(batch)
        self.server.protocol.notify(types.PROGRESS, ProgressItems(self.token, text))


class WorkspacePull:
    """Answers ``workspace/diagnostic`` from the result store."""

    def __init__(self, server: Host, runner: JobRunner) -> None:
        self.server = server
        self.runner = runner
        self.cache = runner.cache
        self._reported: set[str] = set()  # uris in the last answer
        self._last_answer: dict[str, str] = {}
        # (what they depend on, the closed files' items) when every one of them was "unchanged"
        self._closed_memo: tuple[tuple[object, ...], list[WorkspaceItem]] | None = None

    async def answer(self, params: types.WorkspaceDiagnosticParams) -> EncodedResult:
        await self.runner.tasks.wait_for_settings()
        previous = {entry.uri: entry.value for entry in params.previous_result_ids or ()}
        token = params.partial_result_token
        while True:
            changed = self.cache.changed
            stream = Stream(self.server, token, self._last_answer) if token is not None else None
            items = await self._items(previous, stream, params.work_done_token)
            answer = {item.uri: item.result_id for item in items}
            if stream is None or stream.sent or answer != self._last_answer:
                self._last_answer = answer
                if stream is not None and (stream.sent or stream.pending):
                    await stream.flush()
                    return InOrderResult('{"items": []}')  # after the partial results
                return await answer_off_loop(items)
            await changed.wait()  # nothing new: hold the request until something changes

    async def _items(
        self, previous: dict[str, str], stream: Stream | None, work_done_token: types.ProgressToken | None
    ) -> list[WorkspaceItem]:
        paths = await self.runner.workspace_files()
        closed = [path for path in paths if self.server.documents.for_path(path) is None]
        items: list[WorkspaceItem] = []
        seen: set[str] = set()
        await self._add(items, seen, await self._open_results(set(paths)), previous, stream)
        stamp = self._closed_stamp(closed, previous)
        memo = self._closed_memo
        if memo is not None and memo[0] == stamp:
            await self._add(items, seen, [], previous, stream, memo[1])
        else:
            start = len(items)
            await self._add_closed(items, seen, closed, previous, stream, work_done_token)
            answered = items[start:]
            unchanged = all(item.diagnostics is None and item.written is None for item in answered)
            # Kept only when the pass changed nothing it depends on and holds no report's JSON.
            keep = unchanged and self._closed_stamp(closed, previous) == stamp
            self._closed_memo = (stamp, answered) if keep else None
        # Files reported before that are gone (deleted, excluded) are reported once, empty.
        gone = [WorkspaceItem(uri, self.cache.result_id(uri, ()), None, ()) for uri in self._reported - seen]
        await self._add(items, seen, [], previous, stream, gone)
        self._reported = seen - {item.uri for item in gone}
        return items

    def _closed_stamp(self, closed: list[Path], previous: dict[str, str]) -> tuple[object, ...]:
        """Everything the closed files' items depend on: which files are closed, the keys of
        their results (settings, each repository's generations, the expiry epoch of an
        unwatched workspace), what is known of their findings (``DiskResults.version``), their
        result ids (a document closed since drops its id: ``ResultCache.closes``) and the ids the
        client has for them. VS Code holds a ``workspace/diagnostic`` that every
        keystroke wakes: with this unchanged, its 12,000 closed items are not worked out again
        (~50 ms of the loop per keystroke)."""
        return (
            closed,
            self.runner.disk_key_base(),
            self.server.workspace_index.generations(),
            self.cache.disk.version,
            self.cache.closes,
            _ids_digest(previous.get(path_to_uri(path)) for path in closed),
        )

    async def _add_closed(
        self,
        items: list[WorkspaceItem],
        seen: set[str],
        closed: list[Path],
        previous: dict[str, str],
        stream: Stream | None,
        work_done_token: types.ProgressToken | None,
    ) -> None:
        """The closed files' reports onto ``items``: unchanged ones from the digests, the others
        from the cache or analysed, in batches (with progress when there are many to analyse)."""
        started = time.perf_counter()
        todo = sum(1 for path in closed if not self.runner.disk_current(path))
        progress = None
        if todo >= PROGRESS_MIN_FILES:
            progress = await WorkProgress.begin(self.server, len(closed), PROGRESS_TITLE, work_done_token)
        try:
            for at in range(0, len(closed), STREAM_BATCH):
                unchanged, batch = self._unchanged_closed(closed[at : at + STREAM_BATCH], previous)
                results = await self.runner.disk_results_for(batch)
                await self._add(items, seen, results, previous, stream, unchanged)
                # Cached results do not suspend the coroutine: without a turn here a held request
                # woken by a keystroke went over 12,000 files before any other message was read.
                await asyncio.sleep(0)
                if progress is not None:
                    progress.report(min(at + STREAM_BATCH, len(closed)))
        finally:
            if progress is not None:
                progress.end(f"checked {len(closed)} fixture files")
        if todo >= PROGRESS_MIN_FILES:
            elapsed = time.perf_counter() - started
            logger.info(
                "workspace diagnostics: %d of %d closed fixture files read in %.2f s",
                todo,
                len(closed),
                elapsed,
            )

    def _unchanged_closed(
        self, closed: list[Path], previous: dict[str, str]
    ) -> tuple[list[WorkspaceItem], list[Path]]:
        """The closed files whose findings the client has (its previous result id is the id of
        their valid digest), answered "unchanged" without their diagnostics, which may not be
        kept (``disk_results``); and the others, to read from the cache or analyse."""
        unchanged, rest = [], []
        asked = [path for path in closed if path_to_uri(path) in previous]
        known = self.runner.known_disk_digests(asked) if asked else {}
        for path in closed:
            uri = path_to_uri(path)
            findings = known.get(path)
            if findings is not None and previous[uri] == self.cache.result_id_of(uri, findings):
                unchanged.append(WorkspaceItem(uri, previous[uri], None, None))
            else:
                rest.append(path)
        return unchanged, rest

    async def _open_results(self, workspace: set[Path]) -> list[Result]:
        """The results of the open documents that are workspace fixture files (or fixtures at all)."""
        results = []
        for snapshot in self.server.documents:
            result = await self.runner.result_for_open(snapshot.uri)
            if result is not None and (result.kind != UNKNOWN or result.path in workspace):
                results.append(result)
        return results

    async def _add(
        self,
        items: list[WorkspaceItem],
        seen: set[str],
        results: list[Result],
        previous: dict[str, str],
        stream: Stream | None,
        extra: Sequence[WorkspaceItem] = (),
    ) -> None:
        """Each result's report (once per file) and ``extra`` onto ``items``, streamed if asked."""
        fresh = [self._item(result, previous) for result in results if result.uri not in seen]
        fresh += extra
        if any(item.diagnostics for item in fresh):
            fresh = await written_off_loop(fresh)
        seen.update(item.uri for item in fresh)
        start = len(items)
        items += fresh
        if stream is not None:
            await stream.offer(fresh)
            if stream.sent:  # sent as partial results: only their ids are needed any more
                items[start:] = [
                    item if item.diagnostics is None else item._replace(diagnostics=(), written=None)
                    for item in fresh
                ]

    def _item(self, result: Result, previous: dict[str, str]) -> WorkspaceItem:
        result_id = self.cache.result_id_of(result.uri, result.findings_digest())
        unchanged = previous.get(result.uri) == result_id
        return WorkspaceItem(result.uri, result_id, result.version, None if unchanged else result.diagnostics)
