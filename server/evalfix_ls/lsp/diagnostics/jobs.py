"""The job runner: builds the analysis ``Job`` of a document or closed file (with the cache key of
everything its findings depend on), runs jobs in ``server.executor`` (open documents) or
``server.background`` (closed files) and stores their results in the result cache. An analysis
already running for the same text is shared, and kept when every request that waited for it was
cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ...contracts.detection import is_workflow_path
from ...memory.tables import pop_and_shrink
from ...workspace.view import relative_posix
from ..session.documents import Snapshot, path_to_uri
from ..session.other_files import OpenLookup
from ..session.workspace_index import RepoState, unwatched_epoch
from .convert import Digest
from .disk_results import kept_form
from .edit_log import EditLog, Since
from .results import ResultCache
from .tasks import BackgroundTasks
from .worker import Job, Result, run_job

if TYPE_CHECKING:
    from ...analysis import Analysis
    from ...config.model import Config
    from ..session.host import Host

T = TypeVar("T")

SCAN_CHUNK = 16  # closed files analysed per executor call during a workspace scan


class JobRunner:
    def __init__(
        self,
        server: Host,
        edits: EditLog,
        cache: ResultCache,
        tasks: BackgroundTasks,
        on_affected: Callable[[Iterable[Path]], None],
    ) -> None:
        self.server = server
        self.edits = edits
        self.cache = cache
        self.tasks = tasks
        # An analysis may change other files' findings (a sibling's ids, a created source file);
        # the manager decides who is re-checked.
        self._on_affected = on_affected
        # Called with a repository root whose queued texts should be applied (``RepoSync.ensure``).
        self.on_sync_pending: Callable[[Path], None] = lambda _root: None
        # uri -> (snapshot revision, key, the running analysis): shared by identical requests
        self.inflight: dict[str, tuple[int, tuple[int, ...], asyncio.Future[Result]]] = {}
        # uri -> (snapshot revision, its tree once the running analysis has parsed it): the
        # features that read only the tree answer from it while the rules still run.
        self.parsed: dict[str, tuple[int, asyncio.Future[Analysis]]] = {}
        self._loading: set[Path] = set()  # repositories whose workflow index is being loaded
        self._placements: dict[Path, tuple[RepoState, bool, Config]] = {}  # see ``_placement``
        self._placements_generation = -1
        # (the discovered list, the settings' generation, the files kept): ``workspace_files``
        self._workspace_files_memo: tuple[list[Path], int, list[Path]] | None = None

    # -- jobs ------------------------------------------------------------------------------------

    def _repo_for(self, path: Path | None) -> tuple[RepoState | None, bool]:
        """The repository state of ``path`` and whether its workflow index applies."""
        if path is None:
            return None, False
        repo, use_index, _config = self._placement(path)
        return repo, use_index

    def _placement(self, path: Path) -> tuple[RepoState, bool, Config]:
        """``path``'s repository, whether its workflow index applies, and its configuration:
        remembered per path until the settings' generation changes (settings, folders and project
        files all bump it). Looked up afresh, they cost ~25 µs a file (the folder, the project
        file's directory, the repository root, the relative path): 0.3 s of a ``workspace/
        diagnostic`` over 12,000 files that had nothing new to say."""
        generation = self.server.settings.generation
        if generation != self._placements_generation:
            self._placements = {}
            self._placements_generation = generation
        placed = self._placements.get(path)
        if placed is None:
            config = self.server.settings.config_for(path)
            repo = self.server.workspace_index.repo_for(path, config)
            rel = relative_posix(path, repo.root)
            placed = self._placements[path] = (repo, rel is not None and is_workflow_path(rel), config)
        return placed

    def _key(self, repo: RepoState | None, use_index: bool) -> tuple[int, ...]:
        """The cache key of a result: everything besides its own text its findings depend on."""
        key: tuple[int, ...] = (
            self.server.settings.generation,
            repo.fs_generation if repo else 0,
            repo.index_generation if repo and use_index else 0,
        )
        if not self.server.workspace_index.watching:  # no file events: results expire instead
            key += (unwatched_epoch(),)
        return key

    def job(self, uri: str, path: Path | None, snapshot: Snapshot | None, since: Since | None = None) -> Job:
        """The analysis job of a document; ``since``: how the last result's text relates to
        ``snapshot`` (``previous_text``), when the caller has it already."""
        repo, use_index = self._repo_for(path)
        job = Job(
            uri=uri,
            path=path,
            snapshot=snapshot,
            repo=repo,
            config=self._placement(path)[2] if path is not None else self.server.settings.config_for(None),
            encoding=self.server.encoding,
            key=self._key(repo, use_index),
            related_support=self.server.client_features.related_information,
            use_workflow_index=use_index,
        )
        return self._with_previous_parse(job, since) if snapshot is not None else job

    def previous_text(self, uri: str, snapshot: Snapshot) -> Since | None:
        """How the text of the document's last result relates to ``snapshot`` (None: no result)."""
        base = self.cache.open.get(uri)
        if base is None:
            return None
        return self.edits.since(uri, base.text, base.revision, snapshot)

    def _with_previous_parse(self, job: Job, since: Since | None) -> Job:
        """Hand the last result's tree (and the edits since) to the job: an unchanged text is not
        parsed again, an edited one is re-parsed around the edit only."""
        uri = job.uri
        snapshot = job.snapshot
        assert snapshot is not None
        case_cache = self.cache.case_caches.get(uri)
        base = self.cache.base_for(uri)
        tree = base.analysis.tree if base is not None and base.analysis is not None else None
        if tree is None or base is None or base.revision is None:
            return replace(job, case_cache=case_cache)
        if since is None or base is not self.cache.open.get(uri):  # ``since`` is from ``open``'s
            since = self.edits.since(uri, base.text, base.revision, snapshot)
        if since.same:
            return replace(job, case_cache=case_cache, tree=tree, prev_memo=base.memo)
        if since.edit is None:
            return replace(job, case_cache=case_cache)
        return replace(job, case_cache=case_cache, prev_tree=tree, edit=since.edit, prev_memo=base.memo)

    # -- running ---------------------------------------------------------------------------------

    async def syncing_call(
        self,
        affected_of: Callable[[T], Iterable[Path]],
        fn: Callable[..., T],
        *args: object,
        executor: ThreadPoolExecutor | None = None,
    ) -> T:
        """``fn(*args)`` on a worker, for a call that applies a repository's queued facts
        (``repo.sync()``); ``affected_of(its result)``, the other files those facts may change,
        are re-checked even when the awaiting coroutine is cancelled meanwhile.

        A newer edit restarts the sync debounce, a client cancels ``workspace/diagnostic``: a call
        already running cannot be stopped, and it takes the queued facts out of the queue, so no
        later call sees them again. Were its result dropped with the cancelled wait, the sibling
        that gained a duplicate id would never be re-checked. A call still waiting for a worker
        is cancelled (it took nothing). ``executor``: the analysis workers unless given."""
        call = (executor or self.server.executor).submit(fn, *args)
        work = asyncio.wrap_future(call)
        work.add_done_callback(lambda done: self._propagate(affected_of, done))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            call.cancel()  # not started yet: it never ran; running: it ends and propagates
            raise

    def _propagate(self, affected_of: Callable[[T], Iterable[Path]], done: asyncio.Future[T]) -> None:
        if self.tasks.closed or done.cancelled() or done.exception() is not None:
            return  # an exception reaches the awaiting coroutine (or died with it)
        if affected := set(affected_of(done.result())):
            self._on_affected(affected)

    async def _run(self, jobs: list[Job], executor: ThreadPoolExecutor | None = None) -> list[Result]:
        lookup = self.server.documents.for_path
        return await self.syncing_call(_affected_by, _run_jobs, jobs, lookup, executor=executor)

    async def result_for_open(self, uri: str) -> Result | None:
        """The result for the current text of an open document (cached when nothing it depends
        on changed; shared with an identical analysis already running)."""
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return None
        since = self.previous_text(uri, snapshot)  # read once: for the reuse and the re-parse
        job = self.job(uri, snapshot.path, snapshot, since)
        cached = self.cache.open.get(uri)
        if cached is not None and cached.key == job.key and since is not None and since.same:
            if not cached.is_for(snapshot):  # the same text again (undo): the same findings
                cached = replace(cached, version=snapshot.version, revision=snapshot.revision)
                self.cache.open[uri] = cached
            return cached
        inflight = self.inflight.get(uri)
        if inflight is not None and inflight[0] == snapshot.revision and inflight[1] == job.key:
            return await asyncio.shield(inflight[2])
        if inflight is not None:
            # One analysis per document at a time: an editor pulls after every keystroke, and an
            # analysis of a 10 MB suite outlasts several keystrokes. Started at once, each
            # keystroke's analysis queued behind the running ones, all of them for texts already
            # outdated (the recorded VS Code traffic: pulls answered a minute late, every queued
            # version's text and tree alive). Waiting for the running one, then analysing the
            # text current by then, every request that waited meanwhile shares one analysis.
            await asyncio.wait([inflight[2]])
            return await self.result_for_open(uri)
        parsed = self._parsed_future(uri, snapshot.revision)
        job = replace(job, on_parsed=_handing_over(asyncio.get_running_loop(), parsed))
        future: asyncio.Future[Result] = asyncio.ensure_future(self._run_one(job))
        self.inflight[uri] = (snapshot.revision, job.key, future)
        # Kept when it ends even if every request that waited for it was cancelled (clients
        # cancel pulls while typing): the analysis of the current text is not thrown away and
        # then run again, and it releases the previous result and the edits it covers.
        future.add_done_callback(lambda done: self._analysis_done(uri, done))
        return await asyncio.shield(future)

    def _parsed_future(self, uri: str, revision: int) -> asyncio.Future[Analysis]:
        """The future the analysis of ``revision`` hands its tree to (made on first use)."""
        parsed = self.parsed.get(uri)
        if parsed is None or parsed[0] != revision:
            parsed = self.parsed[uri] = (revision, asyncio.get_running_loop().create_future())
        return parsed[1]

    async def parsed_for_open(self, uri: str) -> Analysis | None:
        """The tree (and contract, no findings) of the current text of an open document, as soon
        as its analysis has parsed it; the whole analysis' when it ends first (a cached result,
        a text changed meanwhile). None: the document is not open or could not be analysed.

        The open of a 10 MB suite: its symbols, folding, links, lenses and hints were answered
        after the whole analysis (every rule, ~2 s), though they read only the tree."""
        snapshot = self.server.documents.get(uri)
        if snapshot is None:
            return None
        parsed = self._parsed_future(uri, snapshot.revision)
        whole = asyncio.ensure_future(self.result_for_open(uri))
        try:
            either: list[asyncio.Future[Result | None] | asyncio.Future[Analysis]] = [whole, parsed]
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not whole.done():
                whole.cancel()  # (the analysis itself is shielded: it runs on for the others)
        if parsed.done():
            if whole.done() and not whole.cancelled():
                whole.exception()  # (retrieved: the parsed tree answers; the failure is the pull's to report)
            return parsed.result()
        if self.parsed.get(uri, (None, None))[1] is parsed and uri not in self.inflight:
            pop_and_shrink(
                self.parsed, uri
            )  # no analysis will hand it over (the document closed, a cached result)
        result = whole.result()
        return result.analysis if result is not None else None

    def _analysis_done(self, uri: str, future: asyncio.Future[Result]) -> None:
        running = self.inflight.get(uri)
        if running is not None and running[2] is future:
            pop_and_shrink(self.inflight, uri)
            parsed = self.parsed.get(uri)
            # Its tree was handed over (it lives on in the result) or never will be (the text could
            # not be parsed, the analysis failed): either way nobody needs the entry any more.
            if parsed is not None and parsed[0] <= running[0]:
                pop_and_shrink(self.parsed, uri)
        if future.cancelled() or future.exception() is not None:
            return
        result = future.result()
        if result.index_deferred:
            self._complete_index(result.path)
        if result.is_for(self.server.documents.get(uri)):
            self.cache.store_open(uri, result)
            self.edits.forget_until(uri, result.revision)
        elif result.analysis is not None and uri in self.cache.case_caches:
            # Typed over while it ran (a 10 MB suite under load: every analysis outlasts the
            # keystrokes): not an answer, but the next analysis re-parses from its tree and its
            # cases, not from the last result stored. Dropped, every later analysis started from
            # that older result, the edits since piled up, and once none ended in time each one
            # was a full parse and a re-check of every case (the recorded replay: 13-40 s each).
            self.cache.late[uri] = result

    def _complete_index(self, path: Path | None) -> None:
        """Load the workflow index of ``path``'s repository in the background (once), then have
        its open documents checked again with the cross-file rules: a new key (the index
        generation) and the strategy's publish or refresh."""
        repo, _ = self._repo_for(path)
        if repo is None or repo.root in self._loading:
            return
        if repo.index_loaded:  # loaded meanwhile by another caller (the case ids' start-up pass)
            self.on_sync_pending(repo.root)
            self.index_outdated(repo)  # the deferred result is checked again, with the index
            return
        self._loading.add(repo.root)
        self.tasks.spawn(self._load_index(repo), "load the workflow index")

    async def _load_index(self, repo: RepoState) -> None:
        try:
            await asyncio.get_running_loop().run_in_executor(self.server.background, repo.ensure_index)
        finally:
            self._loading.discard(repo.root)
        self.on_sync_pending(repo.root)  # texts queued before the load apply now, in slices
        self.index_outdated(repo)  # results computed without the index

    def index_outdated(self, repo: RepoState) -> None:
        """Results computed from ``repo``'s index before now are outdated (it was loaded, or read
        in slices while analyses ran between them): a new index generation, and its open
        documents checked again."""
        repo.index_generation += 1
        inside = [
            snapshot.path
            for snapshot in self.server.documents
            if snapshot.path is not None and relative_posix(snapshot.path, repo.root) is not None
        ]
        self._on_affected(inside)

    async def _run_one(self, job: Job) -> Result:
        return (await self._run([job]))[0]

    # -- closed workspace files ------------------------------------------------------------------

    async def workspace_files(self) -> list[Path]:
        """Fixture files of the workspace folders whose configuration wants workspace diagnostics;
        filtered again only when discovery found a new list or the settings changed (per file,
        its folder and that folder's configuration: ~40 ms a request at 12,000 files). The list is
        shared: callers read it."""
        server = self.server
        loop = asyncio.get_running_loop()
        paths = await loop.run_in_executor(
            server.background, server.workspace_index.discover, server.settings.folder_config
        )
        memo = self._workspace_files_memo
        if memo is not None and memo[0] is paths and memo[1] == server.settings.generation:
            return memo[2]
        out = []
        for path in paths:
            folder = server.workspace_index.folder_for(path)
            if folder is None or server.settings.folder_config(folder).workspace_diagnostics:
                out.append(path)
        self._workspace_files_memo = (paths, server.settings.generation, out)
        return out

    async def disk_results_for(self, paths: list[Path]) -> list[Result]:
        """Results for closed files, from the cache when nothing they depend on changed."""
        found: dict[Path, Result] = {}
        todo = []
        for path in paths:
            kept = self.cache.disk.get(path, self.disk_key(path))
            if kept is None:
                todo.append(self.job(path_to_uri(path), path, None))
            else:
                found[path] = kept
        lookup = self.server.documents.for_path
        background = self.server.background
        for start in range(0, len(todo), SCAN_CHUNK):
            chunk = todo[start : start + SCAN_CHUNK]
            for kept in await self.syncing_call(
                _affected_by, _run_closed, chunk, lookup, executor=background
            ):
                if kept.path is not None:
                    found[kept.path] = kept
                self.cache.store_disk(kept)
        return [found[path] for path in paths if path in found]

    def disk_key_base(self) -> tuple[int, ...]:
        """The part of every result's key that no repository decides (the settings' generation,
        the expiry epoch of an unwatched workspace)."""
        return self._key(None, False)

    def disk_key(self, path: Path) -> tuple[int, ...]:
        """The key a closed file's result must have to be its answer, found without building its
        ``Job`` (a job per file made a ``workspace/diagnostic`` that found nothing new cost as
        much per file as one that found everything new)."""
        repo, use_index, _config = self._placement(path)
        return self._key(repo, use_index)

    def disk_current(self, path: Path) -> bool:
        """Whether what is held of closed file ``path`` (its result, or only the digest of its
        findings: ``disk_results``) is still its answer."""
        return self.cache.disk.digest_of(path, self.disk_key(path)) is not None

    def known_disk_digests(self, paths: list[Path]) -> dict[Path, Digest]:
        """The digests of the findings of closed files analysed since nothing they depend on
        changed (``disk_results``: kept even when their diagnostics were not)."""
        known = {}
        for path in paths:
            found = self.cache.disk.digest_of(path, self.disk_key(path))
            if found is not None:
                known[path] = found
        return known


def _handing_over(
    loop: asyncio.AbstractEventLoop, parsed: asyncio.Future[Analysis]
) -> Callable[[Analysis], None]:
    """The job's ``on_parsed``: called on its worker, resolves ``parsed`` on the event loop."""

    def resolve(analysis: Analysis) -> None:
        if not parsed.done():  # (a request may have cancelled its wait: the future stays)
            parsed.set_result(analysis)

    def hand_over(analysis: Analysis) -> None:
        if not loop.is_closed():  # (the server stopping: nobody waits, the rules run on)
            loop.call_soon_threadsafe(resolve, analysis)

    return hand_over


def _run_jobs(jobs: list[Job], lookup: OpenLookup) -> list[Result]:
    return [run_job(job, lookup) for job in jobs]


def _run_closed(jobs: list[Job], lookup: OpenLookup) -> list[Result]:
    """Closed files' results in the form they are kept (``disk_results.kept_form``), made on the
    worker: what the reports need, not the text, tree and objects of every closed file."""
    return [kept_form(run_job(job, lookup)) for job in jobs]


def _affected_by(results: list[Result]) -> set[Path]:
    return set().union(*(result.affected for result in results))
