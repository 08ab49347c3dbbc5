"""The server's collector policy: freeze what the jobs built; collect the frozen objects only when
the server is idle AND the frozen heap is small (the large documents are closed); give freed memory
back to the system.

The server keeps large trees alive between edits; without ``gc.freeze`` they would sit in the
oldest generation and a full collection would walk all of them again whenever enough new objects
had survived (about a million objects at 10 MB: 0.5–1 s each, measured). Freezing is O(1). Frozen
objects are still freed by reference counting, and the reference cycles that used to keep whole
analyses (the re-parse's stop test, a cancelled pull's frame) are gone, so what a job leaves does
not accumulate while a document stays open.

A full collection of the frozen heap, though, holds the interpreter for as long as it walks: about
a second at 10 MB, and requests waited behind it (py-spy: a quarter of the samples of the recorded
VS Code replay). So when the server has been idle for ``IDLE_SECONDS`` the frozen objects are
collected only if there are at most ``FULL_COLLECTION_LIMIT`` of them (start-up alone freezes
about 100,000): a closed document, the cycles of start-up and any cycle left meanwhile go then;
while a large document is open the idle pass only gives free memory back (``malloc_trim``).
Closing a document counts as activity (``after_document_closed``), so the clean-up follows the close.

The idle thread sleeps on events only: it waits for a job to end, then for the quiet period
(a request ending counts as activity too: ``request_done``),
then for running pauses (``memory.gc_pause``) to end; nothing happens while nothing happens.
"""

from __future__ import annotations

import array
import contextlib
import contextvars
import ctypes
import gc
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait

from .gc_pause import unpaused, unpaused_now
from .pool_trim import trim_empty_pools, trimmer

IDLE_SECONDS = 1.0  # no job for this long: the idle clean-up runs once
# At most this many frozen objects: a full collection costs ~0.1-0.3 s (more: a document is open).
FULL_COLLECTION_LIMIT = 300_000


WorkerPool = tuple[ThreadPoolExecutor, int]  # an executor and how many workers it has
WORKER_START_SECONDS = 5.0  # bound on starting a pool's workers (only a wrong count waits for it)


def start_threads_and_freeze(pools: Iterable[WorkerPool] = ()) -> None:
    """The server is built: what start-up imported and registered stays for good, so it is frozen
    (never walked by a collection again), and the collector, off during start-up (``cli.serve``),
    is on again. Called before any worker thread exists (``_one_malloc_arena``); the workers of
    ``pools`` and the idle thread are started here (``_start_workers``)."""
    _one_malloc_arena()
    trimmer()  # its probes are made now, among start-up's objects, not in a document's arenas
    _thread_state_built()
    _start_workers(pools)
    _idle.start()
    gc.freeze()
    gc.enable()


def _start_workers(pools: Iterable[WorkerPool]) -> None:
    """Start every worker thread now, before any document. A thread started during the first
    large analysis leaves its ``Thread``, locks and weak references (small, kept for good) in the
    pymalloc arenas that analysis filled, and they kept those arenas after close (2.4 MB noisy
    suite, RSS after close: 73.6 MB with the workers started here, 83.3 MB without)."""
    for pool, workers in pools:
        together = threading.Barrier(workers, timeout=WORKER_START_SECONDS)
        wait([pool.submit(_meet, together) for _ in range(workers)])  # each waits: a new thread each


def _meet(together: threading.Barrier) -> None:
    _thread_state_built()
    with contextlib.suppress(threading.BrokenBarrierError):  # fewer workers than said: all started
        together.wait()


def _thread_state_built() -> None:
    """Build what a thread builds once: on its first ``repr`` of a container, the interpreter's
    per-thread dict and its recursion guard list (``Py_Repr``); on its first look at the context
    variables (a worker hands a result to the loop with ``call_soon_threadsafe``, which copies
    the current context), the thread's own ``Context``. Built during a large analysis (a
    finding's message, a log line, the first job's result), they kept one of its arenas after
    close."""
    repr([()])
    contextvars.copy_context()


def after_document_closed(*, last: bool) -> None:
    """A document was closed: what it held is freed now, so the idle clean-up (a full collection
    once the frozen heap is small, and the trim) follows, even when no job runs after the close.

    When it was the ``last`` open document and no job runs, its cyclic garbage (a cancelled pull's
    frames, its exceptions) is collected at once, before the server reads the next message: left
    for the idle clean-up a second later, it had the objects the loop made meanwhile (the pending
    read's task and futures, alive through the idle period) placed among it, in the arenas the
    document's analyses filled, and those arenas stayed with the process after the collection. A
    full collection with nothing open walks the start-up heap only (about 0.1 s)."""
    if last:
        with unpaused_now() as quiet:
            if quiet and gc.get_freeze_count() <= FULL_COLLECTION_LIMIT:
                collect_frozen(give_back_pools=False)  # the idle pass does, off the loop thread
                _idle.closed_and_collected()
    _idle.job_done()


def settle() -> None:
    """After a job: hide everything alive now from future collections (``gc.freeze``), and have
    the frozen objects collected once the server has been idle for ``IDLE_SECONDS``."""
    gc.freeze()
    _idle.job_done()


