"""Diagnostics: one result store serving push and pull.

``DiagnosticsManager`` is the entry point the rest of the server calls (document events, file and
settings changes, the pull requests); it decides, by the client's mode, which collaborator acts:

* ``diagnostics_core.ResultCore``: analysis jobs and the result store both modes answer from;
* ``diagnostics_push.PushScheduler``: push clients — debounce, analyse, publish;
* ``diagnostics_scan.WorkspaceScan`` / ``CrossFileRefresh``: the workspace scan of closed files
  (push) and the refresh of files another file's change affects;
* ``diagnostics_pull.PullHandlers``: ``textDocument/diagnostic`` and ``workspace/diagnostic``.

All methods run on the event loop; analyses run in ``server.executor`` (see ``analyzer.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ...parser.text_view import Text
from ..analyzer import Result
from ..documents import Snapshot
from ..workspace_index import FileEvent
from .core import ResultCore
from .pull import PullHandlers
from .push import PushScheduler
from .scan import RESCAN_DELAY, CrossFileRefresh, WorkspaceScan

if TYPE_CHECKING:
    from ..host import Host


class DiagnosticsManager:
    def __init__(self, server: Host) -> None:
        # Called (on the event loop) when the workspace index learnt new fixture texts.
        self.index_listeners: list[Callable[[], None]] = []
        self.server = server
        self.core = ResultCore(server, on_affected=self._on_affected)
        self.push = PushScheduler(server, self.core)
        self.scan = WorkspaceScan(server, self.core, self.push)
        self.cross_file = CrossFileRefresh(server, self.core)
        self.pull = PullHandlers(server, self.core)
        # Shared with the core (never rebound): open documents' results, and set once the first
        # workspace/configuration answer (or its failure) is in.
        self.results: dict[str, Result] = self.core.results
        self.settings_ready = self.core.settings_ready

    @property
    def pull_mode(self) -> bool:
        return self.server.client_features.pull

    async def result_for_open(self, uri: str) -> Result | None:
        """The result for the current text of an open document (see ``ResultCore``)."""
        return await self.core.result_for_open(uri)

    def schedule_push(self, uri: str, delay: float | None = None) -> None:
        self.push.schedule(uri, delay)

    def request_scan(self, *, progress: bool = False, delay: float = RESCAN_DELAY) -> None:
        """(Re)scan the closed fixture files of the workspace and push their diagnostics."""
        if self.pull_mode:
            return
        self.scan.request(progress=progress, delay=delay)

    def request_refresh(self) -> None:
        """Ask a pull client to pull again (``workspace/diagnostic/refresh``), coalesced."""
        self.cross_file.request_refresh()

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
            self.cross_file.schedule_sync(root)
            self._tell_index_listeners()

    def document_opened(self, snapshot: Snapshot) -> None:
        self.core.document_opened(snapshot.uri)
        self._note_text(snapshot, snapshot.content)
        if self.pull_mode:
            self.core.notify_changed()
        else:
            self.push.schedule(snapshot.uri, delay=0.0)

    def document_changed(self, snapshot: Snapshot, previous_version: int) -> None:
        self.core.note_edit(snapshot)
        self._note_text(snapshot, snapshot.content)
        if self.pull_mode:
            self.core.notify_changed()
        else:
            self.push.schedule(snapshot.uri)

    def document_closed(self, snapshot: Snapshot) -> None:
        self.push.forget(snapshot.uri)
        self.core.document_closed(snapshot.uri)
        self._note_text(snapshot, None)
        if self.pull_mode:
            self.core.notify_changed()
        else:
            self.core.spawn(self.push.after_close(snapshot), f"close {snapshot.uri}")

    # -- cross-file effects ----------------------------------------------------------------------

    def _tell_index_listeners(self) -> None:
        """Fixture texts of the workspace changed (e.g. a skill's readiness may differ now)."""
        for listener in self.index_listeners:
            listener()

    def _on_affected(self, paths: Iterable[Path]) -> None:
        """Other files' findings may have changed (a sibling's ids, a created source file)."""
        closed: list[Path] = []
        refresh = False
        for path in paths:
            snapshot = self.server.documents.for_path(path)
            if snapshot is None:
                closed.append(path)
                refresh = True
            elif self.pull_mode:
                refresh = True
            else:
                self.push.schedule(snapshot.uri)
        if closed and not self.pull_mode:
            self.core.spawn(self.scan.publish_affected(closed), "publish affected")
        if refresh and self.pull_mode:
            self.request_refresh()
        self.core.notify_changed()

    def recheck_open_documents(self) -> None:
        if self.pull_mode:
            if len(self.server.documents):
                self.request_refresh()
            self.core.notify_changed()
            return
        for snapshot in self.server.documents:
            self.push.schedule(snapshot.uri)

    def everything_changed(self) -> None:
        """Settings, folders or project files changed: every result may differ."""
        self.server.workspace_index.forget_discovery()
        self.recheck_open_documents()
        if self.pull_mode:
            self.request_refresh()
        else:
            self.request_scan()

    def files_changed(self, events: list[FileEvent]) -> None:
        index = self.server.workspace_index
        touched = index.note_file_events(
            events, is_open=lambda path: self.server.documents.for_path(path) is not None
        )
        for root in touched:
            self.cross_file.schedule_sync(root)
        if touched:
            self._tell_index_listeners()
        # Existence facts changed: every open document of a touched repository is re-checked.
        for snapshot in self.server.documents:
            if snapshot.path is None:
                continue
            root = index.repo_root_for(snapshot.path, self.server.settings.config_for(snapshot.path).root)
            if root in touched and not self.pull_mode:
                self.push.schedule(snapshot.uri)
        if self.pull_mode:
            if touched:  # nothing known lies below the changed paths: no need to pull again
                self.request_refresh()
            self.core.notify_changed()
        else:
            self.request_scan()

    # -- pull ------------------------------------------------------------------------------------

    async def pull_document(self, params: types.DocumentDiagnosticParams) -> Any:
        return await self.pull.document(params)

    async def pull_workspace(
        self, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        return await self.pull.workspace(params)

    # -- lifecycle -------------------------------------------------------------------------------

    def cancel_all(self) -> None:
        self.core.cancel_tasks()
        self.cross_file.cancel()


def register(server: Host) -> None:
    options = types.DiagnosticOptions(
        identifier="evalfix-ls", inter_file_dependencies=True, workspace_diagnostics=True
    )

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
    async def document_diagnostic(ls: Host, params: types.DocumentDiagnosticParams) -> Any:
        return await ls.diagnostics.pull_document(params)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: Host, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        return await ls.diagnostics.pull_workspace(params)
