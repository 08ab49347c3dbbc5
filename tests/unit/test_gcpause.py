"""The collector pause and freeze keep memory bounded: what was frozen is collected once the jobs
have stopped for a while (issue 14), and never while a job runs."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from evalfix_ls.parser import gcpause


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def _wait_for_idle_collection(after: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while gcpause.idle_collections() <= after:
        assert time.monotonic() < deadline, "no idle collection"
        time.sleep(0.01)


def test_frozen_garbage_is_collected_when_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gcpause, "IDLE_SECONDS", 0.05)
    node = _Node()
    alive = weakref.ref(node)
    before = gcpause.idle_collections()
    gcpause.settle()  # after a job: everything alive is frozen, the node too
    del node
    with gcpause._lock:  # (keep the idle collection from running in between)
        gc.collect()
        assert alive() is not None  # frozen: a plain collection cannot free it
    _wait_for_idle_collection(before)
    assert alive() is None


def test_no_idle_collection_while_a_job_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gcpause, "IDLE_SECONDS", 0.05)
    before = gcpause.idle_collections()
    with gcpause.gc_paused():
        gcpause.settle()  # another worker's job ended while this one runs
        node = _Node()
        alive = weakref.ref(node)
        del node
        deadline = time.monotonic() + 0.3
        while time.monotonic() < deadline:
            time.sleep(0.01)
        assert gcpause.idle_collections() == before
        assert alive() is not None and not gc.isenabled()
    gcpause.settle()
    _wait_for_idle_collection(before)
    assert alive() is None
