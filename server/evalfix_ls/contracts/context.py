"""What a contract's rules may read: the ``AnalysisContext`` the pipeline hands each contract.

It lives here, below the pipeline, so that the contracts import it without importing ``analysis``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..parser.tree import ParseResult
from ..workspace.view import FileSystemView
from .case_cache import CaseCache
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
