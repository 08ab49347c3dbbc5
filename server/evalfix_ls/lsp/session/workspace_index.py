"""The workspace index: workspace folders, repositories, which paths exist, which fixture files each
repository holds and which case ids they define (through the core's ``WorkflowIndex``).

Threading: the event loop only *queues* facts (a buffer's text, a file event) and bumps generation
counters; worker threads apply the queue and run analyses while holding the repository's lock. So
the loop never waits for an analysis, and an analysis always sees every fact queued before it was
submitted. Cached results are keyed by the generations, so a queued fact invalidates them at once.
"""

from __future__ import annotations

import enum
import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ...contracts.detection import Walk, is_evals_suite_path, is_workflow_path
from ...text.pieces import Text, as_str
from ...workspace.view import FileSystemView, find_repo_root, relative_posix

if TYPE_CHECKING:  # the analysis core is imported by the first analysis, not at start-up
    from ...config.model import Config
    from ...contracts.workflow.index import WorkflowIndex
    from .documents import Edit

logger = logging.getLogger(__name__)


# Without file events, facts read from the disk are trusted for this long (seconds).
UNWATCHED_TTL = 1.0
SYNC_SLICE = 64  # fixture texts one ``RepoState.sync`` applies (~10 ms of reads; see ``sync``)


class _Queued(enum.Enum):
    """A queued fact about a fixture file other than its new text."""

    RELOAD = "reload"  # read this file from disk again (buffer closed, file changed on disk)
    DELETED = "deleted"  # this file no longer exists


def unwatched_epoch() -> int:
    """Changes every ``UNWATCHED_TTL`` seconds: part of cache keys when files are not watched."""
    return int(time.monotonic() / UNWATCHED_TTL)


class _ExpiringFileSystemView(FileSystemView):
    """A view for clients that cannot watch files: facts are checked against the disk again every
    ``UNWATCHED_TTL`` seconds; only a fact that changed moves the generation that cached per-case
    findings are keyed by (so a large suite is not re-checked whole every second)."""

    def __init__(self) -> None:
        super().__init__()
        self._epoch = unwatched_epoch()

    def _kind(self, path: str) -> int:
        epoch = unwatched_epoch()
        if epoch != self._epoch:
            self._epoch = epoch
            self.revalidate()
        return super()._kind(path)


