"""The server's collector policy (``lsp/collector.py``) keeps memory bounded: what was frozen is
collected once the jobs have stopped for a while (issue 14), never while a job runs, and the idle
thread sleeps meanwhile instead of polling (issue 19)."""

from __future__ import annotations

import gc
import sys
import time
import weakref

import pytest

from evalfix_ls.lsp import collector
from evalfix_ls.parser import gcpause

WAIT = 10.0  # bound for conditions that hold at once on a sane machine; never a pacing delay


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def _until(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def _wait_for_idle_collection(after: int) -> None:
    _until(lambda: collector.idle_collections() > after, "an idle collection")


def _idle_thread_sleeps_until_the_pause_ends() -> bool:
    """The idle thread is blocked in ``gcpause.unpaused`` (a condition wait), not running."""
    thread = collector._idle._thread
    frame = sys._current_frames().get(thread.ident) if thread is not None else None
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return "unpaused" in names and "wait" in names


def test_frozen_garbage_is_collected_when_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.05)
    node = _Node()
    alive = weakref.ref(node)
    before = collector.idle_collections()
    with gcpause.gc_paused():  # (keep the idle collection from running in between)
        collector.settle()  # after a job: everything alive is frozen, the node too
        del node
        gc.collect()
        assert alive() is not None  # frozen: a plain collection cannot free it
    _wait_for_idle_collection(before)
    assert alive() is None


def test_the_idle_thread_sleeps_while_a_job_runs_and_collects_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another worker's job ends while this one runs: the idle thread wakes once, waits for the
    quiet period, then sleeps until the running job ends (before: it spun on the lock, a core
    busy for as long as any job or request ran)."""
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.05)
    collections, wakeups = collector.idle_collections(), collector.idle_wakeups()
    with gcpause.gc_paused():
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
