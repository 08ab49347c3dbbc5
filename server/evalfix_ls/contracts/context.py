"""What a contract's rules may read: the ``AnalysisContext`` the pipeline hands each contract.

It lives here, below the pipeline, so that the contracts import it without importing ``analysis``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..findings import Finding
from ..parser.tree import ParseResult
from ..workspace.view import FileSystemView
from .case_cache import CaseCache, PlacedCase
from .workflow.index import WorkflowIndex


@dataclass(slots=True)
class AnalysisContext:
    """Everything a contract's rules may read. ``path`` is absolute (None for an unsaved buffer);
    ``rel_path`` is POSIX, relative to ``repo_root``."""

    text: str
    tree: ParseResult
    path: Path | None
    rel_path: str | None
    repo_root: Path | None
    fs: FileSystemView
    workspace: WorkflowIndex | None = None  # the repository's fixtures, for cross-file rules
    case_cache: CaseCache | None = None  # kept by the caller across versions
    # The cases the cache answered, each with where its findings stand among the contract's
    # (the length of its findings list then): kept as blocks, not copied into the list.
    placed: list[tuple[int, PlacedCase]] = field(default_factory=list)

    def place(self, findings: list[Finding], case: PlacedCase) -> None:
        """``case``'s findings belong in ``findings`` here (the pipeline puts them in order)."""
        self.placed.append((len(findings), case))