class RepoState:
    """One repository root: its file-system view, its workflow index and their pending updates."""

    def __init__(self, root: Path, *, watching: bool) -> None:
        self.root = root
        self.lock = threading.RLock()  # held by workers while they sync and analyse
        self.fs: FileSystemView = FileSystemView() if watching else _ExpiringFileSystemView()
        self.fs_generation = 0  # bumped (on the loop) for every file-system fact queued
        self.index_generation = 0  # bumped (on the loop) for every fixture text queued
        self._pending_lock = threading.Lock()  # short: guards the queues below only
        self._pending_texts: dict[str, Text | _Queued] = {}  # rel path -> its text or what else
        self._pending_fs: list[Path] = []
        self._reload_all = False
        self._partial = False  # a sync applied a slice and left texts queued (``take_partial``)
        self._index: WorkflowIndex | None = None
        # The configuration's ``workflow_walk`` (None: the normalizer's presence decides): set on
        # the loop where the configuration is read (``WorkspaceIndex.repo_for``), taken by the
        # index when it loads and at every ``sync``, so every analysis classifies the same way.
        self._walk: Walk | None = None
        self._index_loaded = False
        self._load_lock = threading.Lock()  # one load at a time (``ensure_index``)
        self._watching = watching
        self._disk_epoch = unwatched_epoch()

    # -- loop side ------------------------------------------------------------------------------

    def queue_text(self, rel_path: str, text: Text | None) -> None:
        """The current text of a fixture file (None: read it from disk again)."""
        with self._pending_lock:
            self._pending_texts[rel_path] = _Queued.RELOAD if text is None else text
        self.index_generation += 1

    def queue_deleted(self, rel_path: str) -> None:
        with self._pending_lock:
            self._pending_texts[rel_path] = _Queued.DELETED
        self.index_generation += 1

    def queue_full_reload(self) -> None:
        """Read every fixture file of the repository again (folders created or deleted)."""
        with self._pending_lock:
            self._reload_all = True
        self.index_generation += 1

    def configure(self, walk: Walk | None) -> None:
        """The repository's ``workflow_walk`` setting (the index takes it at its next ``sync``)."""
        self._walk = walk

    def queue_fs_change(self, path: Path) -> None:
        with self._pending_lock:
            self._pending_fs.append(path)
        self.fs_generation += 1

    # -- worker side (call with ``self.lock`` held) -----------------------------------------------

    def sync(self, limit: int = SYNC_SLICE) -> set[str]:
        """Apply the queued facts, at most ``limit`` fixture texts of them (the rest stay queued
        for the next call); returns the repository-relative paths of fixture files whose findings
        may have changed because of another file (``WorkflowIndex.dependents``). Before the index
        is loaded only the file-system facts apply: loading it is ``ensure_index``'s, never done
        while ``self.lock`` holds every analysis of the repository back.

        Why a slice: a ``git checkout`` of 5,000 fixture files queues 5,000 texts to read again
        (0.6 s at load 7), and the analysis of the next keystroke in an open document waited
        for all of them under ``self.lock``. A result computed before the rest is applied is
        checked again when it is: the files a slice may change come back as affected."""
        with self._pending_lock:  # the queues are emptied in place, not replaced (see _taken)
            fs_paths = _taken(self._pending_fs)
        for path in fs_paths:
            self.fs.invalidate(path)
        if not self._index_loaded:
            return set()  # the texts wait for the index (``ensure_index``), which reads the rest
        with self._pending_lock:
            if len(self._pending_texts) <= limit:
                texts = _taken(self._pending_texts)
            else:
                texts = self._slice(limit)
                self._partial = True  # analyses may see the index between two slices
            reload_all, self._reload_all = self._reload_all, False
        index = self._index
        if index is None:
            return set()
        index.force_walk(self._walk)  # duplicate ids and readiness: the configured classification
        if not self._watching and self._disk_epoch != unwatched_epoch():
            # No file events: closed siblings may have changed on disk. Results expire on their
            # own in this mode (their keys hold the epoch), so nothing is reported as affected.
            self._disk_epoch = unwatched_epoch()
            index.load_from_disk()
        affected: set[str] = set()
        if reload_all:
            before = set(index.files())
            index.load_from_disk()
            affected = before | set(index.files())  # which ids moved is unknown: all may differ
        if not texts:
            return affected
        affected |= index.dependents_of(texts)  # of their ids before the change, in one pass
        for rel_path, value in texts.items():
            if value is _Queued.DELETED:
                index.remove(rel_path)
            elif value is _Queued.RELOAD:
                index.reload(rel_path)
            else:
                index.update(rel_path, as_str(value))  # an edited buffer's str is built here
        affected |= index.dependents_of(texts)  # of their ids before and after
        return affected - set(texts)

    def _slice(self, limit: int) -> dict[str, Text | _Queued]:
        """The first ``limit`` queued texts, taken out of the queue (call with the pending lock)."""
        first = list(itertools.islice(self._pending_texts, limit))
        return {rel: self._pending_texts.pop(rel) for rel in first}

    def take_partial(self) -> bool:
        """Whether a ``sync`` left texts queued since the last call (the index was seen part-way
        through a burst); the flag is cleared."""
        with self._pending_lock:
            partial, self._partial = self._partial, False
            return partial

    def texts_pending(self) -> bool:
        """Whether fixture texts wait for a ``sync`` that can apply them (the index is loaded)."""
        with self._pending_lock:
            return self._index_loaded and bool(self._pending_texts)

    @property
    def index_loaded(self) -> bool:
        """Whether the workflow index was read from disk (``ensure_index``): until then an open
        document is analysed without the cross-file rules (``diagnostics.worker.run_job``)."""
        return self._index_loaded

    def workflow_index(self) -> WorkflowIndex | None:
        """The repository's ``WorkflowIndex``, loaded from disk on first use (None when the
        repository has no ``skills/`` folder or loading failed)."""
        return self.ensure_index()

    def ensure_index(self) -> WorkflowIndex | None:
        """Load the index from disk once, from any thread, without ``self.lock``: reading every
        fixture file of a monorepo takes seconds (12,000 files: 1–2 s), and analyses of open
        documents go on meanwhile without the index. The queued texts apply at the next
        ``sync``, under the lock."""
        if self._index_loaded:
            return self._index
        with self._load_lock:
            if not self._index_loaded:
                self._index = self._load_index()
                self._disk_epoch = unwatched_epoch()
                self._index_loaded = True
        return self._index

    def _load_index(self) -> WorkflowIndex | None:
        if not (self.root / "skills").is_dir():
            return None
        try:
            from ...contracts.workflow.index import WorkflowIndex

            started = time.perf_counter()
            index = WorkflowIndex(self.root, self.fs, self._walk)
            index.load_from_disk()
            logger.info(
                "indexed %d fixture files of %s in %.2f s",
                len(index.files()),
                self.root,
                time.perf_counter() - started,
            )
            return index
        except Exception:
            logger.exception("could not index the fixture files of %s", self.root)
            return None


