"""The result cache: the latest result of each open document and of each closed workspace file,
the per-case finding caches, the result ids of pull reports, and the "something changed" event
that parked ``workspace/diagnostic`` requests wait on. Plain state on the event loop: the job
runner fills it, the push and pull strategies read it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ...memory.tables import pop_and_shrink
from .convert import Digest, Fingerprint, digest
from .disk_results import DiskResults
from .worker import Result

if TYPE_CHECKING:  # the analysis core is imported by the first analysis, not at start-up
    from ...contracts.case_cache import CaseCache


class ResultCache:
    def __init__(self) -> None:
        self.open: dict[str, Result] = {}  # open documents: the latest result of the current text
        self.disk = DiskResults()  # closed workspace files, without text and tree, within a budget
        # Per open document: the result of an analysis that ended after its text had changed,
        # newer than ``open``'s. Never an answer; the next analysis re-parses from its tree.
        self.late: dict[str, Result] = {}
        # Per open document: findings of unchanged cases.
        self.case_caches: dict[str, CaseCache] = {}
        self._result_ids: dict[str, tuple[Digest, str]] = {}
        self._id_counter = itertools.count(1)
        self.closes = 0  # documents closed so far (``closed``)
        self._changed = asyncio.Event()

    def opened(self, uri: str) -> None:
        from ...contracts.case_cache import CaseCache  # the analysis core loads lazily

        self.case_caches[uri] = CaseCache()
        self.open.pop(uri, None)
        self.late.pop(uri, None)

    def closed(self, uri: str) -> None:
        self.closes += 1  # (its result id goes: reports of closed files worked out before are stale)
        pop_and_shrink(self.open, uri)
        pop_and_shrink(self.late, uri)
        pop_and_shrink(self.case_caches, uri)
        # A closed workspace file gets a new id with its disk findings; anything else none.
        pop_and_shrink(self._result_ids, uri)

    def store_open(self, uri: str, result: Result) -> None:
        """Keep ``result`` as the document's latest; wake pull waiters when its findings differ."""
        previous = self.open.get(uri)
        self.open[uri] = result
        self.late.pop(uri, None)
        if previous is None or previous.fingerprint != result.fingerprint:
            self.notify_changed()

    def base_for(self, uri: str) -> Result | None:
        """The result the next analysis of ``uri`` re-parses from: the newest one analysed,
        late or not."""
        return self.late.get(uri) or self.open.get(uri)

    def store_disk(self, result: Result) -> None:
        self.disk.store(result)

    def forget_disk(self, paths: Iterable[Path]) -> bool:
        """Drop the disk results of ``paths`` (written on disk: their own text may differ, which
        no generation in the results' keys tells); True when one (or its digest) was held."""
        return self.disk.forget(paths)

    @property
    def changed(self) -> asyncio.Event:
        """An event set at the next change after this call (a parked ``workspace/diagnostic``
        request waits on it). Made when asked for, not at every change: the one made at the last
        change before a close stayed through the idle period, in an arena the closed document's
        analyses had filled (issue 19, point 5)."""
        if self._changed.is_set():
            self._changed = asyncio.Event()
        return self._changed

    def notify_changed(self) -> None:
        """Wake parked ``workspace/diagnostic`` requests."""
        self._changed.set()

    def result_id(self, uri: str, fingerprint: Fingerprint) -> str:
        """The same id as long as the findings are the same, a new one when they change."""
        return self.result_id_of(uri, digest(fingerprint))

    def result_id_of(self, uri: str, findings: Digest) -> str:
        """``result_id`` from the digest of the findings (all a closed file keeps of them)."""
        entry = self._result_ids.get(uri)
        if entry is not None and entry[0] == findings:
            return entry[1]
        result_id = f"r{next(self._id_counter)}"
        self._result_ids[uri] = (findings, result_id)
        return result_id

    def ids_held(self) -> list[str]:
        return list(self._result_ids)
