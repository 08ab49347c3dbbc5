"""The language server: wiring only. Each LSP feature lives in its own module and registers its
handlers in ``create_server``; they all read the same document store and analysis results.

Start-up cost: this module imports pygls and lsprotocol (needed to answer ``initialize``); the
analysis core (parser, contracts, schemas) is imported on a worker thread when the client sends
``initialized`` (``lifecycle.warm_up``), so neither that answer nor the first analysis waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from cattrs import Converter
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import default_converter

from .. import __version__
from ..memory import collector
from ..memory.collector import WorkerPool
from ..text.line_index import Encoding, LineIndex
from ..text.pieces import Text
from .diagnostics.manager import DiagnosticsManager
from .features.context import FeatureContext, WorkspaceContext, document_view
from .features.quick_trees import QuickTrees
from .jsonrpc.converter_caches import keep_dispatch_caches
from .jsonrpc.encoded import encoder_pool
from .jsonrpc.log import forward_logs_to_client
from .jsonrpc.protocol import EvalfixProtocol
from .jsonrpc.trace import mark, start_from_environment
from .jsonrpc.transport import serve_stdio, serve_tcp
from .scheduling.point_first import PointFirst
from .scheduling.request_runner import RequestRunner
from .scheduling.supersession import Asked, Supersession
from .session.client_features import ClientFeatures
from .session.documents import DocumentStore, Snapshot, UnknownDocument, path_to_uri
from .session.host import Host
from .session.other_files import uri_and_lines
from .session.settings import Settings
from .session.workspace_index import RepoState, WorkspaceIndex

if TYPE_CHECKING:  # the analysis core is imported by the first analysis, not at start-up
    from pygls.server import ServerErrors

    from ..analysis import Analysis

logger = logging.getLogger("evalfix_ls")

ANALYSIS_WORKERS = 2  # analyses of open documents run here, off the event loop
# The workspace's own work runs on one worker of its own: the walk, the workflow index's load,
# closed files' analyses (scan, ``workspace/diagnostic``), the warm-up. Sharing the analysis
# workers, it held both of them at start-up in a 12,000-file repository (the walk, then the
# index's 0.9 s load): a suite opened meanwhile had its analysis in 30 ms and its publish after
# 0.95 s, its run-results join queued behind them (issue 30).
BACKGROUND_WORKERS = 1
EXIT_GRACE_SECONDS = 5.0  # after the session, running analyses get this long to finish
PYGLS_WORKERS = 4  # pygls runs thread handlers here (stdin has its own reader thread, see transport.py)
# How long a thread holding the GIL runs before a waiting one may take it (Python's default: 5 ms).
# While analyses run on the workers, every GIL hand-over to the event loop (a message read, a
# response written) waited up to that long, several times per request: a completion typed during
# the analysis of a 10 MB suite took 30-50 ms instead of 10. A shorter slice costs the analyses
# nothing measurable (a 2 MB analysis beside a busy thread: 300-380 ms at either interval).
SWITCH_INTERVAL_SECONDS = 0.0005


def _converter() -> Converter:
    """pygls' converter, keeping its dispatch caches (``jsonrpc.converter_caches``)."""
    return keep_dispatch_caches(default_converter())  # type: ignore[no-untyped-call]


