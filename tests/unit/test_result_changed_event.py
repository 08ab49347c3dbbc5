"""The event parked ``workspace/diagnostic`` requests wait on (``ResultCache.changed``)."""

from __future__ import annotations

import weakref


def test_a_change_makes_no_event_until_a_waiter_asks_for_one() -> None:
    """``workspace/diagnostic`` waiters get an event set at the next change. A change made a new
    event for the next waiter at once, so the one made at the last change before a close stayed
    through the idle period, in an arena the closed document's analyses had filled (issue 19,
    point 5): it is made when a waiter asks for it."""
    from evalfix_ls.lsp.diagnostics.results import ResultCache

    cache = ResultCache()
    asked = cache.changed
    cache.notify_changed()
    cache.notify_changed()
    assert asked.is_set()  # the waiter of before the changes is woken
    kept = weakref.ref(asked)
    del asked
    assert kept() is not None  # nobody asked since: no event made for the next waiter
    assert not cache.changed.is_set()  # the next waiter waits for the next change
