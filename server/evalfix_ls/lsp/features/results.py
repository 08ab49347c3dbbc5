"""Run results in the editor: the hub that holds the results indexes, the ``evalfix.openCaseResult``
command, live updates, and the pieces the lens, hint, hover and diagnostics handlers add.

One ``ResultsIndex`` per (repository, extra result roots). Handlers look cases up there on a
request worker: the first lens of a skill reads its results (one ``grading.json`` and one
``timing.json`` per case), every later request — each keystroke's lenses, hints and
diagnostics — is answered from the kept answers and opens no result file.

Live: a result file written by a run reaches the index as a ``workspace/didChangeWatchedFiles``
event where the client watches files (the server's watchers cover ``**/*.json`` and every creation);
a client without file watching gets the server's own poll (``POLL_SECONDS``; it stats the result
folders of the skills asked about so far, never reads a file: ``SkillResults.signature``). Either
way the skills concerned are dropped from the index and the client is asked to refresh code lenses,
inlay hints and diagnostics. A half-written ``grading.json`` is "pending": it is part of the
poll's signature, and its next write is an event, so it is read again once complete.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types

if TYPE_CHECKING:
    from ...results.index import ResultsIndex
    from ...services.hover import HoverInfo
    from ...services.inline_facts import CodeLens, InlayHint
    from ...services.run_results import ResultNote
    from ..session.host import Host
    from .context import FeatureContext

logger = logging.getLogger("evalfix_ls")

OPEN_COMMAND = "evalfix.openCaseResult"
POLL_SECONDS = 2.0
REFRESH_DELAY = 0.2  # a run writing seven files per case is one refresh


class ResultsHub:
    """The results indexes of the session and who to tell when they change."""

    def __init__(self) -> None:
        self._indexes: dict[tuple[Path, tuple[Path, ...]], ResultsIndex] = {}
        self._lock = threading.Lock()
        self.listeners: list[Callable[[], None]] = []
        self.generation = 0
        self.polling = False  # the client sends no file events: indexes keep poll signatures
        self.tasks: list[asyncio.Task[None]] = []

    def index(self, repo_root: Path, roots: Sequence[Path]) -> ResultsIndex:
        from ...results.index import ResultsIndex

        key = (repo_root, tuple(roots))
        with self._lock:
            found = self._indexes.get(key)
            if found is None:
                found = self._indexes[key] = ResultsIndex(repo_root, roots)
                found.polled = self.polling
            return found

    def index_for(self, ctx: FeatureContext) -> ResultsIndex:
        """The index of the document's repository under its configuration's result roots."""
        root = ctx.document.repo_root or (ctx.document.path.parent if ctx.document.path else Path.cwd())
        return self.index(root, ctx.config.result_roots)

    def files_changed(self, paths: Sequence[Path]) -> bool:
        """Drop what ``paths`` may have changed; True when some skill's results did."""
        with self._lock:
            indexes = list(self._indexes.values())
        touched = False
        for index in indexes:
            touched |= bool(index.invalidate(paths))
        if touched:
            self.changed()
        return touched

    def changed(self) -> None:
        self.generation += 1
        for listener in self.listeners:
            listener()

    def poll(self) -> bool:
        """Compare every known skill's signature with the last one (a client without file
        events); True when some changed (the caller, on the loop, then calls ``changed``)."""
        self.polling = True
        with self._lock:
            indexes = list(self._indexes.values())
        touched = False
        for index in indexes:
            touched |= bool(index.poll())
        return touched


_HUB = ResultsHub()


def hub() -> ResultsHub:
    """The session's hub (one server per process)."""
    return _HUB


def register(server: Host) -> None:
    from .result_diagnostics import extra_items

    _HUB.listeners.append(_refresher(server))
    server.diagnostics.file_listeners.append(_HUB.files_changed)
    server.diagnostics.started_listeners.append(lambda: start_polling(server))
    server.diagnostics.extra_items = extra_items(server, _HUB.index)

    @server.command(OPEN_COMMAND)
    async def open_case_result(ls: Host, *arguments: object) -> bool:
        """``[file or folder, …]``: shown in the editor (``window/showDocument``)."""
        args = list(arguments)
        if len(args) == 1 and isinstance(args[0], list):
            args = args[0]
        shown = False
        for target in args:
            if isinstance(target, str) and target.startswith("file:"):
                params = types.ShowDocumentParams(
                    uri=target, external=target.endswith("/"), take_focus=not shown
                )
                try:
                    result = await ls.window_show_document_async(params)
                    shown |= result.success
                except Exception:  # noqa: BLE001 - a client without showDocument: nothing shown
                    logger.debug("window/showDocument refused", exc_info=True)
        return shown


