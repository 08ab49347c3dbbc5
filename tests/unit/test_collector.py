"""The server's collector policy (``memory/collector.py``) keeps memory bounded: what was frozen is
collected once the jobs have stopped for a while (issue 14), never while a job runs, and the idle
thread sleeps meanwhile instead of polling (issue 19)."""

from __future__ import annotations

import contextvars
import gc
import sys
import time
import weakref
from collections.abc import Callable

import pytest

from evalfix_ls.memory import collector, gc_pause

WAIT = 10.0  # bound for conditions that hold at once on a sane machine; never a pacing delay


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


@pytest.fixture(autouse=True)
def _any_frozen_heap_is_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test process freezes all that pytest imported, maybe more than the server's limit."""
    monkeypatch.setattr(collector, "FULL_COLLECTION_LIMIT", sys.maxsize)


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def _wait_for_idle_collection(after: int) -> None:
    _until(lambda: collector.idle_collections() > after, "an idle collection")


def _idle_thread_frames() -> list[str]:
    """The names of the idle thread's frames, innermost first."""
    thread = collector._idle._thread
    frame = sys._current_frames().get(thread.ident) if thread is not None else None
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return names


def _idle_thread_sleeps_until_the_pause_ends() -> bool:
    """The idle thread is blocked in ``gc_pause.unpaused`` (a condition wait), not running."""
    names = _idle_thread_frames()
    return "unpaused" in names and "wait" in names


def test_frozen_garbage_is_collected_when_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.05)
    node = _Node()
    alive = weakref.ref(node)
    before = collector.idle_collections()
    with gc_pause.gc_paused():  # (keep the idle collection from running in between)
        collector.settle()  # after a job: everything alive is frozen, the node too
        del node
        gc.collect()
        assert alive() is not None  # frozen: a plain collection cannot free it
    _wait_for_idle_collection(before)
    assert alive() is None


def test_no_full_collection_while_the_frozen_heap_is_large(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a large document is open, the idle clean-up does not walk the frozen heap (a second
    at 10 MB, with requests waiting behind it); once the heap is small again (closed), it does."""
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.05)
    node = _Node()
    alive = weakref.ref(node)
    collections, full = collector.idle_collections(), collector.full_collections()
    with gc_pause.gc_paused():  # (keep the idle clean-up from running in between)
        collector.settle()  # the node frozen
        monkeypatch.setattr(collector, "FULL_COLLECTION_LIMIT", 0)  # any frozen heap is "large"
        del node
    _wait_for_idle_collection(collections)
    assert alive() is not None and collector.full_collections() == full
    monkeypatch.setattr(collector, "FULL_COLLECTION_LIMIT", sys.maxsize)  # "small" again
    collector.after_document_closed(last=False)
    _wait_for_idle_collection(collections + 1)
    assert alive() is None and collector.full_collections() == full + 1


def test_the_idle_thread_sleeps_while_a_job_runs_and_collects_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another worker's job ends while this one runs: the idle thread wakes once, waits for the
    quiet period, then sleeps until the running job ends (before: it spun on the lock, a core
    busy for as long as any job or request ran)."""
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.05)
    collections, wakeups = collector.idle_collections(), collector.idle_wakeups()
    with gc_pause.gc_paused():
        collector.settle()
        node = _Node()
        alive = weakref.ref(node)
        del node
        _until(_idle_thread_sleeps_until_the_pause_ends, "the idle thread to wait for the pause")
        assert collector.idle_collections() == collections and collector.idle_wakeups() == wakeups + 1
        assert alive() is not None and not gc.isenabled()
    _wait_for_idle_collection(collections)
    assert alive() is None
    assert collector.idle_wakeups() == wakeups + 1  # one wake-up, one collection


class _Clock:
    """``collector``'s clock, moved by the test: its sleeps are short real ones that leave the
    clock where it is, so the idle thread looks again and again until the test moves time on."""

    def __init__(self) -> None:
        # Behind the real clock: what the collector records here is in the past once the test
        # gives the real clock back (an idle collection of a later test is not postponed).
        self.now = time.monotonic() - 100.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        time.sleep(0.002)


def _idle_thread_waits_for_quiet() -> bool:
    """The idle thread is sleeping out a quiet period (``_Clock.sleep``), not collecting, not
    waiting for a job."""
    return _idle_thread_frames()[:2] == ["sleep", "_collect_when_quiet"]


