"""cattrs' dispatch caches, kept when cattrs registers a hook it generated for a list type.

cattrs builds the hook of a list or sequence type the first time it meets one
(``gen_unstructure_iterable``, ``gen_structure_iterable``) and registers it as a *direct* hook of
that type; registering clears the converter's whole dispatch cache, so the hook of every class
is generated again at its next use (source compiled, a ``linecache`` entry, closures). In the
server that happened whenever an answer or notification carried a list type for the first time:
the first ``window/logMessage`` or code action after start-up regenerated the hooks of every
message type, often during a large analysis, and those once-only objects were found holding its
pymalloc arenas after the document was closed (issue 33: an arena census of the hostile phase;
``bench/tools/arena_census.py``).

A direct registration changes the dispatch of its own type only, and the cached answer for that
type (if any) came from the same factory, so nothing cached goes stale by keeping the cache.
Every other registration (the converter's set-up) still clears it, as cattrs does.
"""

from __future__ import annotations

from typing import Any

from cattrs import Converter


def keep_dispatch_caches(converter: Converter) -> Converter:
    """Have ``converter`` keep its dispatch caches across its own direct registrations; a cattrs
    whose dispatch is shaped otherwise is left as it is. Returns ``converter``."""
    for name in ("_unstructure_func", "_structure_func"):
        dispatch: Any = getattr(converter, name, None)
        if dispatch is not None and _shaped_as_expected(dispatch):
            dispatch.dispatch = KeptCache(dispatch)
    return converter


def _shaped_as_expected(dispatch: object) -> bool:
    try:
        _registrations(dispatch)
    except (AttributeError, TypeError):
        return False
    return hasattr(getattr(dispatch, "dispatch", None), "cache_clear")


def _registrations(dispatch: Any) -> tuple[int, int]:
    """How many hooks were registered other than directly: predicates and single-dispatch types
    (cattrs only ever adds to them)."""
    return len(dispatch._function_dispatch._handler_pairs), len(dispatch._single_dispatch.registry)


class KeptCache:
    """Stands in for a dispatch's ``lru_cache``: a lookup goes to it; clearing it is skipped when
    no registration but direct ones happened since the last clear."""

    __slots__ = ("_cached", "_dispatch", "_registered")

    def __init__(self, dispatch: Any) -> None:
        self._dispatch = dispatch
        self._cached = dispatch.dispatch
        self._registered = _registrations(dispatch)

    def __call__(self, typ: Any) -> Any:
        return self._cached(typ)

    def cache_clear(self) -> None:
        registered = _registrations(self._dispatch)
        # An emptied direct dispatch: ``clear_cache`` (a union hook registered, say), not a
        # direct registration, which adds to it first.
        if registered != self._registered or not self._dispatch._direct_dispatch:
            self._registered = registered
            self._cached.cache_clear()

    def cache_info(self) -> Any:
        return self._cached.cache_info()
