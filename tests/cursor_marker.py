"""Inline documents for service tests: ``|`` marks the cursor (write ``||`` for a literal bar)."""

from __future__ import annotations

from pathlib import Path

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.services.document import DocumentView

MARK = "|"


def split_cursor(marked: str) -> tuple[str, int]:
    """The text without its one cursor marker, and the marker's offset (code points)."""
    placeholder = "\0"
    work = marked.replace(MARK * 2, placeholder)
    if work.count(MARK) != 1:
        raise ValueError(f"expected exactly one cursor marker in {marked!r}")
    offset = work.index(MARK)
    return work.replace(MARK, "", 1).replace(placeholder, MARK), offset


def document(
    text: str, kind: str = EVALS, *, root: Path | None = None, rel_path: str | None = None
) -> DocumentView:
    """The analysis of ``text``: an unsaved buffer of contract ``kind``, or the file ``rel_path``
    under the repository ``root`` (its contract then detected from the path, as editors do)."""
    if root is not None and rel_path is not None:
        path = root / rel_path
        analysis = analyze(text, path=path, repo_root=root)
        return DocumentView(text, analysis, path=path, repo_root=root, rel_path=rel_path)
    return DocumentView(text, analyze(text, kind=kind))
