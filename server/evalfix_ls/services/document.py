"""``DocumentView``: the analysis of one document version, as every feature reads it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analysis import Analysis
from ..contracts.workflow.normalize import NormalizedFile, normalize_file
from ..parser.tree import Node
from ..text.pieces import Text


@dataclass(frozen=True, slots=True)
class DocumentView:
    """One version of one document: its text, its analysis (tree, findings, contract results) and
    where it lives. ``path`` is None for an unsaved buffer; ``rel_path`` is POSIX, relative to
    ``repo_root``."""

    text: Text  # a ``PieceText`` only for completion (answered before the analysis builds the str)
    analysis: Analysis
    path: Path | None = None
    repo_root: Path | None = None
    rel_path: str | None = None

    @property
    def kind(self) -> str:
        """The contract: ``evals``, ``workflow-fixture`` or ``unknown``."""
        return self.analysis.kind

    @property
    def root(self) -> Node | None:
        """The (possibly recovered) tree's root, or None when nothing could be parsed."""
        tree = self.analysis.tree
        return tree.root if tree is not None else None

    def workflow(self) -> NormalizedFile:
        """The workflow fixture as the normalizer reads it: the analysis' own, else read from the
        tree (a tree answered before its analysis carries no contract results)."""
        normalized = self.analysis.workflow
        if normalized is None or normalized.root is not self.root:
            normalized = normalize_file(self.root, self.rel_path)
        return normalized

    @property
    def parses(self) -> bool:
        """True when the text is valid JSON (the tree is exact, not recovered)."""
        tree = self.analysis.tree
        return tree is not None and tree.ok