class EvalfixServer(Host):
    protocol: EvalfixProtocol[Asked]

    def __init__(self) -> None:
        super().__init__(
            "evalfix-ls",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=EvalfixProtocol,
            converter_factory=_converter,
            max_workers=PYGLS_WORKERS,
        )
        self.documents = DocumentStore()
        self.workspace_index = WorkspaceIndex()
        self.settings = Settings(self.workspace_index)
        self.client_features = ClientFeatures()
        self.encoding = Encoding.UTF16
        self.executor = ThreadPoolExecutor(
            max_workers=ANALYSIS_WORKERS, thread_name_prefix="evalfix-analysis"
        )
        self.background = ThreadPoolExecutor(
            max_workers=BACKGROUND_WORKERS, thread_name_prefix="evalfix-background"
        )
        self.requests = RequestRunner(PointFirst())  # feature handlers run there (see features/__init__.py)
        self.supersession = Supersession(self._revision_of)
        self.protocol.host = self  # what the JSON-RPC layer calls back (``jsonrpc.protocol.ProtocolHost``)
        self.diagnostics: DiagnosticsManager = DiagnosticsManager(self)
        self.quick_trees = QuickTrees(self.diagnostics.cache, self.diagnostics.edits)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._error_popup_shown = False
        # (key, repositories, suites, the discovered list the key names): ``_workspace_files``
        self._workspace_memo: (
            tuple[tuple[int, int], dict[Path, RepoState], tuple[Path, ...], list[Path]] | None
        ) = None

    # -- text synchronisation (called by EvalfixProtocol) ----------------------------------------

    def on_did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        snapshot = self.documents.open(item.uri, item.version, item.text, item.language_id)
        self.diagnostics.document_opened(snapshot)

    def on_did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        try:
            snapshot = self.documents.change(
                uri, params.text_document.version, params.content_changes, self.encoding
            )
        except UnknownDocument:
            logger.warning("didChange for a document that is not open: %s (ignored)", uri)
            return
        self.diagnostics.document_changed(snapshot)

    def _revision_of(self, uri: str) -> int | None:
        snapshot = self.documents.get(uri)
        return snapshot.revision if snapshot is not None else None

    def worker_pools(self) -> list[WorkerPool]:
        """Every thread pool of the server with its size (started by
        ``collector.start_threads_and_freeze``)."""
        return [
            (self.executor, ANALYSIS_WORKERS),
            (self.background, BACKGROUND_WORKERS),
            *self.requests.pools(),
            encoder_pool(),
        ]

    def on_did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        snapshot = self.documents.close(params.text_document.uri)
        self.quick_trees.forget(params.text_document.uri)
        self.supersession.forget(params.text_document.uri)
        if snapshot is None:
            logger.warning("didClose for a document that is not open: %s (ignored)", params.text_document.uri)
            return
        self.diagnostics.document_closed(snapshot)
        last = not self.documents
        if last:  # their entries came from documents no longer open
            from ..services.document_caches import forget_document_caches  # (imported at warm-up)

            forget_document_caches()
            path_to_uri.cache_clear()  # (links of a large suite filled it during its analyses)
        collector.after_document_closed(last=last)  # what the document held is freed: the clean-up follows

    # -- for feature modules (hover, completion, symbols …): one store, one analysis --------------

    def snapshot_for(self, uri: str) -> Snapshot:
        """The open document; an ``InvalidParams`` error response for one that is not open."""
        snapshot = self.documents.get(uri)
        if snapshot is None:
            raise JsonRpcInvalidParams(message=f"document is not open: {uri}")
        return snapshot

    async def feature_context(self, uri: str) -> FeatureContext:
        """The immutable context of a feature request on an open document: its snapshot and the
        analysis of exactly that text (the one diagnostics use), encoding, settings, workspace."""
        snapshot, analysis = await self.analysis_for(uri)
        return self._feature_context(snapshot, analysis, snapshot.text)

    async def feature_context_now(self, uri: str) -> FeatureContext:
        """Like ``feature_context``, without waiting for the analysis of the current text: its
        tree comes from a local re-parse of the last tree around the edits since (no findings).
        Waits only when there is no earlier tree (a document just opened), and then only for the
        running analysis to parse, not for its rules. Its document's text is
        the snapshot's ``content``: a ``PieceText`` until the analysis builds the ``str``."""
        snapshot = self.snapshot_for(uri)
        analysis = self.quick_trees.analysis_now(snapshot)
        if analysis is not None:
            return self._feature_context(snapshot, analysis, snapshot.content)
        # No earlier tree (a document just opened): the running analysis' own, once parsed.
        mark("waits", what="parsed tree")
        analysis = await self.diagnostics.parsed_for_open(uri)
        if analysis is None:
            raise JsonRpcInvalidParams(message=f"document is not open or could not be analysed: {uri}")
        return self._feature_context(snapshot, analysis, snapshot.text)

    def _feature_context(self, snapshot: Snapshot, analysis: Analysis, text: Text) -> FeatureContext:
        is_open = self.documents.get(snapshot.uri) is not None  # (a closed one's memos are gone)
        repo = None
        if snapshot.path is not None:
            config = self.settings.config_for(snapshot.path)
            repo = self.workspace_index.repo_for(snapshot.path, config)
        return FeatureContext(
            snapshot=snapshot,
            document=document_view(snapshot, analysis, repo.root if repo else None, text=text),
            encoding=self.encoding,
            config=self.settings.config_for(snapshot.path),
            client=self.client_features,
            repo=repo,
            line_index_of=self._line_indexes(),
            memos=self.quick_trees.memos(snapshot.uri) if is_open else None,
        )

    async def prepared_workspace_context(self) -> WorkspaceContext:
        """``workspace_context`` with its slow parts done first on the background worker: the walk
        and each repository's workflow index load (12,000 files: 0.9 s each). Done on the event
        loop, the first ``workspace/symbol`` of a monorepo held every message behind it ~2 s."""
        loop = asyncio.get_running_loop()
        index = self.workspace_index
        discovered = await loop.run_in_executor(self.background, index.discover, self.settings.folder_config)
        repos, _suites = self._workspace_files(discovered)
        await loop.run_in_executor(self.background, _load_indexes, list(repos.values()))
        return self.workspace_context(discovered)

    def workspace_context(self, discovered: list[Path] | None = None) -> WorkspaceContext:
        """The context of a workspace-wide request: every workspace folder's repository
        (``discovered``: the fixture files when the caller found them)."""
        from ..services.workspace_facts import WorkspaceFacts  # the analysis core loads lazily

        repos, suites = self._workspace_files(discovered)
        facts = [WorkspaceFacts(root, repos[root].fs, repos[root].workflow_index()) for root in sorted(repos)]

        def open_text(path: Path) -> str | None:
            snapshot = self.documents.for_path(path)
            return snapshot.text if snapshot is not None else None

        return WorkspaceContext(tuple(facts), suites, self.encoding, open_text, self._line_indexes())

    def _workspace_files(
        self, discovered: list[Path] | None = None
    ) -> tuple[dict[Path, RepoState], tuple[Path, ...]]:
        """The repositories of the discovered fixture files and the evals suites among them,
        worked out again only when the discovery or the settings changed: per file (12,000 in a
        monorepo) it was most of a ``workspace/symbol`` request's time, on the event loop."""
        index = self.workspace_index
        if discovered is None:
            discovered = index.discover(self.settings.folder_config)
        key = (id(discovered), self.settings.generation)
        if self._workspace_memo is not None and self._workspace_memo[0] == key:
            return self._workspace_memo[1], self._workspace_memo[2]
        # Each repository through ``repo_for``, told its ``workflow_walk``: this request may be the
        # first to load its workflow index (which files are fixtures depends on the walk).
        repos: dict[Path, RepoState] = {}
        for path in discovered:
            config = self.settings.config_for(path)
            root = index.repo_root_for(path, config.root)
            if root not in repos:
                repos[root] = index.repo_for(path, config)
        suites = tuple(
            path for path in discovered if path.name == "evals.json" and path.parent.name == "evals"
        )
        # ``discovered`` is kept too: its id is part of the key only while the list lives.
        self._workspace_memo = (key, repos, suites, discovered)
        return repos, suites

    def _line_indexes(self) -> Callable[[Path], LineIndex | None]:
        """``_line_index_of`` remembered per path for one context: the locations of one answer
        (references, workspace symbols, related places) read and index each closed file once."""
        known: dict[Path, LineIndex | None] = {}

        def line_index_of(path: Path) -> LineIndex | None:
            if path not in known:
                known[path] = self._line_index_of(path)
            return known[path]

        return line_index_of

    def _line_index_of(self, path: Path) -> LineIndex | None:
        """The line index of an open buffer, else of the file on disk (``uri_and_lines``)."""
        root = self.workspace_index.repo_root_for(path, self.settings.config_for(path).root)
        found = uri_and_lines(path, root, self.documents.for_path)
        return found[1] if found is not None else None

    async def analysis_for(self, uri: str) -> tuple[Snapshot, Analysis]:
        """The current snapshot and the core's ``Analysis`` of its text (the one diagnostics use:
        a version is parsed once for every feature)."""
        snapshot = self.snapshot_for(uri)
        result = await self.diagnostics.result_for_open(uri)
        if result is None or result.analysis is None:
            raise JsonRpcInvalidParams(message=f"document is not open or could not be analysed: {uri}")
        return snapshot, result.analysis

    # -- errors ----------------------------------------------------------------------------------

    def report_server_error(self, error: Exception, source: ServerErrors) -> None:
        """A failed request was already logged by pygls and answered with an error response.
        A failed notification handler (a bug of ours) is logged here and shown once per session;
        anything else (a message that could not be sent) is only logged: what a client sends
        wrong is answered or logged by ``EvalfixProtocol``, never shown as a popup. The log
        reaches the client as ``window/logMessage``."""
        from pygls.exceptions import FeatureNotificationError, FeatureRequestError

        if source is FeatureRequestError:
            return
        data = getattr(error, "data", None)
        trace = "".join(data.get("traceback", ())) if isinstance(data, dict) else ""
        logger.error("internal error (%s): %s\n%s", getattr(source, "__name__", source), error, trace)
        if self._error_popup_shown or source is not FeatureNotificationError:
            return
        self._error_popup_shown = True
        with contextlib.suppress(Exception):  # never let error reporting fail the server
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error,
                    message="evalfix-ls hit an internal error and keeps running; details are in its log.",
                )
            )


