"""Diagnostics core: analysis jobs and the result store that push and pull both answer from.

Builds a ``Job`` for a document or closed file (with the cache key of everything its findings
depend on), runs jobs in ``server.executor``, and caches results: open documents by URI (with the
previous parse and the edits since, for incremental re-parsing), closed workspace files by path.
Also owns the background tasks, the result ids of pull reports and the "something changed" event
that parked ``workspace/diagnostic`` requests wait on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ...contracts.detection import is_workflow_path
from ...parser.text_view import Text, as_str
from ...workspace.view import relative_posix
from ..analyzer import Job, Result, run_job
from ..documents import Edit, Snapshot, compose, path_to_uri
from ..workspace_index import RepoState, unwatched_epoch

if TYPE_CHECKING:
    from ..host import Host

logger = logging.getLogger(__name__)

T = TypeVar("T")

SETTINGS_WAIT_SECONDS = 2.0  # a pull waits this long at most for the first workspace/configuration
SCAN_CHUNK = 16  # closed files analysed per executor call during a workspace scan
MAX_TRACKED_EDITS = 1000  # edits remembered per document between two analyses


class ResultCore:
    """Jobs, their results and the bookkeeping shared by push and pull."""

    def __init__(self, server: Host, on_affected: Callable[[Iterable[Path]], None]) -> None:
        self.server = server
        # An analysis may change other files' findings (a sibling's ids, a created source file);
        # the manager decides who is re-checked.
        self._on_affected = on_affected
        self.results: dict[str, Result] = {}  # open documents: the latest result of the current text
        self._disk_results: dict[Path, Result] = {}  # closed workspace files
        # uri -> (snapshot revision, key, the running analysis): shared by identical requests
        self._inflight: dict[str, tuple[int, tuple[Any, ...], asyncio.Future[Result]]] = {}
        self._result_ids: dict[str, tuple[tuple[Any, ...], str]] = {}
        self._id_counter = itertools.count(1)
        self.changed = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False  # shutting down: worker calls that end now change nothing
        self.settings_ready = asyncio.Event()
        # Per open document: findings of unchanged cases, and the edits since the last result
        # (from revision, to revision, edit) so the next parse can start from that result's tree.
        # Revisions, not versions: a client may send the same version number for two texts.
        self._case_caches: dict[str, Any] = {}
        self._edits: dict[str, list[tuple[int, int, Edit | None]]] = {}
        self._latest_revision: dict[str, int] = {}

    # -- small helpers ---------------------------------------------------------------------------

    def spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        """A background task whose failure is logged, never lost and never fatal."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            logger.error("background task %s failed", task.get_name(), exc_info=exc)

    def cancel_tasks(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()

    def notify_changed(self) -> None:
        """Wake parked ``workspace/diagnostic`` requests."""
        self.changed.set()
        self.changed = asyncio.Event()

    def result_id(self, uri: str, fingerprint: tuple[Any, ...]) -> str:
        entry = self._result_ids.get(uri)
        if entry is not None and entry[0] == fingerprint:
            return entry[1]
        result_id = f"r{next(self._id_counter)}"
        self._result_ids[uri] = (fingerprint, result_id)
        return result_id

    async def wait_for_settings(self) -> None:
        if not self.settings_ready.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.settings_ready.wait(), SETTINGS_WAIT_SECONDS)

    # -- per-document state ----------------------------------------------------------------------

    def document_opened(self, uri: str) -> None:
        from ...contracts.case_cache import CaseCache

        self._case_caches[uri] = CaseCache()
        self._edits[uri] = []
        self.results.pop(uri, None)
        snapshot = self.server.documents.get(uri)
        if snapshot is not None:
            self._latest_revision[uri] = snapshot.revision

    def note_edit(self, snapshot: Snapshot) -> None:
        edits = self._edits.setdefault(snapshot.uri, [])
        if len(edits) >= MAX_TRACKED_EDITS:  # nobody asked for a while: start from scratch
            edits.clear()
        previous = self._latest_revision.get(snapshot.uri)
        if previous is not None:
            edits.append((previous, snapshot.revision, snapshot.edit))
        self._latest_revision[snapshot.uri] = snapshot.revision

    def document_closed(self, uri: str) -> None:
        self.results.pop(uri, None)
        self._case_caches.pop(uri, None)
        self._edits.pop(uri, None)
        self._latest_revision.pop(uri, None)
        # A closed workspace file gets a new id with its disk findings; anything else none.
        self._result_ids.pop(uri, None)

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
            related_support=self.server.client_features.related_information,
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
        if tree is None or base is None or base.revision is None:
            return replace(job, case_cache=cache)
        if self.same_text(uri, base.text, base.revision, snapshot):
            return replace(job, case_cache=cache, tree=tree)
        revision, edits = base.revision, []
        for from_revision, to_revision, edit in self._edits.get(uri, ()):
            if from_revision == revision:
                edits.append(edit)
                revision = to_revision
        if revision != snapshot.revision:
            return replace(job, case_cache=cache)
        return replace(job, case_cache=cache, prev_tree=tree, edit=compose(edits))

    def edit_between(self, uri: str, from_revision: int, to_revision: int) -> Edit | None:
        """The span the edits from snapshot ``from_revision`` to ``to_revision`` changed (None when
        they are not all remembered), for features that update an earlier tree cheaply."""
        revision, edits = from_revision, []
        for start, end, edit in self._edits.get(uri, ()):
            if start == revision:
                edits.append(edit)
                revision = end
        return compose(edits) if revision == to_revision else None

    def same_text(self, uri: str, text: Text, revision: int | None, snapshot: Snapshot) -> bool:
        """Is ``text`` (that of snapshot ``revision``) the text of ``snapshot``? Decided from the
        edits between the two when they are known (an undo gives the same text back): comparing
        two versions of a 10 MB document would build the new one's ``str`` on the event loop."""
        content = snapshot.content
        if text is content or revision == snapshot.revision:
            return True
        if len(text) != len(content):
            return False
        edit = self.edit_between(uri, revision, snapshot.revision) if revision is not None else None
        if edit is not None:
            same_span = edit.old_end == edit.new_end
            return same_span and text[edit.start : edit.old_end] == content[edit.start : edit.new_end]
        return as_str(text) == as_str(content)

    def _forget_edits_until(self, uri: str, revision: int | None) -> None:
        edits = self._edits.get(uri)
        if edits is not None and revision is not None:
            edits[:] = [entry for entry in edits if entry[1] > revision]

    def _open_lookup(self, path: Path) -> Snapshot | None:
        return self.server.documents.for_path(path)

    async def syncing_call(
        self, affected_of: Callable[[T], Iterable[Path]], fn: Callable[..., T], *args: Any
    ) -> T:
        """``fn(*args)`` on a worker, for a call that applies a repository's queued facts
        (``repo.sync()``); ``affected_of(its result)``, the other files those facts may change,
        are re-checked even when the awaiting coroutine is cancelled meanwhile.

        A newer edit restarts the sync debounce, a client cancels ``workspace/diagnostic``: a call
        already running cannot be stopped, and it takes the queued facts out of the queue, so no
        later call sees them again. Were its result dropped with the cancelled wait, the sibling
        that gained a duplicate id would never be re-checked. A call still waiting for a worker
        is cancelled (it took nothing)."""
        call = self.server.executor.submit(fn, *args)
        work = asyncio.wrap_future(call)
        work.add_done_callback(lambda done: self._propagate(affected_of, done))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            call.cancel()  # not started yet: it never ran; running: it ends and propagates
            raise

    def _propagate(self, affected_of: Callable[[Any], Iterable[Path]], done: asyncio.Future[Any]) -> None:
        if self._closed or done.cancelled() or done.exception() is not None:
            return  # an exception reaches the awaiting coroutine (or died with it)
        if affected := set(affected_of(done.result())):
            self._on_affected(affected)

    async def _run(self, jobs: list[Job]) -> list[Result]:
        return await self.syncing_call(_affected_by, _run_jobs, jobs, self._open_lookup)

    async def result_for_open(self, uri: str) -> Result | None:
        """The result for the current text of an open document (cached when nothing it depends
        on changed; shared with an identical analysis already running)."""
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return None
        job = self._job(uri, snapshot.path, snapshot)
        cached = self.results.get(uri)
        unchanged = cached is not None and self.same_text(uri, cached.text, cached.revision, snapshot)
        if cached is not None and cached.key == job.key and unchanged:
            if not cached.is_for(snapshot):  # the same text again (undo): the same findings
                cached = replace(cached, version=snapshot.version, revision=snapshot.revision)
                self.results[uri] = cached
            return cached
        inflight = self._inflight.get(uri)
        if inflight is not None and inflight[0] == snapshot.revision and inflight[1] == job.key:
            return await asyncio.shield(inflight[2])
        future: asyncio.Future[Result] = asyncio.ensure_future(self._run_one(job))
        self._inflight[uri] = (snapshot.revision, job.key, future)
        # Kept when it ends even if every request that waited for it was cancelled (clients
        # cancel pulls while typing): the analysis of the current text is not thrown away and
        # then run again, and it releases the previous result and the edits it covers.
        future.add_done_callback(lambda done: self._analysis_done(uri, done))
        return await asyncio.shield(future)

    def _analysis_done(self, uri: str, future: asyncio.Future[Result]) -> None:
        if self._inflight.get(uri, (None, None, None))[2] is future:
            del self._inflight[uri]
        if future.cancelled() or future.exception() is not None:
            return
        result = future.result()
        if result.is_for(self.server.documents.get(uri)):
            previous = self.results.get(uri)
            self.results[uri] = result
            self._forget_edits_until(uri, result.revision)
            if previous is None or previous.fingerprint != result.fingerprint:
                self.notify_changed()

    async def _run_one(self, job: Job) -> Result:
        return (await self._run([job]))[0]

    # -- workspace files (push: scan and publish; pull: workspace/diagnostic) ---------------------

    async def workspace_files(self) -> list[Path]:
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

    async def disk_results_for(self, paths: list[Path]) -> list[Result]:
        """Results for closed files, from the cache when nothing they depend on changed."""
        jobs = [self._job(path_to_uri(path), path, None) for path in paths]
        todo = [job for job in jobs if (r := self._disk_results.get(job.path)) is None or r.key != job.key]  # type: ignore[arg-type]
        for start in range(0, len(todo), SCAN_CHUNK):
            for result in await self._run(todo[start : start + SCAN_CHUNK]):
                assert result.path is not None
                # Keep what the reports need, not the text and tree of every closed file.
                self._disk_results[result.path] = replace(result, text="", analysis=None)
        return [self._disk_results[job.path] for job in jobs if job.path in self._disk_results]  # type: ignore[index]


def _run_jobs(jobs: list[Job], lookup: Any) -> list[Result]:
    return [run_job(job, lookup) for job in jobs]


def _affected_by(results: list[Result]) -> set[Path]:
    return set().union(*(result.affected for result in results))
