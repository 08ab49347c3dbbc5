"""``--jobs N``: the files of a ``--check`` run spread over worker processes.

Results come back in the planned order (``Executor.map`` yields them in submission order, each
as soon as it and those before it are done), so the report, and the streamed text, are the same
for every N. A worker sends back only what the output needs (kind, text, findings), not the
contract's ``extra`` results.

The cross-file rule (``duplicate_case_id``) needs, per repository, the ids of every fixture file
(``WorkflowIndex``): building it parses every file below ``skills/``, more work than checking the
files. So it is built once, in parallel too: a first pool computes the entries (ids only, cheap
to send back), the parent assembles the indexes, and the workers that check the files get them
at start-up. The parent's own ``Analyser`` keeps its lazily loaded, complete indexes for the
readiness report.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from pathlib import Path

from ..analysis import Analysis
from ..contracts.detection import is_workflow_path
from ..contracts.workflow.index import IndexedFile, WorkflowIndex, discover, index_file
from ..workspace.view import FileSystemView, relative_posix
from .analyze import Analyzer, FileTask

# Below this many files per extra worker, starting processes costs more than it saves.
MIN_FILES_PER_WORKER = 8

_worker: Analyzer | None = None


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def worker_count(jobs: int, files: int) -> int:
    return max(1, min(jobs, files // MIN_FILES_PER_WORKER))


def analyze_all(tasks: list[FileTask], analyzer: Analyzer, jobs: int) -> Iterator[tuple[FileTask, Analysis]]:
    workers = worker_count(jobs, len(tasks))
    if workers == 1:
        for task in tasks:
            yield task, analyzer.analyze(task)
        return
    context = _context()
    indexes = shared_indexes(tasks, workers, context)
    # Chunks small enough that the first lines appear early and the load stays balanced.
    chunksize = max(1, min(64, len(tasks) // (workers * 8)))
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(indexes,)
    ) as pool:
        yield from zip(tasks, pool.map(_analyze, tasks, chunksize=chunksize), strict=True)


def shared_indexes(tasks: list[FileTask], workers: int, context: BaseContext) -> dict[Path, WorkflowIndex]:
    """The ids index of every repository root that holds a workflow fixture to check, built by
    ``workers`` processes."""
    roots = sorted({t.repo_root for t in tasks if _is_workflow(t)})
    jobs = [(root, rel) for root in roots for rel in discover(root)]
    if not jobs:
        return {}
    chunksize = max(1, min(256, len(jobs) // (workers * 4)))
    fs = FileSystemView()
    walks = {t.repo_root: t.walk for t in tasks}
    indexes = {root: WorkflowIndex(root, fs, walks.get(root)) for root in roots}
    entries: dict[Path, list[IndexedFile]] = {root: [] for root in roots}
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        for (root, _rel), entry in zip(jobs, pool.map(_index_entry, jobs, chunksize=chunksize), strict=True):
            entries[root].append(entry)
    for root, index in indexes.items():
        index.adopt(entries[root])
    return indexes


def _is_workflow(task: FileTask) -> bool:
    rel = relative_posix(task.path, task.repo_root)
    return rel is not None and is_workflow_path(rel)


def _context() -> BaseContext:
    # fork: the workers inherit the imported modules (no second interpreter start-up). Only from
    # a single-threaded process (the command line), since a fork copies locks other threads may
    # hold; a host with threads (a test runner, an embedding program) gets forkserver or spawn.
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else None)


def _index_entry(job: tuple[Path, str]) -> IndexedFile:
    root, rel = job
    return index_file(root, rel, keep_normalized=False)


def _start_worker(indexes: dict[Path, WorkflowIndex]) -> None:
    global _worker
    _worker = Analyzer(FileSystemView())
    _worker.indexes.update(indexes)


def _analyze(task: FileTask) -> Analysis:
    assert _worker is not None, "worker not initialised"
    analysis = _worker.analyze(task)
    # neither the tree nor the normalized workflow file: pickling cost
    return Analysis(
        analysis.kind, analysis.text, None, analysis.findings, classification=analysis.classification
    )