def create_server() -> EvalfixServer:
    server = EvalfixServer()
    forward_logs_to_client(server)

    from . import lifecycle
    from .diagnostics import manager
    from .features import register_all
    from .session import workspace_events

    lifecycle.register(server)
    manager.register(server)
    workspace_events.register(server)
    register_all(server)
    return server


def _load_indexes(repos: list[RepoState]) -> None:
    for repo in repos:
        repo.ensure_index()


def parse_tcp(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"--tcp expects HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def start(tcp: str | None = None) -> int:
    """Serve until the client says ``exit``, closes the connection or goes away. Returns the
    process exit code the protocol asks for: 0 after ``shutdown``, 1 otherwise — and 1, with one
    line on stderr saying why, when the input broke off inside a message."""
    address = None
    if tcp is not None:
        try:
            address = parse_tcp(tcp)
        except ValueError as exc:
            print(f"evalfix-ls: error: {exc}", file=sys.stderr)
            return 2
    server = create_server()
    start_from_environment()
    collector.start_threads_and_freeze(server.worker_pools())
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    try:
        if address is not None:
            broken = serve_tcp(server, *address)
        else:
            broken = serve_stdio(server, sys.stdin.buffer, sys.stdout.buffer)
    except KeyboardInterrupt:
        broken = "interrupted"
    server.executor.shutdown(wait=False, cancel_futures=True)
    server.background.shutdown(wait=False, cancel_futures=True)
    server.requests.shutdown()
    code = 0 if server.protocol.shutdown_requested and broken is None else 1
    if broken is not None:
        print(f"evalfix-ls: {broken}", file=sys.stderr)
    _exit_anyway_after(EXIT_GRACE_SECONDS, code)
    return code


def _exit_anyway_after(seconds: float, code: int) -> None:
    """Python waits for running worker threads before the process ends; an analysis stuck in a
    read must not keep a server alive that its client has left."""
    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.start()
