"""The workspace index of workflow fixture files, for duplicate ids across files (workflow-fixtures.md §7).

The reference's contract test normalizes every fixture file of the repository, concatenates the
cases in batch order (repository-relative paths sorted by UTF-16 code units, then array order) and
reports each ``skill:id`` seen before as ``duplicate_case_id`` on the later case. To reproduce that
for one file, evalfix-ls must know the ids of every fixture file that sorts before it. This index
holds them, for the batch mode (disk only) and the language server (open buffers over the disk).

Per file it keeps the text digest, the ids with their anchors and each case's coverage tags, so
re-indexing an unchanged text costs a hash; the normalized file (a parse tree and its cases) only
for editor buffers, and for files on disk it is normalized again when asked (``normalized``). It is
not thread-safe: the language server updates it on its main loop.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ...parser import parse
from ...parser.fast import reject_constant
from ...parser.tree import ARRAY, OBJECT, Node
from ...workspace.confine import resolve_within
from ...workspace.files import read_file
from ...workspace.view import FileSystemView
from ...workspace.walk import walk_directories
from ..detection import CANONICAL_SCHEMA, Walk, declared_schema, is_workflow_path, walking_repository
from .normalize import NormalizedFile, normalize_file


def batch_order_key(rel_path: str) -> bytes:
    """JavaScript's default sort compares UTF-16 code units (§9.4)."""
    return rel_path.encode("utf-16-be", "surrogatepass")


@dataclass(frozen=True, slots=True)
class IdSite:
    """Where a ``skill:id`` key occurs: file, case index and the id's anchor range in that file."""

    path: str  # repository-relative POSIX path
    case: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class CaseSummary:
    """What the workspace's features read of one case of every fixture: its normalized id with
    the id's anchor, and its coverage tags (workspace symbols, id references, tag completion)."""

    id: str
    id_start: int
    id_end: int
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IndexedFile:
    rel_path: str
    digest: bytes
    normalized: NormalizedFile | None  # None when the text does not parse or cannot be read
    keys: tuple[tuple[str, IdSite], ...]  # in case order; empty when the reference would throw
    parsed: bool = True  # False: the text is not JSON
    canonical: bool = False  # declares spec-first.workflow-eval-fixtures.v1
    cases: tuple[CaseSummary, ...] = ()  # every normalized case, in order
    # ``normalized`` was let go (a file on disk): ``WorkflowIndex.normalized`` reads it again.
    normalized_dropped: bool = False

    @property
    def key_set(self) -> frozenset[str]:
        return frozenset(key for key, _ in self.keys)


def discover(repo_root: Path) -> list[str]:
    """The contract test's walk (§2.1): regular files below ``<root>/skills`` (symbolic links neither
    followed nor collected) whose repository-relative path has an ``evals`` directory segment and
    ends in ``.json``; returned in batch order."""
    found: list[str] = []
    base = repo_root / "skills"
    if resolve_within(base, repo_root) is None:
        return found  # ``skills`` links out of the repository: its listing is not looked at
    for dirpath, _dirnames, filenames in walk_directories(base):
        for name in filenames:
            if not name.endswith(".json"):
                continue
            full = os.path.join(dirpath, name)
            try:
                if not stat.S_ISREG(os.lstat(full).st_mode):
                    continue
            except OSError:
                continue
            rel = Path(os.path.relpath(full, repo_root)).as_posix()
            if is_workflow_path(rel):
                found.append(rel)
    found.sort(key=batch_order_key)
    return found


