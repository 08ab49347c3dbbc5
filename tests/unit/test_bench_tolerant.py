"""``python -m bench.tolerant --baseline REV`` loads the parser package of another revision (its
modules import each other) next to the installed one and times both."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `bench` is a top-level folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from bench.tolerant import main  # noqa: E402


def _in_git_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    probe = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "HEAD"], capture_output=True, timeout=30
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _in_git_checkout(), reason="needs the git history of a checkout")
def test_baseline_of_a_revision_after_the_parser_split_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--sizes", "20k", "--baseline", "HEAD"]) == 0
    table = capsys.readouterr().out
    assert "the same, baseline parser" in table
    assert "the same, baseline re-parse p50" in table
    # the baseline is its own copy, not the installed package under another name
    assert any(name.startswith("evalfix_baseline_HEAD") for name in sys.modules)
