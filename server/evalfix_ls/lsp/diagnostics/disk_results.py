"""Results of closed workspace files, kept within a budget of diagnostics, not one per file.

A workspace pull (or the push clients' scan) analyses every closed fixture file, and the results
were all kept, diagnostics and all, until a file event made them stale: memory grew with what the
workspace's files say, not with what the user does. One suite with 200,000 unknown keys at the
top level holds 200,000 diagnostics; kept, the server sat at 720 MB with nothing open after its
first workspace pull (``python -m bench.soak``, issue 33).

So the diagnostics of closed files are kept for the ``DIAGNOSTICS_BUDGET`` diagnostics most
recently used (least recently used first out; a result larger than the whole budget is not kept),
and of every closed file analysed only its key and a digest of its findings (two ints) are
remembered: enough to answer "unchanged" to a client that already has these findings (its
previous result id), or to skip a push of what was pushed, without analysing the file again. A
result evicted and then needed in full (a new client, a file that changed) is analysed again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from .convert import Digest
from .encoded import KeptDiagnostics
from .worker import Result

# Diagnostics of closed files kept: as objects they were about 14 allocated blocks each (a
# Diagnostic with its Range, Positions, data and fingerprint entry), 1-1.5 KB, so up to ~30 MB;
# now as compressed JSON (``kept_form``), ~80 bytes each. Every suite of a usual repository fits
# (a noisy 2 MB suite has 1,300-2,400).
DIAGNOSTICS_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class _Seen:
    key: tuple[int, ...]
    digest: Digest


def kept_form(result: Result) -> Result:
    """What a closed file's result keeps: its diagnostics as their JSON (``KeptDiagnostics``, what
    the reports write) and the digest of its findings; not its text, tree, memo, ``Diagnostic``
    objects or fingerprint. Objects, a diagnostic cost 1-1.5 KB with its fingerprint entry, and
    the budget's 20,000 of them were the largest part of what a 12,000-file workspace kept after
    its first ``workspace/diagnostic`` (issue 30); as JSON, a few hundred bytes."""
    return replace(
        result,
        text="",
        analysis=None,
        memo=None,
        parts=None,
        diagnostics=KeptDiagnostics.of(result.diagnostics, result.parts),
        fingerprint=(),
        findings=result.findings_digest(),
    )


class DiskResults:
    """Closed files' results: the most recently used within the budget, the digests of all."""

    def __init__(self, budget: int = DIAGNOSTICS_BUDGET) -> None:
        self.budget = budget
        self._kept: dict[Path, Result] = {}  # least recently used first
        self._seen: dict[Path, _Seen] = {}
        self._held = 0  # diagnostics in ``_kept``
        self.version = 0  # bumped whenever a digest is stored or forgotten

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def held_diagnostics(self) -> int:
        return self._held

    def get(self, path: Path, key: tuple[int, ...]) -> Result | None:
        """The kept result of ``path`` when it is still valid (``key``), now the most recent."""
        result = self._kept.pop(path, None)
        if result is not None:
            self._kept[path] = result
            if result.key == key:
                return result
        return None

    def digest_of(self, path: Path, key: tuple[int, ...]) -> Digest | None:
        """The digest of the findings of ``path`` when the last analysis of it is still valid."""
        seen = self._seen.get(path)
        return seen.digest if seen is not None and seen.key == key else None

    def store(self, result: Result) -> None:
        assert result.path is not None
        path = result.path
        self._seen[path] = _Seen(result.key, result.findings_digest())
        self.version += 1
        self._drop(path)
        size = len(result.diagnostics)
        if size > self.budget:
            return
        self._kept[path] = result
        self._held += size
        while self._held > self.budget:
            self._drop(next(iter(self._kept)))

    def forget(self, paths: Iterable[Path]) -> bool:
        """Drop what is known of ``paths``; True when a result or digest of one was held."""
        held = False
        for path in paths:
            held = self._drop(path) or held
            held = self._seen.pop(path, None) is not None or held
        self.version += held
        return held

    def _drop(self, path: Path) -> bool:
        result = self._kept.pop(path, None)
        if result is None:
            return False
        self._held -= len(result.diagnostics)
        return True
