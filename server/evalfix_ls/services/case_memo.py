"""One document-wide feature's results per case, kept from one request to the next.

After a keystroke in a 10 MB suite every case but the edited one is the same case: before the
edit the same nodes, after it the same nodes moved (``parser.shift``: a moved case is a view of
the node first parsed, whose ``unshifted`` origin stays the same keystroke after keystroke). A
feature that walks every case (symbols, links) asks its memo for each case's origin: a case seen
by the previous request gives its result back (in the origin's offsets; the caller moves it by the
case's delta), only the others are computed. Without it each request walked, and built the moved
children of, every case after the edit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from ..parser.tree import Node

R = TypeVar("R")


class CaseMemo(Generic[R]):
    """Results of one feature for the cases of one document, by the case's origin node. What else
    the results depend on (the contract, the file system's generation …) is the round's
    ``context``: another one starts afresh. Only the cases of the last complete round are kept, so
    it holds one result per case at most. ``computed`` / ``reused`` count the cases of every round
    (tests read them)."""

    __slots__ = ("_kept", "computed", "reused")

    def __init__(self) -> None:
        # (context, entries) in one attribute: a round reads both at once while another commits
        self._kept: tuple[Hashable, dict[int, tuple[Node, R]]] = (None, {})
        self.computed = 0
        self.reused = 0

    @contextmanager
    def round(self, context: Hashable) -> Iterator[MemoRound[R]]:
        """One request's walk. Kept when it ends normally; a request stopped half-way (cancelled,
        outdated) leaves the memo as it was. Two rounds at once (two workers) each read the last
        kept results; the one that ends last is kept."""
        kept_context, entries = self._kept
        current = MemoRound(self, entries if kept_context == context else {})
        yield current
        self._kept = (context, current.kept)


class MemoRound(Generic[R]):
    __slots__ = ("_memo", "_previous", "kept")

    def __init__(self, memo: CaseMemo[R], previous: dict[int, tuple[Node, R]]) -> None:
        self._memo = memo
        self._previous = previous
        self.kept: dict[int, tuple[Node, R]] = {}

    def result(self, origin: Node, compute: Callable[[Node], R]) -> R:
        """``compute(origin)``, or what it gave the previous round for that very node."""
        key = id(origin)
        entry = self._previous.get(key)
        if entry is not None and entry[0] is origin:  # (the entry keeps it alive: its id is its own)
            self._memo.reused += 1
            result = entry[1]
        else:
            self._memo.computed += 1
            result = compute(origin)
        self.kept[key] = (origin, result)
        return result