class WorkflowIndex:
    """Ids of every workflow fixture file of one repository, in batch order.

    Queries load the disk on first use (``load_from_disk``), so constructing an index is free and
    the batch mode can create one per repository root whether or not a fixture gets checked.
    """

    def __init__(self, repo_root: Path, fs: FileSystemView, walk: Walk | None = None) -> None:
        self.repo_root = repo_root.absolute()
        self.fs = fs
        self.walk = walk  # forced by configuration; else the normalizer's presence decides
        self._files: dict[str, IndexedFile] = {}
        self._overlays: set[str] = set()  # files whose text came from update() (editor buffers)
        # Files on disk normalized again when asked (``normalized``), the most recent last.
        self._renormalized: OrderedDict[str, tuple[bytes, NormalizedFile | None]] = OrderedDict()
        self._previous_keys: dict[str, frozenset[str]] = {}  # keys before the last change
        self._loaded = False
        self._order: list[str] | None = None
        self._first: dict[str, tuple[bytes, IdSite]] | None = None  # key → (order key of its file, site)
        self._order_walking: bool | None = None  # the regime ``_order`` and ``_first`` were built for

    # -- changes -----------------------------------------------------------------------------
    def load_from_disk(self) -> None:
        """Discover (§2.1 walk of ``<root>/skills``) and index every fixture file; buffers given to
        ``update`` keep precedence over the disk."""
        present = set(discover(self.repo_root))
        for rel in present - self._overlays:
            self._store(rel, self._read(rel))
        for rel in [rel for rel in self._files if rel not in present and rel not in self._overlays]:
            self._drop(rel)
        self._loaded = True
        self._invalidate()

    def update(self, rel_path: str, text: str) -> None:
        """An open or edited document's current text (ignored for paths that are not fixtures).
        While a buffer does not parse (the user is typing through a syntax error), its ids stay
        those of the last text that parsed, so siblings' duplicate findings do not flicker."""
        if not is_workflow_path(rel_path):
            return
        self._overlays.add(rel_path)
        self._store(rel_path, text, keep_parsed=True)

    def reload(self, rel_path: str) -> None:
        """Forget the buffer of ``rel_path`` and read the disk again (document closed or saved)."""
        self._overlays.discard(rel_path)
        if not is_workflow_path(rel_path):
            return
        if _regular_inside(self.repo_root, rel_path):
            self._store(rel_path, self._read(rel_path))
        else:
            self.remove(rel_path)

    def remove(self, rel_path: str) -> None:
        """The file was deleted."""
        self._overlays.discard(rel_path)
        self._drop(rel_path)

    def adopt(self, entries: Iterable[IndexedFile]) -> None:
        """Take the entries ``index_file`` built for every discovered file (in other processes:
        ``--check --jobs``) as the disk state, instead of ``load_from_disk``."""
        for entry in entries:
            if entry.rel_path not in self._overlays:
                self._files[entry.rel_path] = entry
        self._loaded = True
        self._invalidate()

    # -- queries -----------------------------------------------------------------------------
    def force_walk(self, walk: Walk | None) -> None:
        """The configuration's ``workflow_walk`` (None: the normalizer's presence decides). The
        server's repository state hands it over at each sync (``RepoState.sync``), never while an
        analysis reads the index."""
        if walk != self.walk:
            self.walk = walk
            self._invalidate()

    @property
    def walking(self) -> bool:
        """A walking repository: every discovered file is a fixture. Elsewhere only canonical
        files are (workflow-fixtures.md §2.1a), for duplicate ids and readiness alike."""
        return walking_repository(self.repo_root, self.fs, self.walk).walking

    def files(self) -> list[str]:
        """Fixture paths in batch order (in a repository without the walk, canonical files only)."""
        self._ensure_loaded()
        return list(self._batch_order())

    def _batch_order(self) -> list[str]:
        """``files()`` without the copy (callers must not change it)."""
        walking = self.walking
        if walking != self._order_walking:  # the normalizer appeared or went away
            self._invalidate()
            self._order_walking = walking
        if self._order is None:
            self._order = sorted(
                (rel for rel, entry in self._files.items() if walking or entry.canonical), key=batch_order_key
            )
        return self._order

    def normalized(self, rel_path: str) -> NormalizedFile | None:
        """The file normalized: kept for editor buffers; for a file on disk read and normalized
        again (the last few kept), as the index keeps only ``case_summaries`` of those — the
        trees of 2,000 fixtures with cases were ~20 MB of a 12,000-file repository's server
        (issue 30). Asked for one skill's files at a time (readiness)."""
        self._ensure_loaded()
        entry = self._files.get(rel_path)
        if entry is None or not entry.normalized_dropped:
            return entry.normalized if entry is not None else None
        kept = self._renormalized.get(rel_path)
        if kept is not None and kept[0] == entry.digest:
            return kept[1]
        text = self._read(rel_path)
        normalized = _index_text(rel_path, text, entry.digest).normalized
        # Asked from request workers too: single C calls, no iteration over the table.
        self._renormalized[rel_path] = (entry.digest, normalized)
        self._renormalized.move_to_end(rel_path)
        while len(self._renormalized) > RENORMALIZED_KEPT:
            with contextlib.suppress(KeyError):  # emptied by another caller meanwhile
                self._renormalized.popitem(last=False)
        return normalized

    def case_summaries(self, rel_path: str) -> tuple[CaseSummary, ...]:
        """Each case's id, id anchor and coverage tags, in order (none for an unknown file)."""
        self._ensure_loaded()
        entry = self._files.get(rel_path)
        return entry.cases if entry is not None else ()

    def earlier_sites(self, rel_path: str) -> dict[str, IdSite]:
        """``skill:id`` → first occurrence, for every key first registered by a file that sorts
        before ``rel_path`` (whether or not ``rel_path`` itself is indexed)."""
        self._ensure_loaded()
        limit = batch_order_key(rel_path)
        return {key: site for key, (order, site) in self._first_sites().items() if order < limit}

    def earlier_site(self, rel_path: str, key: str) -> IdSite | None:
        """The first occurrence of ``key`` when it lies in a file that sorts before ``rel_path``."""
        self._ensure_loaded()
        found = self._first_sites().get(key)
        if found is None or found[0] >= batch_order_key(rel_path):
            return None
        return found[1]

    def earlier_ids(self, rel_path: str) -> dict[str, tuple[str, int]]:
        """``skill:id`` → (earlier file, case index) for ids registered before ``rel_path``."""
        return {key: (site.path, site.case) for key, site in self.earlier_sites(rel_path).items()}

    def dependents(self, rel_path: str) -> list[str]:
        """Files (in batch order) whose duplicate findings may change when ``rel_path`` changed: the
        later files sharing a key with its current or previous (before the last change) ids."""
        found = self.dependents_of([rel_path])
        return [rel for rel in self.files() if rel in found] if found else []

    def dependents_of(self, rel_paths: Iterable[str]) -> set[str]:
        """``dependents`` of every one of ``rel_paths`` in one pass over the files: asked per
        changed file, a checkout of 5,000 workflow fixtures compared each with all 12,000 files of
        a monorepo (60 million comparisons under the repository lock)."""
        self._ensure_loaded()
        earliest: dict[str, bytes] = {}  # key -> the batch order of the first changed file holding it
        for rel_path in rel_paths:
            entry = self._files.get(rel_path)
            keys = (entry.key_set if entry else frozenset()) | self._previous_keys.get(rel_path, frozenset())
            limit = batch_order_key(rel_path) if keys else b""
            for key in keys:
                if key not in earliest or limit < earliest[key]:
                    earliest[key] = limit
        if not earliest:
            return set()
        found = set()
        for rel, entry in self._files.items():
            if entry.key_set.isdisjoint(earliest):
                continue
            order = batch_order_key(rel)
            if any(earliest[key] < order for key in entry.key_set if key in earliest):
                found.add(rel)
        return found

    # -- internals ---------------------------------------------------------------------------
    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.load_from_disk()

    def _read(self, rel_path: str) -> str | None:
        return _read_text(self.repo_root, rel_path)

    def _store(self, rel_path: str, text: str | None, *, keep_parsed: bool = False) -> None:
        digest = text_digest(text)
        old = self._files.get(rel_path)
        if old is not None and old.digest == digest:
            return
        entry = _index_text(rel_path, text, digest, quick=not keep_parsed)
        if keep_parsed and not entry.parsed and old is not None and old.parsed:
            return
        if not keep_parsed and entry.normalized is not None:  # a file on disk: see ``normalized``
            entry = replace(entry, normalized=None, normalized_dropped=True)
        self._files[rel_path] = entry
        self._previous_keys[rel_path] = old.key_set if old is not None else frozenset()
        self._invalidate()

    def _drop(self, rel_path: str) -> None:
        old = self._files.pop(rel_path, None)
        if old is not None:
            self._previous_keys[rel_path] = old.key_set
            self._invalidate()

    def _invalidate(self) -> None:
        self._order = None
        self._first = None

    def _first_sites(self) -> dict[str, tuple[bytes, IdSite]]:
        # Asked once per case: no copy of the file list once the sites are known.
        order = self._batch_order()  # first: it drops ``_first`` when the regime changed
        if self._first is None:
            first: dict[str, tuple[bytes, IdSite]] = {}
            for rel in order:
                rank = batch_order_key(rel)
                for key, site in self._files[rel].keys:
                    if key not in first:
                        first[key] = (rank, site)
            self._first = first
        return self._first


