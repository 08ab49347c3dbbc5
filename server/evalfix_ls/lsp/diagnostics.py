"""Diagnostics: one result store serving push and pull.

* **Push** (clients without ``textDocument.diagnostic``): every edit (re)starts a short per-document
  debounce; then at most one analysis per document runs at a time, and a result is published only
  if its version is still the document's version — a user typing steadily sees the latest version,
  never a backlog. Closed fixture files of the workspace are scanned once after ``initialized``
  (with ``$/progress``) and again when files change.
* **Pull**: ``textDocument/diagnostic`` and ``workspace/diagnostic`` answer from the same store,
  with result ids so that unchanged reports are possible. A ``workspace/diagnostic`` request that
  carries a ``partialResultToken`` (VS Code re-sends it two seconds after every answer) is held
  open while nothing changed ("long polling").

All methods run on the event loop; analyses run in ``server.executor`` (see ``analyzer.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ..contracts import UNKNOWN, is_workflow_path
from ..workspace import relative_posix
from .analyzer import Job, Result, run_job, sync_repo
from .documents import Edit, Snapshot, compose, path_to_uri
from .workspace_index import FileEvent, RepoState, unwatched_epoch

if TYPE_CHECKING:
    from .server import EvalfixServer

logger = logging.getLogger(__name__)

SETTINGS_WAIT_SECONDS = 2.0  # a pull waits this long at most for the first workspace/configuration
SCAN_CHUNK = 16  # closed files analysed per executor call during a workspace scan
RESCAN_DELAY = 0.2  # coalesces bursts of file events (a checkout) into one rescan
REFRESH_DELAY = 0.03  # coalesces refresh requests to pull clients
MAX_TRACKED_EDITS = 1000  # edits remembered per document between two analyses


class _PushState:
    """The per-document push pipeline: a debounce task and whether an analysis is running."""

    __slots__ = ("task", "computing", "again")

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.computing = False
        self.again = False


class DiagnosticsManager:
    def __init__(self, server: EvalfixServer) -> None:
        self.server = server
        self.results: dict[str, Result] = {}  # open documents: the latest result of the current text
        self._disk_results: dict[Path, Result] = {}  # closed workspace files
        self._inflight: dict[str, tuple[int, tuple[Any, ...], asyncio.Future[Result]]] = {}
        self._result_ids: dict[str, tuple[tuple[Any, ...], str]] = {}
        self._id_counter = itertools.count(1)
        self._push: dict[str, _PushState] = {}
        self._published: dict[str, tuple[Any, ...]] = {}  # uri -> fingerprint last pushed
        self._workspace_reported: set[str] = set()  # uris in the last workspace/diagnostic answer
        self._last_workspace_answer: dict[str, str] | None = None
        self._changed = asyncio.Event()
        self._sync_tasks: dict[Path, asyncio.Task[None]] = {}
        self._scan_task: asyncio.Task[None] | None = None
        self._scan_again = False
        self._refresh_handle: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.settings_ready = asyncio.Event()
        # Per open document: findings of unchanged cases, and the edits since the last result
        # (from version, to version, edit) so the next parse can start from that result's tree.
        self._case_caches: dict[str, Any] = {}
        self._edits: dict[str, list[tuple[int, int, Edit | None]]] = {}

    # -- small helpers ---------------------------------------------------------------------------

    @property
    def _client(self) -> Any:
        return self.server.client_features

    @property
    def pull_mode(self) -> bool:
        return self._client.pull

    def _spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        """A background task whose failure is logged, never lost and never fatal."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            logger.error("background task %s failed", task.get_name(), exc_info=exc)

    def _debounce_seconds(self, path: Path | None) -> float:
        return self.server.settings.config_for(path).debounce_ms / 1000

    def _notify_changed(self) -> None:
        """Wake parked ``workspace/diagnostic`` requests."""
        self._changed.set()
        self._changed = asyncio.Event()

    def _result_id(self, uri: str, fingerprint: tuple[Any, ...]) -> str:
        entry = self._result_ids.get(uri)
        if entry is not None and entry[0] == fingerprint:
            return entry[1]
        result_id = f"r{next(self._id_counter)}"
        self._result_ids[uri] = (fingerprint, result_id)
        return result_id

    async def _settings(self) -> None:
        if not self.settings_ready.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.settings_ready.wait(), SETTINGS_WAIT_SECONDS)

    # -- jobs ------------------------------------------------------------------------------------

    def _repo_for(self, path: Path | None) -> tuple[RepoState | None, bool]:
        """The repository state of ``path`` and whether its workflow index applies."""
        if path is None:
            return None, False
        config = self.server.settings.config_for(path)
        root = self.server.workspace_index.repo_root_for(path, config.root)
        rel = relative_posix(path, root)
        return self.server.workspace_index.repo(root), rel is not None and is_workflow_path(rel)

    def _job(self, uri: str, path: Path | None, snapshot: Snapshot | None) -> Job:
        repo, use_index = self._repo_for(path)
        settings = self.server.settings
        key: tuple[Any, ...] = (
            settings.generation,
            repo.fs_generation if repo else 0,
            repo.index_generation if repo and use_index else 0,
        )
        if not self.server.workspace_index.watching:  # no file events: results expire instead
            key += (unwatched_epoch(),)
        job = Job(
            uri=uri,
            path=path,
            snapshot=snapshot,
            repo=repo,
            config=settings.config_for(path),
            encoding=self.server.encoding,
            key=key,
            related_support=self._client.related_information,
            use_workflow_index=use_index,
        )
        return self._with_previous_parse(job) if snapshot is not None else job

    def _with_previous_parse(self, job: Job) -> Job:
        """Hand the last result's tree (and the edits since) to the job: an unchanged text is not
        parsed again, an edited one is re-parsed around the edit only."""
        uri = job.uri
        snapshot = job.snapshot
        assert snapshot is not None
        cache = self._case_caches.get(uri)
        base = self.results.get(uri)
        tree = getattr(base.analysis, "tree", None) if base is not None else None
        if tree is None or base is None or base.version is None:
            return replace(job, case_cache=cache)
        if base.text == snapshot.text:
            return replace(job, case_cache=cache, tree=tree)
        version, edits = base.version, []
        for from_version, to_version, edit in self._edits.get(uri, ()):
            if from_version == version:
                edits.append(edit)
                version = to_version
        if version != snapshot.version:
            return replace(job, case_cache=cache)
        return replace(job, case_cache=cache, prev_tree=tree, edit=compose(edits))

    def _forget_edits_until(self, uri: str, version: int | None) -> None:
        edits = self._edits.get(uri)
        if edits is not None and version is not None:
            edits[:] = [entry for entry in edits if entry[1] > version]

    def _open_lookup(self, path: Path) -> Snapshot | None:
        return self.server.documents.for_path(path)

    async def _run(self, jobs: list[Job]) -> list[Result]:
        loop = asyncio.get_running_loop()
        lookup = self._open_lookup
        results = await loop.run_in_executor(self.server.executor, _run_jobs, jobs, lookup)
        for result in results:
            if result.affected:
                self._on_affected(result.affected)
        return results

    async def result_for_open(self, uri: str) -> Result | None:
        """The result for the current text of an open document (cached when nothing it depends
        on changed; shared with an identical analysis already running)."""
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return None
        job = self._job(uri, snapshot.path, snapshot)
        cached = self.results.get(uri)
        if cached is not None and cached.key == job.key and cached.text == snapshot.text:
            if cached.version != snapshot.version:
                cached = self.results[uri] = replace(cached, version=snapshot.version)
            return cached
        inflight = self._inflight.get(uri)
        if inflight is not None and inflight[0] == snapshot.version and inflight[1] == job.key:
            return await asyncio.shield(inflight[2])
        future: asyncio.Future[Result] = asyncio.ensure_future(self._run_one(job))
        self._inflight[uri] = (snapshot.version, job.key, future)
        try:
            result = await asyncio.shield(future)
        finally:
            if self._inflight.get(uri, (None, None, None))[2] is future:
                del self._inflight[uri]
        current = self.server.documents.get(uri)
        if current is not None and current.version == result.version:
            previous = self.results.get(uri)
            self.results[uri] = result
            self._forget_edits_until(uri, result.version)
            if previous is None or previous.fingerprint != result.fingerprint:
                self._notify_changed()
        return result

    async def _run_one(self, job: Job) -> Result:
        return (await self._run([job]))[0]

    # -- document events -------------------------------------------------------------------------

    def _note_text(self, snapshot: Snapshot, text: str | None) -> None:
        """Tell the workspace index about a buffer's text (None: the buffer is gone)."""
        path = snapshot.path
        if path is None:
            return
        config = self.server.settings.config_for(path)
        root = self.server.workspace_index.repo_root_for(path, config.root)
        self.server.workspace_index.repo(root)
        if self.server.workspace_index.note_text(path, root, text):
            self._schedule_sync(root)

    def document_opened(self, snapshot: Snapshot) -> None:
        from ..contracts.case_cache import CaseCache

        self._case_caches[snapshot.uri] = CaseCache()
        self._edits[snapshot.uri] = []
        self.results.pop(snapshot.uri, None)
        self._note_text(snapshot, snapshot.text)
        if self.pull_mode:
            self._notify_changed()
        else:
            self.schedule_push(snapshot.uri, delay=0.0)

    def document_changed(self, snapshot: Snapshot, previous_version: int) -> None:
        edits = self._edits.setdefault(snapshot.uri, [])
        if len(edits) >= MAX_TRACKED_EDITS:  # nobody asked for a while: start from scratch
            edits.clear()
        edits.append((previous_version, snapshot.version, snapshot.edit))
        self._note_text(snapshot, snapshot.text)
        if self.pull_mode:
            self._notify_changed()
        else:
            self.schedule_push(snapshot.uri)

    def document_closed(self, snapshot: Snapshot) -> None:
        state = self._push.pop(snapshot.uri, None)
        if state is not None and state.task is not None:
            state.task.cancel()
        self.results.pop(snapshot.uri, None)
        self._case_caches.pop(snapshot.uri, None)
        self._edits.pop(snapshot.uri, None)
        self._note_text(snapshot, None)
        if self.pull_mode:
            self._notify_changed()
        else:
            self._spawn(self._after_close(snapshot), f"close {snapshot.uri}")

    async def _after_close(self, snapshot: Snapshot) -> None:
        """Push clients: a closed workspace fixture file keeps its (disk) diagnostics; any other
        closed document has its diagnostics cleared."""
        uri = snapshot.uri
        path = snapshot.path
        if path is not None and path in set(await self._workspace_files()):
            if self.server.documents.get(uri) is None:
                await self._publish_disk([path])
            return
        if self.server.documents.get(uri) is None and uri in self._published:
            self._publish(uri, [], None, fingerprint=())
            del self._published[uri]

    # -- push ------------------------------------------------------------------------------------

    def schedule_push(self, uri: str, delay: float | None = None) -> None:
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return
        state = self._push.setdefault(uri, _PushState())
        if state.computing:
            state.again = True  # the running loop re-analyses the latest text when it finishes
            return
        if state.task is not None and not state.task.done():
            state.task.cancel()  # still debouncing: restart the wait
        if delay is None:
            delay = self._debounce_seconds(snapshot.path)
        state.task = self._spawn(self._push_loop(uri, state, delay), f"push {uri}")

    async def _push_loop(self, uri: str, state: _PushState, delay: float) -> None:
        await self._settings()
        while True:
            if delay:
                await asyncio.sleep(delay)
            state.computing, state.again = True, False
            try:
                result = await self.result_for_open(uri)
            finally:
                state.computing = False
            current = self.server.documents.get(uri)
            if result is None or current is None:
                return
            if current.version == result.version:
                self._publish(uri, result.diagnostics, result.version, fingerprint=result.fingerprint)
            elif not state.again:  # defensive: a change always sets ``again``
                state.again = True
            if not state.again:
                return
            delay = self._debounce_seconds(current.path)

    def _publish(
        self,
        uri: str,
        diagnostics: list[types.Diagnostic],
        version: int | None,
        *,
        fingerprint: tuple[Any, ...],
    ) -> None:
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )
        self._published[uri] = fingerprint

    # -- workspace files (push: scan and publish; pull: workspace/diagnostic) ---------------------

    async def _workspace_files(self) -> list[Path]:
        """Fixture files of the workspace folders whose configuration wants workspace diagnostics."""
        server = self.server
        loop = asyncio.get_running_loop()
        paths = await loop.run_in_executor(
            server.executor, server.workspace_index.discover, server.settings.folder_config
        )
        out = []
        for path in paths:
            folder = server.workspace_index.folder_for(path)
            if folder is None or server.settings.folder_config(folder).workspace_diagnostics:
                out.append(path)
        return out

    async def _disk_results_for(self, paths: list[Path]) -> list[Result]:
        """Results for closed files, from the cache when nothing they depend on changed."""
        jobs = [self._job(path_to_uri(path), path, None) for path in paths]
        todo = [job for job in jobs if (r := self._disk_results.get(job.path)) is None or r.key != job.key]  # type: ignore[arg-type]
        for start in range(0, len(todo), SCAN_CHUNK):
            for result in await self._run(todo[start : start + SCAN_CHUNK]):
                assert result.path is not None
                # Keep what the reports need, not the text and tree of every closed file.
                self._disk_results[result.path] = replace(result, text="", analysis=None)
        return [self._disk_results[job.path] for job in jobs if job.path in self._disk_results]  # type: ignore[index]

    async def _publish_disk(self, paths: list[Path]) -> None:
        for result in await self._disk_results_for(paths):
            if self.server.documents.get(result.uri) is not None:
                continue  # opened meanwhile: the buffer's pipeline owns it
            self._publish_if_changed(result.uri, result.diagnostics, result.fingerprint)

    def _publish_if_changed(self, uri: str, diagnostics: list[types.Diagnostic], fp: tuple[Any, ...]) -> None:
        previous = self._published.get(uri)
        if previous == fp or (previous is None and not diagnostics):
            return
        self._publish(uri, diagnostics, None, fingerprint=fp)

    def request_scan(self, *, progress: bool = False, delay: float = RESCAN_DELAY) -> None:
        """(Re)scan the closed fixture files of the workspace and push their diagnostics."""
        if self.pull_mode:
            return
        if self._scan_task is not None and not self._scan_task.done():
            self._scan_again = True
            return
        self._scan_task = self._spawn(self._scan(progress, delay), "workspace scan")

    async def _scan(self, progress: bool, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        while True:
            self._scan_again = False
            await self._scan_once(progress)
            if not self._scan_again:
                return
            progress = False
            await asyncio.sleep(RESCAN_DELAY)

    async def _scan_once(self, progress: bool) -> None:
        await self._settings()
        paths = await self._workspace_files()
        closed = [path for path in paths if self.server.documents.for_path(path) is None]
        token = await self._begin_progress(len(closed)) if progress else None
        try:
            for start in range(0, len(closed), SCAN_CHUNK):
                await self._publish_disk(closed[start : start + SCAN_CHUNK])
                if token is not None:
                    done = min(start + SCAN_CHUNK, len(closed))
                    self.server.work_done_progress.report(
                        token,
                        types.WorkDoneProgressReport(
                            message=f"{done}/{len(closed)} files",
                            percentage=done * 100 // max(1, len(closed)),
                        ),
                    )
            # Files that vanished from the workspace (deleted, configuration) lose their diagnostics.
            current = {path_to_uri(path) for path in paths}
            for uri in list(self._published):
                if uri not in current and self.server.documents.get(uri) is None:
                    self._publish(uri, [], None, fingerprint=())
                    del self._published[uri]
        finally:
            if token is not None:
                self.server.work_done_progress.end(
                    token, types.WorkDoneProgressEnd(message=f"checked {len(closed)} fixture files")
                )

    async def _begin_progress(self, total: int) -> str | None:
        if not self._client.work_done_progress:
            return None
        token = f"evalfix-scan-{uuid.uuid4()}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception as exc:  # the client refused: scan without progress
            logger.info("no progress report for the workspace scan: %s", exc)
            return None
        self.server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="evalfix-ls: checking fixture files", message=f"0/{total} files", percentage=0
            ),
        )
        return token

    # -- cross-file effects ----------------------------------------------------------------------

    def _schedule_sync(self, root: Path) -> None:
        """Apply a repository's queued facts soon, so that files depending on them are refreshed
        even when nobody asks for the changed file itself."""
        task = self._sync_tasks.get(root)
        if task is not None and not task.done():
            task.cancel()
        self._sync_tasks[root] = self._spawn(self._sync(root), f"sync {root}")

    async def _sync(self, root: Path) -> None:
        await asyncio.sleep(self.server.settings.folder_config(root).debounce_ms / 1000)
        repo = self.server.workspace_index.repo(root)
        loop = asyncio.get_running_loop()
        affected = await loop.run_in_executor(self.server.executor, sync_repo, repo)
        if affected:
            self._on_affected(affected)

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
                self.schedule_push(snapshot.uri)
        if closed and not self.pull_mode:
            self._spawn(self._publish_affected(closed), "publish affected")
        if refresh and self.pull_mode:
            self.request_refresh()
        self._notify_changed()

    async def _publish_affected(self, paths: list[Path]) -> None:
        workspace = set(await self._workspace_files())
        await self._publish_disk([path for path in paths if path in workspace])

    def request_refresh(self) -> None:
        """Ask a pull client to pull again (``workspace/diagnostic/refresh``), coalesced."""
        if not self._client.diagnostic_refresh or self._refresh_handle is not None:
            return

        def send() -> None:
            self._refresh_handle = None
            try:
                self.server.workspace_diagnostic_refresh(None)
            except Exception:
                logger.exception("workspace/diagnostic/refresh failed")

        self._refresh_handle = asyncio.get_running_loop().call_later(REFRESH_DELAY, send)

    def recheck_open_documents(self) -> None:
        if self.pull_mode:
            if len(self.server.documents):
                self.request_refresh()
            self._notify_changed()
            return
        for snapshot in self.server.documents:
            self.schedule_push(snapshot.uri)

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
            self._schedule_sync(root)
        # Existence facts changed: every open document of a touched repository is re-checked.
        for snapshot in self.server.documents:
            if snapshot.path is None:
                continue
            root = index.repo_root_for(snapshot.path, self.server.settings.config_for(snapshot.path).root)
            if root in touched and not self.pull_mode:
                self.schedule_push(snapshot.uri)
        if self.pull_mode:
            if touched:  # nothing known lies below the changed paths: no need to pull again
                self.request_refresh()
            self._notify_changed()
        else:
            self.request_scan()

    # -- pull ------------------------------------------------------------------------------------

    async def pull_document(self, params: types.DocumentDiagnosticParams) -> Any:
        await self._settings()
        uri = params.text_document.uri
        if self.server.documents.get(uri) is None:
            raise JsonRpcInvalidParams(message=f"document is not open: {uri}")
        for _attempt in range(3):
            result = await self.result_for_open(uri)
            if result is None:
                raise JsonRpcInvalidParams(message=f"document was closed: {uri}")
            current = self.server.documents.get(uri)
            if current is not None and current.version == result.version:
                break
        else:  # edited faster than we can analyse: let the client ask again
            raise JsonRpcException(
                code=int(types.LSPErrorCodes.ServerCancelled),
                message="document changed during analysis",
                data={"retriggerRequest": True},
            )
        result_id = self._result_id(uri, result.fingerprint)
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics, result_id=result_id)

    async def pull_workspace(
        self, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        await self._settings()
        previous = {entry.uri: entry.value for entry in params.previous_result_ids or ()}
        long_poll = params.partial_result_token is not None
        while True:
            changed = self._changed
            items = await self._workspace_items(previous)
            answer = {item.uri: item.result_id for item in items}
            if not long_poll or answer != self._last_workspace_answer:
                self._last_workspace_answer = answer
                return types.WorkspaceDiagnosticReport(items=items)
            await changed.wait()  # nothing new: hold the request until something changes

    async def _workspace_items(self, previous: dict[str, str]) -> list[Any]:
        paths = await self._workspace_files()
        path_set = set(paths)
        items: list[Any] = []
        seen: set[str] = set()
        closed = []
        for path in paths:
            snapshot = self.server.documents.for_path(path)
            if snapshot is None:
                closed.append(path)
        open_results = []
        for snapshot in self.server.documents:
            result = await self.result_for_open(snapshot.uri)
            if result is not None and (result.kind != UNKNOWN or result.path in path_set):
                open_results.append(result)
        for result in open_results + await self._disk_results_for(closed):
            if result.uri in seen:
                continue
            seen.add(result.uri)
            items.append(self._workspace_item(result, previous))
        # Files reported before that are gone (deleted, excluded) are reported once, empty.
        for uri in self._workspace_reported - seen:
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, items=[], version=None, result_id=self._result_id(uri, ())
                )
            )
        self._workspace_reported = seen
        return items

    def _workspace_item(self, result: Result, previous: dict[str, str]) -> Any:
        result_id = self._result_id(result.uri, result.fingerprint)
        if previous.get(result.uri) == result_id:
            return types.WorkspaceUnchangedDocumentDiagnosticReport(
                uri=result.uri, result_id=result_id, version=result.version
            )
        return types.WorkspaceFullDocumentDiagnosticReport(
            uri=result.uri, items=result.diagnostics, version=result.version, result_id=result_id
        )

    # -- lifecycle -------------------------------------------------------------------------------

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._refresh_handle is not None:
            self._refresh_handle.cancel()
            self._refresh_handle = None


def _run_jobs(jobs: list[Job], lookup: Any) -> list[Result]:
    return [run_job(job, lookup) for job in jobs]


def register(server: EvalfixServer) -> None:
    options = types.DiagnosticOptions(
        identifier="evalfix-ls", inter_file_dependencies=True, workspace_diagnostics=True
    )

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
    async def document_diagnostic(ls: EvalfixServer, params: types.DocumentDiagnosticParams) -> Any:
        return await ls.diagnostics.pull_document(params)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: EvalfixServer, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        return await ls.diagnostics.pull_workspace(params)