def test_a_request_postpones_the_idle_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request that ends after the jobs did is activity too: the idle collection waits for
    quiet after it (a full collection of a 10 MB suite held the interpreter for about a second,
    one second after the last analysis, while the editor's requests kept coming). Time is the
    test's clock: nothing here depends on how fast the machine is."""
    clock = _Clock()
    monkeypatch.setattr(collector, "time", clock)
    monkeypatch.setattr(collector, "IDLE_SECONDS", 1.0)
    collections = collector.idle_collections()
    with gc_pause.gc_paused():  # a request is running
        collector.settle()  # a job ended at t
        clock.now += 1.5  # quiet since: the idle thread goes for the collection…
        _until(_idle_thread_sleeps_until_the_pause_ends, "the idle thread to wait for the request")
        collector.request_done()  # …but the request ends at t + 1.5
    _until(_idle_thread_waits_for_quiet, "the idle thread to wait for quiet after the request")
    assert collector.idle_collections() == collections  # not collected at t + 1.5
    clock.now += 1.5  # quiet since the request
    _wait_for_idle_collection(collections)


def test_every_request_worker_reports_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the request workers run (``request_runner._paused``) tells the collector when it ends, an
    answer or an error alike."""
    from evalfix_ls.lsp.scheduling import request_runner

    clock = _Clock()
    monkeypatch.setattr(collector, "time", clock)
    assert request_runner._paused(lambda: "answer") == "answer"
    assert collector._idle.last_job == clock.now
    clock.now += 10.0
    with pytest.raises(ZeroDivisionError):
        request_runner._paused(lambda: 1 / 0)
    assert collector._idle.last_job == clock.now


def test_the_clock_of_the_last_activity_is_updated_in_place() -> None:
    """A new float at every job and request: the one made last, during a large document's
    analysis, was left in its pymalloc arena after close (issue 19, point 5)."""
    clock = collector._idle._last_job
    collector.request_done()
    collector.request_done()
    assert collector._idle._last_job is clock


def _repr_guards() -> int:
    """Per-thread dicts holding the interpreter's ``repr`` recursion guard (``Py_Repr``)."""
    return sum(1 for item in gc.get_objects() if type(item) is dict and "Py_Repr" in item)


def _made_by_starting_two_workers(count: Callable[[], int]) -> int:
    """How many more objects ``count`` counts once two pool workers are started as the server
    starts them."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=2)
    try:
        with gc_pause.gc_paused():  # (no idle collection freezes the new objects meanwhile)
            before = count()
            collector._start_workers([(pool, 2)])
            return count() - before
    finally:
        pool.shutdown()


def test_worker_threads_build_their_repr_guard_when_started() -> None:
    """A thread builds its per-thread dict and ``repr`` guard at its first ``repr`` of a container
    (a finding's message, a log line): during a large analysis, where they kept one of its arenas
    after close (issue 19, point 5). The workers build them when they start, before any document."""
    assert _made_by_starting_two_workers(_repr_guards) == 2


def test_the_idle_thread_waits_for_the_next_job_without_a_condition(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waiting on a ``threading.Event`` makes a lock, a bound method and a deque entry at every
    wait; the ones made when the thread went back to sleep after the clean-up that follows a
    close stayed through the idle period, in an arena the closed document had filled (issue 19,
    point 5). The thread waits on a ``SimpleQueue``, which makes nothing."""
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.0)
    collections = collector.idle_collections()
    collector.settle()
    _wait_for_idle_collection(collections)
    _until(
        lambda: _idle_thread_frames()[:1] in (["_run"], ["wait"]), "the idle thread to wait for the next job"
    )
    assert "wait" not in _idle_thread_frames()


def _contexts() -> int:
    return sum(1 for item in gc.get_objects() if type(item) is contextvars.Context)


def test_worker_threads_build_their_context_when_started() -> None:
    """A thread makes its own ``Context`` the first time it looks at the context variables: a
    worker does when it hands its first result to the loop (``call_soon_threadsafe`` copies the
    current context), during the first large analysis, where it kept one of its arenas after
    close (issue 19, point 5). The workers make it when they start, before any document."""
    assert _made_by_starting_two_workers(_contexts) == 2


class _Looked:
    """A type whose attributes the test looks up by names made at run time."""


def test_the_collection_after_close_lets_go_of_names_looked_up_at_run_time() -> None:
    """The interpreter's attribute lookup cache keeps the name of each lookup; a name made at run
    time (``getattr`` from C with a string built for the call) stayed alive in it, in an arena a
    closed document's analyses had filled (issue 19, point 5). The collection that follows the
    close empties the cache."""
    name = "".join(["looked_up_", "at_run_time"])  # a new string, not the interned constant
    unused = sys.getrefcount(name)
    getattr(_Looked, name, None)
    collector.collect_frozen()
    assert sys.getrefcount(name) == unused
