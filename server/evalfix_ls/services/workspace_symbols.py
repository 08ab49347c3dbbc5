"""Workspace symbols: every case id of every fixture file of the workspace, open or not, that
matches a query (fuzzy: the query's characters in order, case-insensitive), with the skill as
container."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..contracts.detection import EVALS
from ..js.values import js_id_string
from ..parser import parse
from ..workspace.confine import is_inside, resolve_within
from ..workspace.files import file_stamp, read_file
from .cases import iter_cases
from .workspace_facts import WorkspaceFacts, skill_of

MAX_WORKSPACE_SYMBOLS = 1000


@dataclass(frozen=True, slots=True)
class CaseSymbol:
    name: str
    container: str  # the skill
    path: Path
    start: int  # offsets in that file's text
    end: int


def fuzzy_match(query: str, name: str) -> bool:
    """Every character of ``query`` appears in ``name`` in order, ignoring case."""
    position = 0
    lowered = name.lower()
    for char in query.lower():
        position = lowered.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


def workspace_symbols(
    query: str,
    facts_by_repo: Iterable[WorkspaceFacts],
    evals_suites: Iterable[Path],
    open_text: Callable[[Path], str | None] = lambda path: None,
    limit: int = MAX_WORKSPACE_SYMBOLS,
) -> tuple[list[CaseSymbol], bool]:
    """Matching case ids and whether ``limit`` cut the list. Workflow ids come from the index
    (open buffers included); evals suites are read from ``open_text`` or the disk."""
    out: list[CaseSymbol] = []
    facts_by_repo = tuple(facts_by_repo)
    roots = repo_roots(facts_by_repo)
    for facts in facts_by_repo:
        root = facts.repo_root
        if root is None:  # no repository, no workflow index
            continue
        for rel_path in facts.workflow_files():
            for name, start, end in _workflow_ids(facts, rel_path):
                if fuzzy_match(query, name):
                    out.append(CaseSymbol(name, skill_of(rel_path) or "", root / rel_path, start, end))
                    if len(out) >= limit:
                        return out, True
    for path in evals_suites:
        text = open_text(path)
        ids = _suite_ids_of_text(text) if text is not None else _suite_ids_on_disk_within(path, roots)
        for name, start, end in ids:
            if fuzzy_match(query, name):
                out.append(CaseSymbol(name, path.parent.parent.name, path, start, end))
                if len(out) >= limit:
                    return out, True
    return out, False


def repo_roots(facts_by_repo: Iterable[WorkspaceFacts]) -> list[Path]:
    """The repositories a suite on disk must resolve inside to lend its ids."""
    return [facts.repo_root for facts in facts_by_repo if facts.repo_root is not None]


def read_suite_ids(paths: Iterable[Path], roots: list[Path]) -> None:
    """Read the case ids of the suites on disk ``paths`` into the cache the requests answer from
    (each kept while its file keeps its modification time and size)."""
    for path in paths:
        _SUITE_IDS.ids(path, roots)


def _workflow_ids(facts: WorkspaceFacts, rel_path: str) -> list[tuple[str, int, int]]:
    index = facts.workflow_index
    cases = index.case_summaries(rel_path) if index is not None else ()
    return [(case.id, case.id_start, case.id_end) for case in cases if case.id]


def _suite_ids_on_disk_within(path: Path, roots: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """The ids of a suite on disk, read only where it resolves inside its repository (one of
    ``roots``): a suite linked outside the repository lends no symbols."""
    return _SUITE_IDS.ids(path, roots)


def _read_within(path: Path, roots: list[Path]) -> tuple[tuple[str, int, int], ...]:
    holding = [root for root in roots if is_inside(os.path.abspath(path), os.path.abspath(root))]
    root = max(holding, key=lambda root: len(root.parts), default=None)  # the innermost
    real = resolve_within(path, root) if root is not None else None
    return _suite_ids_read(Path(real)) if real is not None else ()


class SuiteIds:
    """The case ids of the suites on disk, each kept while the file it names (links followed)
    keeps its modification time and size; where it resolves (``resolve_within``) is worked out
    with it. Keyed by path for every suite of the workspace: a least-recently-used cache of 512
    entries was emptied by every request over a monorepo (10,000 suites), which then read, parsed
    and resolved every suite again (seconds per ``workspace/symbol``; resolving alone was 60 %
    of a request whose suites were all cached). An entry is a few tuples (the ids and their
    offsets); ``MAX_SUITES`` bounds them all the same."""

    MAX_SUITES = 100_000

    def __init__(self) -> None:
        self._known: dict[str, tuple[tuple[int, int], tuple[tuple[str, int, int], ...]]] = {}
        self._lock = threading.Lock()  # requests run on several workers

    def ids(self, path: Path, roots: list[Path]) -> tuple[tuple[str, int, int], ...]:
        key = str(path)
        stamp = file_stamp(path)
        known = self._known.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
        ids = _read_within(path, roots) if stamp[1] >= 0 else ()
        with self._lock:
            if len(self._known) >= self.MAX_SUITES:
                self._known.pop(next(iter(self._known)))  # the oldest entry
            self._known[key] = (stamp, ids)
        return ids

    def clear(self) -> None:
        with self._lock:
            self._known.clear()


_SUITE_IDS = SuiteIds()


def _suite_ids_read(path: Path) -> tuple[tuple[str, int, int], ...]:
    file_text = read_file(path)
    if file_text.error is not None or file_text.too_large:
        return ()
    return _suite_ids_of_text(file_text.text)


def forget_suite_ids() -> None:
    """Empty the cache of the suites' ids on disk (read again at the next workspace request)."""
    _SUITE_IDS.clear()


def _suite_ids_of_text(text: str) -> tuple[tuple[str, int, int], ...]:
    root = parse(text).root
    return tuple(
        (name, node.start, node.end)
        for case in iter_cases(EVALS, root)
        if (node := case.id_node) is not None and (name := js_id_string(node))
    )