_Pending = TypeVar("_Pending", dict[str, "Text | _Queued"], list[Path])


def _taken(queue: _Pending) -> _Pending:
    """A copy of ``queue``, which is emptied (and its storage freed). A new empty queue made at
    every sync would be made during an analysis, and the last one, kept by the repository for
    good, held one of that analysis' pymalloc arenas after the document was closed."""
    taken = queue.copy()
    queue.clear()
    return taken


def _is_directory_event(event: FileEvent, rel: str) -> bool:
    """A directory below ``skills/`` created or deleted (clients may send one event for a moved
    or removed folder instead of one per file). A deleted path cannot be asked: a name without a
    suffix is taken for a directory."""
    if not (rel == "skills" or rel.startswith("skills/")) or event.kind == 2:
        return False
    if event.kind == 1:
        return event.path.is_dir()
    return event.path.suffix == ""


# A \u escape of a letter of "cases" or "examples" (a member name may be spelled with escapes).
_ESCAPED_NAME_LETTER = re.compile(r"\\u00(?:6[135cd]|7[038])", re.IGNORECASE)
_CASE_NAME_REACH = 16  # longer than '"examples"' and than one \u00XX escape
_CASE_NAME = re.compile(r'"cases"|"examples"')


def may_hold_cases(text: Text) -> bool:
    """False only when ``text`` cannot hold a ``cases`` or ``examples`` member. An edited buffer
    (a ``PieceText``) is searched piece by piece: building its ``str`` on every keystroke would
    cost more than the search."""
    if not isinstance(text, str):
        return text.matches(_CASE_NAME, _CASE_NAME_REACH) or text.matches(
            _ESCAPED_NAME_LETTER, _CASE_NAME_REACH
        )
    return '"cases"' in text or '"examples"' in text or _ESCAPED_NAME_LETTER.search(text) is not None


@dataclass(frozen=True, slots=True)
class FileEvent:
    path: Path
    kind: int  # lsprotocol FileChangeType: 1 created, 2 changed, 3 deleted