def start_polling(server: Host) -> None:
    """The server's own watch, for clients that send no file events: bounded (the known skills'
    folders, every ``POLL_SECONDS``), on a worker."""
    if server.client_features.watch_dynamic:
        return
    _HUB.polling = True
    with _HUB._lock:
        for index in _HUB._indexes.values():
            index.polled = True

    async def loop() -> None:
        running = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                if await running.run_in_executor(server.background, _HUB.poll):
                    _HUB.changed()
            except Exception:  # noqa: BLE001 - a poll that failed is tried again next time
                logger.debug("results poll failed", exc_info=True)

    _HUB.tasks.append(
        asyncio.get_running_loop().create_task(loop())
    )  # kept: a task only weakly held may vanish


def _refresher(server: Host) -> Callable[[], None]:
    """Ask the client to re-request lenses, hints and diagnostics, coalesced."""
    pending: list[asyncio.TimerHandle] = []

    async def refresh() -> None:
        pending.clear()
        features = server.client_features
        if features.supports("workspace", "code_lens", "refresh_support"):
            await _quietly(server.workspace_code_lens_refresh_async(None))
        if features.supports("workspace", "inlay_hint", "refresh_support"):
            await _quietly(server.workspace_inlay_hint_refresh_async(None))
        server.diagnostics.recheck_open_documents()

    def listener() -> None:  # on the event loop
        if pending:
            return
        loop = asyncio.get_running_loop()
        pending.append(loop.call_later(REFRESH_DELAY, lambda: loop.create_task(refresh())))

    return listener


async def _quietly(request: object) -> None:
    try:
        await request  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - a client may refuse or be gone
        logger.debug("refresh refused", exc_info=True)


# -- what the lens, hint and hover handlers add ----------------------------------------------------

_T = TypeVar("_T")


def _guarded(compute: Callable[[], _T], fallback: _T, what: str) -> _T:
    """``compute()``; on an unexpected error, ``fallback`` and a log line: the lens, hint and hover
    answers also carry the other features' items, which a fault in reading results must not take
    down. A stopped request (cancelled, or its document changed) still stops."""
    from pygls.exceptions import JsonRpcContentModified

    from ..scheduling.request_runner import RequestStopped

    try:
        return compute()
    except (RequestStopped, JsonRpcContentModified):
        raise
    except Exception:
        logger.exception("run results: %s failed", what)
        return fallback


def result_lenses(ctx: FeatureContext) -> list[CodeLens]:
    """A lens on each case of an eval suite whose skill has a run: the newest result's line."""
    return _guarded(lambda: _result_lenses(ctx), [], "code lenses")


def _result_lenses(ctx: FeatureContext) -> list[CodeLens]:
    from ...services.inline_facts import CodeLens
    from ...services.run_results import lens_title, lookups, suite_of

    index = _HUB.index_for(ctx)
    suite = suite_of(ctx.document, index.has_runs)
    if suite is None or not suite.cases:
        return []
    out = []
    for case, found in zip(suite.cases, lookups(suite, index.lookup), strict=True):
        ctx.token.check()
        title = lens_title(case, found)
        if title is None:
            continue
        targets: tuple[str, ...] = ()
        if found.result is not None:
            folder = found.result.primary.folder
            targets = tuple(
                path.as_uri() + ("/" if path.is_dir() else "")
                for path in (folder / "assistant.md", folder / "outputs", folder)
                if path.exists()
            )
        out.append(
            CodeLens(case.start, case.start + 1, title, OPEN_COMMAND if targets else None, targets[:2])
        )
    return out


def _notes(ctx: FeatureContext, start: int = 0, end: int | None = None) -> list[ResultNote]:
    from ...services.run_results import lookups, notes, suite_of

    index = _HUB.index_for(ctx)
    suite = suite_of(ctx.document, index.has_runs)
    if suite is None or not suite.cases:
        return []
    return notes(suite, lookups(suite, index.lookup), start, end)


def result_hints(ctx: FeatureContext, start: int, end: int) -> list[InlayHint]:
    """✓ / ✗ / stale after each assertion in ``[start, end]``."""
    return _guarded(lambda: _result_hints(ctx, start, end), [], "inlay hints")


def _result_hints(ctx: FeatureContext, start: int, end: int) -> list[InlayHint]:
    from ...services.inline_facts import InlayHint
    from ...services.run_results import hint_label, hint_tooltip

    return [
        InlayHint(note.end, hint_label(note.verdict), hint_tooltip(note))
        for note in _notes(ctx, start, end)
        if start <= note.end <= end
    ]


def result_hover(ctx: FeatureContext, offset: int) -> HoverInfo | None:
    """The verdict, evidence and artifact links of the assertion at ``offset``."""
    return _guarded(lambda: _result_hover(ctx, offset), None, "hover")


def _result_hover(ctx: FeatureContext, offset: int) -> HoverInfo | None:
    from ...services.hover import HoverInfo
    from ...services.run_results import hover_markdown, note_at

    note = note_at(_notes(ctx, offset, offset), offset)
    if note is None:
        return None
    return HoverInfo(hover_markdown(note), note.start, note.end)
