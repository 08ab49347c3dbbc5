"""Shared fixtures. Plain helpers live in ``fixture_paths`` (importable from every test folder)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixture_paths import CORPUS, ROOT, SHARED, materialize  # noqa: E402

__all__ = ["CORPUS", "ROOT", "SHARED", "materialize"]


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    return CORPUS
