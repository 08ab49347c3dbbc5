"""Per-document tables (uri → state) that give their memory back when the last document leaves."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def pop_and_shrink(table: dict[K, V], key: K) -> V | None:
    """Remove ``key`` from ``table`` (its value, or None); once ``table`` is empty, free its hash
    table too. A dict keeps the table it grew while entries come and go, and a table made while a
    large document was open, in the pymalloc arenas its analysis filled, kept one of them after
    close; ``clear`` gives the dict back the shared empty table."""
    value = table.pop(key, None)
    if not table:
        table.clear()
    return value