RENORMALIZED_KEPT = 32  # files on disk normalized again and kept (``WorkflowIndex.normalized``)

# Below this size a file is simply parsed; above it, a file that has no case array at all (a
# 10 MB evals.json suite under skills/x/evals/, which the reference's walk also reads) is
# recognised by the stdlib's C parser instead of a positioned parse it would not need.
_QUICK_CHECK_SIZE = 256 * 1024


def _without_case_array(text: str) -> bool:
    """True when ``text`` is certainly an object with neither a ``cases`` nor an ``examples``
    array (§4.1: such a file contributes no case, no id, no readiness)."""
    if len(text) < _QUICK_CHECK_SIZE:
        return False
    try:
        value = json.loads(text, parse_constant=reject_constant)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(value, dict)
        and not isinstance(value.get("cases"), list)
        and not isinstance(value.get("examples"), list)
    )


def _no_case_array(root: Node | None) -> bool:
    """``_without_case_array`` on a parsed text: an object with neither a ``cases`` nor an
    ``examples`` array contributes nothing to the index, so nothing of it is kept — as for a text
    above ``_QUICK_CHECK_SIZE``. Kept, its ``NormalizedFile`` held the whole tree: every evals.json
    suite below ``skills/x/evals/`` under 256 KB stayed parsed for the session (``bench.soak``'s
    200 suites: 234,000 nodes alive with nothing open, issue 33)."""
    if root is None or root.kind != OBJECT:
        return False
    return all((value := root.get(name)) is None or value.kind != ARRAY for name in ("cases", "examples"))


