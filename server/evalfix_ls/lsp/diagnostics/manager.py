"""Diagnostics: the entry point the rest of the server calls (document events, file and settings
changes, the pull requests). A change flows one way through the family:

1. ``edit_log.EditLog`` records the edit (so the next parse starts from the last tree);
2. the workspace index learns the buffer's text, and ``sync.RepoSync`` applies what it changes
   for other files;
3. the strategy (``strategies.PushStrategy`` or ``PullStrategy``, chosen by the client's
   capabilities) decides when an analysis runs and what the client is told;
4. ``jobs.JobRunner`` runs the analysis on a worker and stores its result in
   ``results.ResultCache``, which both strategies answer from.

All methods run on the event loop; analyses run in ``server.executor`` (see ``worker.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from ...text.pieces import Text
from ..jsonrpc.encoded import EncodedResult
from ..session.documents import Snapshot
from ..session.workspace_index import FileEvent
from .edit_log import EditLog
from .jobs import JobRunner
from .results import ResultCache
from .strategies import PullStrategy, PushStrategy, Strategy
from .sync import RepoSync
from .tasks import BackgroundTasks
from .worker import Result

if TYPE_CHECKING:
    from ...analysis import Analysis
    from ..session.host import Host

T = TypeVar("T")
logger = logging.getLogger(__name__)
# Diagnostics of another source joined to a document's own (run results: features/results.py):
# ``(uri, result)`` → (a key that changes when they do, each diagnostic's JSON).
ExtraItems = Callable[[str, Result], Awaitable[tuple[str, Sequence[str]]]]


class DiagnosticsManager:
    def __init__(self, server: Host) -> None:
        # Called (on the event loop) when the workspace index learnt new fixture texts.
        self.index_listeners: list[Callable[[], None]] = []
        self.server = server
        self.tasks = BackgroundTasks()
        self.edits = EditLog()
        self.cache = ResultCache()
        self.runner = JobRunner(server, self.edits, self.cache, self.tasks, on_affected=self._on_affected)
        self.sync = RepoSync(server, self.runner)
        self.runner.on_sync_pending = self.sync.ensure
        self.push = PushStrategy(server, self.runner)
        self.pull = PullStrategy(server, self.runner)
        # Set once the first workspace/configuration answer (or its failure) is in.
        self.settings_ready = self.tasks.settings_ready
        # Called (on the event loop) with the paths of file events, and once on ``initialized``.
        self.file_listeners: list[Callable[[list[Path]], object]] = []
        self.started_listeners: list[Callable[[], None]] = []
        self.extra_items: ExtraItems | None = None

    async def extra_for(self, uri: str, result: Result) -> tuple[str, Sequence[str]]:
        """The other sources' diagnostics for this result (none when they fail: logged)."""
        if self.extra_items is None:
            return "", ()
        try:
            return await self.extra_items(uri, result)
        except Exception:
            logger.exception("extra diagnostics failed for %s", uri)
            return "", ()

    @property
    def strategy(self) -> Strategy:
        """Push or pull, as the client negotiated in ``initialize``."""
        return self.pull if self.server.client_features.pull else self.push

    async def result_for_open(self, uri: str) -> Result | None:
        """The result for the current text of an open document (see ``JobRunner``)."""
        return await self.runner.result_for_open(uri)

    async def parsed_for_open(self, uri: str) -> Analysis | None:
        """The tree of the current text of an open document, before its rules ran (``JobRunner``)."""
        return await self.runner.parsed_for_open(uri)

    def initialized(self) -> None:
        self.strategy.initialized()
        for listener in self.started_listeners:
            listener()

    # -- document events -------------------------------------------------------------------------

    def _note_text(self, snapshot: Snapshot, text: Text | None) -> None:
        """Tell the workspace index about a buffer's text (None: the buffer is gone)."""
        path = snapshot.path
        if path is None:
            return
        config = self.server.settings.config_for(path)
        root = self.server.workspace_index.repo_root_for(path, config.root)
        self.server.workspace_index.repo(root)
        edit = snapshot.edit if text is not None else None
        if self.server.workspace_index.note_text(path, root, text, edit):
            self.sync.schedule(root)
            self._tell_index_listeners()

    def document_opened(self, snapshot: Snapshot) -> None:
        self.edits.opened(snapshot)
        self.cache.opened(snapshot.uri)
        self._note_text(snapshot, snapshot.content)
        self.strategy.opened(snapshot)

    def document_changed(self, snapshot: Snapshot) -> None:
        self.edits.record(snapshot)
        self._note_text(snapshot, snapshot.content)
        self.strategy.changed(snapshot)

    def document_closed(self, snapshot: Snapshot) -> None:
        self.edits.closed(snapshot.uri)
        self.cache.closed(snapshot.uri)
        self._note_text(snapshot, None)
        self.strategy.closed(snapshot)

    # -- cross-file effects ----------------------------------------------------------------------

    def _tell_index_listeners(self) -> None:
        """Fixture texts of the workspace changed (e.g. a skill's readiness may differ now)."""
        for listener in self.index_listeners:
            listener()

    def _on_affected(self, paths: Iterable[Path]) -> None:
        """Other files' findings may have changed (a sibling's ids, a created source file)."""
        open_uris: list[str] = []
        closed: list[Path] = []
        for path in paths:
            snapshot = self.server.documents.for_path(path)
            if snapshot is None:
                closed.append(path)
            else:
                open_uris.append(snapshot.uri)
        self.strategy.affected(open_uris, closed)
        self.cache.notify_changed()

    def recheck_open_documents(self) -> None:
        self.strategy.recheck_open()

    def everything_changed(self) -> None:
        """Settings, folders or project files changed: every result may differ."""
        self.server.workspace_index.forget_discovery()
        self.strategy.recheck_open()
        self.strategy.recheck_workspace()

    def files_changed(self, events: list[FileEvent]) -> None:
        for file_listener in self.file_listeners:
            file_listener([event.path for event in events])
        index = self.server.workspace_index
        touched = index.note_file_events(
            events, is_open=lambda path: self.server.documents.for_path(path) is not None
        )
        # A closed file's own result is read from its text: a save changes it whatever else does.
        rewritten = self.cache.forget_disk(event.path for event in events)
        for root in touched:
            self.sync.schedule(root)
        if touched:
            self._tell_index_listeners()
        # Existence facts changed: every open document of a touched repository is re-checked.
        affected = [
            snapshot.uri
            for snapshot in self.server.documents
            if snapshot.path is not None
            and index.repo_root_for(snapshot.path, self.server.settings.config_for(snapshot.path).root)
            in touched
        ]
        self.strategy.files_changed(affected, bool(touched) or rewritten)

    # -- pull ------------------------------------------------------------------------------------

    async def pull_document(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        return await self.pull.handlers.document(params)

    async def pull_workspace(self, params: types.WorkspaceDiagnosticParams) -> EncodedResult:
        return await self.pull.handlers.workspace(params)

    # -- lifecycle -------------------------------------------------------------------------------

    def cancel_all(self) -> None:
        self.tasks.cancel_all()
        self.pull.cancel()

    def spawn(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """A background task of another family, cancelled with the diagnostics' own at shutdown
        (its failure logged, never lost)."""
        return self.tasks.spawn(coro, name)


def register(server: Host) -> None:
    options = types.DiagnosticOptions(
        identifier="evalfix-ls", inter_file_dependencies=True, workspace_diagnostics=True
    )

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
    async def document_diagnostic(
        ls: Host, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        return await ls.diagnostics.pull_document(params)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(ls: Host, params: types.WorkspaceDiagnosticParams) -> EncodedResult:
        # written as JSON off the event loop (workspace_pull.items_json_off_loop)
        return await ls.diagnostics.pull_workspace(params)
