"""No other Python code runs while the trim rewrites pymalloc's structures (``memory/pool_trim``):
no other thread takes the interpreter lock (``_exclusive``), and nothing runs in this one
between two of its steps (``_nothing_runs_between_steps``)."""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
import time
from collections.abc import Iterator

SWITCH_INTERVAL_SECONDS = 0.5  # while the trim runs: no waiting thread asks for the lock sooner
HANDOVER_SECONDS = 0.05  # the lock let go this long first (at least ten old switch intervals)


def _nothing_runs_between_steps() -> bool:
    """No Python code can run in this thread between two steps of the trim: not on the main
    thread (a signal handler, or KeyboardInterrupt, could run or raise between two writes), no
    trace or profile function, no ``sys.monitoring`` tool."""
    if threading.current_thread() is threading.main_thread():
        return False
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return False
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is None or all(monitoring.get_tool(tool) is None for tool in range(6))


@contextlib.contextmanager
def _exclusive() -> Iterator[float]:
    """No other thread takes the interpreter lock until the block ends, or before the deadline it
    yields. A thread waiting for the lock asks the holder to let go when its wait times out
    (after the switch interval) unless the lock changed hands since the wait began, and it reads
    the interval when a wait begins. So: raise the interval; let go of the lock for longer than
    any wait begun with the old interval can last (``HANDOVER_SECONDS``: a wait signalled while
    this thread takes the lock back would otherwise still time out and ask); take it back. Every
    wait still running then began after the raise and times out no sooner than
    ``SWITCH_INTERVAL_SECONDS`` after it: the work inside stops at half of that (the deadline)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    raised = time.monotonic()
    try:
        if threading.active_count() > 1:  # alone (start-up, before the workers): nobody waits
            time.sleep(max(HANDOVER_SECONDS, 10 * interval))
        collecting = gc.isenabled()
        gc.disable()  # a collection could run finalizers, and they could take empty pools
        try:
            yield raised + SWITCH_INTERVAL_SECONDS / 2
        finally:
            if collecting:
                gc.enable()
    finally:
        sys.setswitchinterval(interval)
