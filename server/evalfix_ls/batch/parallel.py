"""``--jobs N``: the files of a ``--check`` run spread over worker processes.

Results come back in the planned order (``Executor.map`` yields them in submission order, each
as soon as it and those before it are done), so the report, and the streamed text, are the same
for every N. Workers share nothing: each has its own ``Analyser`` (file-system view, workflow
indexes), which reads the same files from disk as the parent would. A worker sends back
only what the output needs (kind, text, findings), not the contract's ``extra`` results.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from ..analysis import Analysis
from ..workspace.view import FileSystemView
from .analyse import Analyser, FileTask

# Below this many files per extra worker, starting processes costs more than it saves.
MIN_FILES_PER_WORKER = 8

_worker: Analyser | None = None


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def worker_count(jobs: int, files: int) -> int:
    return max(1, min(jobs, files // MIN_FILES_PER_WORKER))


def analyse_all(tasks: list[FileTask], analyser: Analyser, jobs: int) -> Iterator[tuple[FileTask, Analysis]]:
    workers = worker_count(jobs, len(tasks))
    if workers == 1:
        for task in tasks:
            yield task, analyser.analyse(task)
        return
    # Chunks small enough that the first lines appear early and the load stays balanced.
    chunksize = max(1, min(64, len(tasks) // (workers * 8)))
    with ProcessPoolExecutor(workers, mp_context=_context(), initializer=_start_worker) as pool:
        yield from zip(tasks, pool.map(_analyse, tasks, chunksize=chunksize), strict=True)


def _context() -> multiprocessing.context.BaseContext:
    # fork: the workers inherit the imported modules (no second interpreter start-up); --check
    # runs no threads that a fork could break. Elsewhere the platform default.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _start_worker() -> None:
    global _worker
    _worker = Analyser(FileSystemView())


def _analyse(task: FileTask) -> Analysis:
    assert _worker is not None, "worker not initialised"
    analysis = _worker.analyse(task)
    return Analysis(analysis.kind, analysis.text, None, analysis.findings)  # not `extra`: pickling cost