class WorkspaceIndex:
    """Workspace folders and the repositories below them."""

    def __init__(self, *, watching: bool = True) -> None:
        self.folders: list[Path] = []
        self._folder_names: list[tuple[str, str, Path]] = []  # (folder, its prefix, folder)
        self.watching = watching
        self._repos: dict[Path, RepoState] = {}
        self._repo_root_cache: dict[Path, Path] = {}
        self._discovered: list[Path] | None = None
        self._caseless: set[Path] = set()  # open evals.json suites the index holds as case-less

    def set_folders(self, folders: Iterable[Path]) -> None:
        self.folders = sorted({folder.absolute() for folder in folders}, key=lambda p: (-len(p.parts), p))
        self._folder_names = [(str(folder), os.path.join(str(folder), ""), folder) for folder in self.folders]
        self._repo_root_cache.clear()
        self._discovered = None

    def folder_for(self, path: Path) -> Path | None:
        """The innermost workspace folder holding ``path``. Compared as strings: ``folder in
        path.parents`` compared ``Path`` objects part by part, and a workspace request asks this
        for every fixture file (12,000 in a monorepo: most of ``workspace/symbol``'s time)."""
        name = str(path)
        for folder_name, prefix, folder in self._folder_names:  # sorted deepest first
            if name == folder_name or name.startswith(prefix):
                return folder
        return None

    def repo_root_for(self, path: Path, configured_root: Path | None = None) -> Path:
        if configured_root is not None:
            return configured_root
        root = self._repo_root_cache.get(path)
        if root is None:  # find_repo_root looks for .git on disk: remember its answer per file
            root = self._repo_root_cache[path] = find_repo_root(path, self.folders)
        return root

    def repo_for(self, path: Path, config: Config) -> RepoState:
        """The repository state of ``path`` under its configuration (which may name the root),
        told the configuration's ``workflow_walk``."""
        state = self.repo(self.repo_root_for(path, config.root))
        state.configure(config.walk)
        return state

    def repo(self, root: Path) -> RepoState:
        state = self._repos.get(root)
        if state is None:
            state = self._repos[root] = RepoState(root, watching=self.watching)
        return state

    # -- facts from the editor -------------------------------------------------------------------

    def note_text(self, path: Path, repo_root: Path, text: Text | None, edit: Edit | None = None) -> bool:
        """Queue the buffer text (None: back to disk) of ``path``; True when it is a fixture file
        of the repository's cross-file set. ``edit`` (the ``Edit`` since the previous text, when
        known) lets a suite already known to hold no cases be re-checked around the edit only."""
        rel = relative_posix(path, repo_root)
        if rel is None or not is_workflow_path(rel):
            return False
        if text is not None and edit is not None and path in self._caseless:
            # A name appearing in the new text but not the old one overlaps the edit: the window
            # (wider than the longest pattern on each side) is all that needs a look, instead of
            # scanning a 10 MB buffer on every keystroke.
            window = text[max(0, edit.start - _CASE_NAME_REACH) : edit.new_end + _CASE_NAME_REACH]
            if not may_hold_cases(window):
                return False
        if text is not None and is_evals_suite_path(rel) and not may_hold_cases(text):
            # An eval suite inside skills/**/evals/: the contract walk reads it but finds no
            # cases. Tell the index once, then spare it a full parse on every keystroke.
            if path in self._caseless:
                return False
            self._caseless.add(path)
        else:
            self._caseless.discard(path)
        self.repo(repo_root).queue_text(rel, text)
        return True

    def note_file_events(self, events: Iterable[FileEvent], is_open: Callable[[Path], bool]) -> set[Path]:
        """Queue file-system events; returns the repository roots where something was queued.
        An event that can change a fact the rules use invalidates existence facts (a created
        file can clear ``source_ref_missing``); one that cannot (an editor saving a file only
        ever asked about by kind, e.g. the open suite itself) leaves every cached per-case result
        valid. Events on fixture files that are not open also update the workflow index (an open
        buffer, not the disk, is what the index holds for those)."""
        touched: set[Path] = set()
        for event in events:
            if event.kind != 2:  # created or deleted: the set of files changed
                self._discovered = None
            for repo in self._repos_containing(event.path):
                if self._queue_event(repo, event, is_open):
                    touched.add(repo.root)
        return touched

    @staticmethod
    def _queue_event(repo: RepoState, event: FileEvent, is_open: Callable[[Path], bool]) -> bool:
        """Queue what ``event`` changes in ``repo``; False when nothing was queued."""
        path = event.path
        queued = event.kind != 2 or repo.fs.content_change_matters(path)
        if queued:
            repo.queue_fs_change(path)
        rel = relative_posix(path, repo.root)
        if rel is None:
            return queued
        if _is_directory_event(event, rel):
            repo.queue_full_reload()  # a whole folder of fixtures came or went
        elif is_workflow_path(rel) and not is_open(path):
            # A closed fixture's text may have changed: the workflow index reads it again.
            if event.kind == 3:
                repo.queue_deleted(rel)
            else:
                repo.queue_text(rel, None)
        else:
            return queued
        return True

    def generations(self) -> tuple[tuple[int, int], ...]:
        """Each known repository's file-system and index generations (what closed files'
        findings depend on besides their own text and the settings)."""
        return tuple((repo.fs_generation, repo.index_generation) for repo in self._repos.values())

    def _repos_containing(self, path: Path) -> Iterator[RepoState]:
        """The repositories ``path`` lies in, or that lie in ``path`` (a folder event). Compared
        as strings (as ``folder_for``): ``root in path.parents`` built a ``Path`` per level, a
        third of the loop's time for a checkout's 5,000 events."""
        name = str(path)
        below = os.path.join(name, "")
        for repo in self._repos.values():
            root = str(repo.root)
            if name == root or name.startswith(os.path.join(root, "")) or root.startswith(below):
                yield repo

    # -- discovery (worker side) -----------------------------------------------------------------

    def discover(self, configs: Callable[[Path], Config]) -> list[Path]:
        """Every fixture file of the workspace folders: the fixture walk plus files mapped by a
        ``files`` glob. ``configs(folder)`` gives a folder's configuration. Cached until a file
        is created or deleted, or the folders or configuration change."""
        if self._discovered is not None and self.watching:
            return self._discovered
        from ...workspace.walk import walk

        found: dict[Path, None] = {}
        for folder in self.folders:
            if not folder.is_dir():
                continue
            config = configs(folder)
            for path in walk(folder):
                if config.kind_for(path) != "unknown":
                    found.setdefault(path.absolute(), None)
            for path in config.extra_files(folder):
                found.setdefault(path.absolute(), None)
        self._discovered = sorted(found)
        return self._discovered

    def forget_discovery(self) -> None:
        self._discovered = None