class _IdleCollector:
    """A daemon thread that runs ``collect_frozen`` once the jobs have stopped for a while."""

    def __init__(self) -> None:
        # When the last job or request ended (``time.monotonic``), updated in place: a float
        # object made at every job would be the one left in a closed document's arena.
        self._last_job = array.array("d", [0.0])
        # One wake-up per job ended. A ``SimpleQueue`` because waiting on it makes nothing: a
        # ``threading.Event`` wait makes a lock, a bound method and a deque entry, and the ones the
        # thread made when it went back to sleep after the clean-up that follows a close stayed,
        # with the arena the closed document had filled, through the whole idle period.
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        # How many idle clean-ups ran, how many of them collected the frozen heap, how many times
        # the thread woke up to look, how many collections the last document's close ran (for
        # tests): counted in place, as an int above 256 made after a collection is a new object.
        self._counts = array.array("q", [0, 0, 0, 0])

    @property
    def collections(self) -> int:
        return self._counts[0]

    @property
    def full_collections(self) -> int:
        return self._counts[1]

    @property
    def wakeups(self) -> int:
        return self._counts[2]

    @property
    def close_collections(self) -> int:
        return self._counts[3]

    def closed_and_collected(self) -> None:
        self._counts[3] += 1

    @property
    def last_job(self) -> float:
        return self._last_job[0]

    def job_done(self) -> None:
        self._last_job[0] = time.monotonic()
        self._wake.put(None)
        self.start()

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="evalfix-gc-idle", daemon=True)
                self._thread.start()

    def request_done(self) -> None:
        """A request ended: activity, so an owed collection waits for quiet again (a full
        collection of a 10 MB suite holds the interpreter for about a second: it ran one second
        after the last analysis even while the editor's requests kept coming)."""
        self._last_job[0] = time.monotonic()

    def _run(self) -> None:
        _thread_state_built()
        while True:
            self._wake.get()
            self._counts[2] += 1
            self._collect_when_quiet()

    def _collect_when_quiet(self) -> None:
        while True:
            while (remaining := self.last_job + IDLE_SECONDS - time.monotonic()) > 0:
                time.sleep(remaining)
            with unpaused():  # a job or request still running: wait until it ends, asleep
                if self.last_job + IDLE_SECONDS > time.monotonic():
                    continue  # a job ended or a request ran meanwhile: wait for quiet again
                while not self._wake.empty():  # the jobs that ended until now: this collection covers them
                    self._wake.get()
                if gc.get_freeze_count() <= FULL_COLLECTION_LIMIT:
                    collect_frozen()
                    self._counts[1] += 1
                else:  # a large document is open: no walk over it, only the memory given back
                    _trim()
                self._counts[0] += 1
                return


def collect_frozen(*, give_back_pools: bool = True) -> None:
    """Collect everything, frozen objects included, then freeze the survivors again, and give
    the freed memory back to the system. The caller knows no job is running (a job's half-built
    objects are not garbage, but collecting them would cost what the pause saves).

    The interpreter's attribute lookup cache is emptied first: each entry keeps the name it was
    looked up by, and names made at run time (``getattr`` from C with a string built for the
    call: the JSON scanner's ``parse_float``, the regex engine's ``search``) were kept by it, one
    string here and there in the arenas the closed document's analyses filled, each arena held
    for it (a census after close found four). The cache fills again with the next lookups."""
    sys._clear_type_cache()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _trim(give_back_pools=give_back_pools)


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # musl or another libc
        return None


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None elsewhere. Analyses and requests run on worker threads,
    and glibc gives each thread an arena of its own that keeps the pages of freed objects: without
    a trim, the memory of a closed 2 MB suite stayed with the process (measured: 117 MB with the
    suite open, 146 MB after closing it and an idle collection)."""
    libc = _libc()
    return getattr(libc, "malloc_trim", None) if libc is not None else None


def _mallopt() -> Callable[[int, int], int] | None:
    libc = _libc()
    return getattr(libc, "mallopt", None) if libc is not None else None


M_ARENA_MAX = -8  # glibc's mallopt parameter


def _one_malloc_arena() -> None:
    """Have glibc keep one malloc arena for all threads. By default every new thread gets an arena
    of its own; the request and analysis workers' arenas kept the memory of a closed suite that
    ``malloc_trim`` could not give back (2.4 MB noisy suite: RSS 128 MB after close with one arena
    per thread, 88 MB with one, 59 MB before open). The interpreter lock serializes the threads'
    allocations anyway, so one arena costs no parallelism."""
    if _MALLOPT is not None:
        _MALLOPT(M_ARENA_MAX, 1)


def _trim(*, give_back_pools: bool = True) -> None:
    """Give free memory back: glibc's (``malloc_trim``), then the pages of pymalloc's empty pools
    in the arenas a few live blocks keep (``pool_trim``). The latter lets go of the interpreter
    lock for 50 ms first: the collection at the last close, on the loop thread, leaves it to the
    idle pass that follows a second later."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
    if give_back_pools:
        trim_empty_pools()


_MALLOC_TRIM = _malloc_trim()
_MALLOPT = _mallopt()


_idle = _IdleCollector()


def request_done() -> None:
    _idle.request_done()


def idle_collections() -> int:
    return _idle.collections


def full_collections() -> int:
    return _idle.full_collections


def close_collections() -> int:
    return _idle.close_collections


def idle_wakeups() -> int:
    return _idle.wakeups