def _regular_inside(repo_root: Path, rel_path: str) -> bool:
    """A regular file, not a link (as ``discover`` collects), reached without leaving the root."""
    path = repo_root / rel_path
    try:
        return resolve_within(path, repo_root) is not None and stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def index_file(repo_root: Path, rel_path: str, *, keep_normalized: bool = True) -> IndexedFile:
    """What ``load_from_disk`` stores for one file. It depends on nothing else, so worker processes
    can build an index's entries in parallel; without ``keep_normalized`` the entry carries only
    the ids (what ``earlier_site`` reads), which is cheap to send between processes."""
    text = _read_text(repo_root, rel_path)
    entry = _index_text(rel_path, text, text_digest(text), quick=True)
    return entry if keep_normalized else replace(entry, normalized=None)


def _read_text(repo_root: Path, rel_path: str) -> str | None:
    file_text = read_file(repo_root / rel_path, repo_root)
    if file_text.unavailable:
        return None
    return file_text.text


def text_digest(text: str | None) -> bytes:
    """What the index compares a fixture's text by (``None``: unreadable)."""
    digest = hashlib.blake2b((text or "").encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return (b"\x01" if text is not None else b"\x00") + digest


_OBJECT_START = re.compile(r"[ \t\r\n]*\{")  # JSON's whitespace, then an object


def _cannot_hold_cases(text: str) -> bool:
    """``text`` holds neither member name ``cases`` nor ``examples``, not even spelled with
    escapes: no parse can find a case array in it. Most files under ``skills/**/evals/`` of a
    repository without the walk are arc suites (``evals``, not ``cases``): 10,000 of 12,000 files
    in a monorepo of skills, whose positioned parse was 80 % of loading the index (issue 30).
    Only an object: any other top level makes the normalizer throw, which the index records
    (``unreadable``)."""
    return (
        _OBJECT_START.match(text) is not None
        and '"cases"' not in text
        and '"examples"' not in text
        and "\\u" not in text
    )


def _index_text(rel_path: str, text: str | None, digest: bytes, *, quick: bool = False) -> IndexedFile:
    """Normalize a fixture's text the way the contract test does (no context skill id); a file the
    reference cannot parse or normalize contributes no ids (§7). ``quick``: a text that cannot
    hold a case array is not parsed (an edited buffer always is: while it does not parse, its
    last ids are kept, see ``_store``)."""
    if text is None or (quick and _cannot_hold_cases(text)) or _without_case_array(text):
        return IndexedFile(rel_path, digest, None, ())
    tree = parse(text)
    if tree.errors:
        return IndexedFile(rel_path, digest, None, (), parsed=False)
    if _no_case_array(tree.root):
        return IndexedFile(rel_path, digest, None, ())
    normalized = normalize_file(tree.root, rel_path)
    canonical = declared_schema(tree.root) == CANONICAL_SCHEMA
    cases = tuple(
        CaseSummary(case.id, case.id_anchor.start, case.id_anchor.end, tuple(case.tag_values))
        for case in normalized.cases
    )
    if normalized.unreadable is not None:
        return IndexedFile(rel_path, digest, normalized, (), canonical=canonical, cases=cases)
    keys = tuple(
        (case.key, IdSite(rel_path, case.index, case.id_anchor.start, case.id_anchor.end))
        for case in normalized.cases
    )
    return IndexedFile(rel_path, digest, normalized, keys, canonical=canonical, cases=cases)
