"""The findings of one analysis by place, built once per analysis on first use.

A code action request names a few diagnostics; finding each one's finding by scanning every
finding cost the whole list per diagnostic per cursor move (a suite still being written carries
thousands). The index answers by (code, pointer) and (code, start offset) instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..analysis import Analysis
from ..findings import Finding


class FindingIndex:
    __slots__ = ("findings", "_at", "_starting", "_by_code", "has_safe_fix")

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.findings = findings
        # Whether fix-all has anything to do, once decided (a scan of the findings; see
        # lsp/features/code_actions.py): the analysis and what it knew of the workspace decide it.
        self.has_safe_fix: bool | None = None
        self._at: dict[tuple[str, str | None], list[Finding]] = defaultdict(list)
        self._starting: dict[tuple[str, int], list[Finding]] = defaultdict(list)
        self._by_code: dict[str, list[Finding]] = defaultdict(list)
        for finding in findings:
            self._at[finding.code, finding.pointer].append(finding)
            self._starting[finding.code, finding.start].append(finding)
            self._by_code[finding.code].append(finding)

    def at(self, code: str, pointer: str | None) -> list[Finding]:
        """The findings of ``code`` at JSON pointer ``pointer``, in document order."""
        return self._at.get((code, pointer), [])

    def starting_at(self, code: str, start: int) -> list[Finding]:
        return self._starting.get((code, start), [])

    def of_code(self, code: str) -> list[Finding]:
        return self._by_code.get(code, [])

    def codes(self) -> set[str]:
        return set(self._by_code)


def finding_index(analysis: Analysis) -> FindingIndex:
    """The index of ``analysis.findings`` (kept on the analysis; rebuilt if they were replaced)."""
    index = analysis.finding_index
    if not isinstance(index, FindingIndex) or index.findings is not analysis.findings:
        index = analysis.finding_index = FindingIndex(analysis.findings)
    return index
