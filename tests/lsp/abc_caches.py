"""What the ABCs have recorded: ``isinstance``/``issubclass`` against an ABC keeps each concrete
type it met in the ABC's caches (a weak reference and its callback), for good. Recorded during a
large analysis, such an entry kept one of its pymalloc arenas after close (issue 19, point 5).
Shared by the probe server and the warm-up test; imports nothing of evalfix-ls."""

from __future__ import annotations


def abc_cache_entries() -> list[str]:
    """Every entry of every ABC's caches, as ``ABC:type`` (``isinstance`` against an ABC records
    each new concrete type there, with a weak reference, for good)."""
    import _abc
    from abc import ABCMeta

    entries, seen, pending = [], set(), [object]
    while pending:
        cls = pending.pop()
        for sub in type.__subclasses__(cls):
            if id(sub) not in seen:
                seen.add(id(sub))
                pending.append(sub)
        if isinstance(cls, ABCMeta):
            _registry, cache, negative, _version = _abc._get_dump(cls)
            entries += [
                f"{cls.__qualname__}:{getattr(ref(), '__qualname__', ref())}" for ref in (*cache, *negative)
            ]
    return sorted(entries)
