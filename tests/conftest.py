"""Shared test helpers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


def materialize(corpus: Path, dest: Path) -> Path:
    """Create every path of the corpus' tree.txt under ``dest`` (corpus files with their
    content, others empty), so existence checks behave as in the real checkout."""
    for line in (corpus / "tree.txt").read_text(encoding="utf-8").splitlines():
        if not line:
            continue
        target = dest / line
        target.parent.mkdir(parents=True, exist_ok=True)
        source = corpus / line
        target.write_bytes(source.read_bytes() if source.is_file() else b"")
    return dest


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    return CORPUS


@pytest.fixture
def python_exe() -> str:
    return sys.executable
