"""The code stays `ruff` clean (lint and format), as the project's standards require."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fixture_paths import ROOT

TARGETS = ["server", "tests", "bench"]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    # The ruff of this environment (the test extra pins it), not whichever is on PATH.
    command = [sys.executable, "-m", "ruff", *args, *TARGETS]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [("check",), ("format", "--check")], ids=["check", "format"])
def test_ruff_is_clean(args: tuple[str, ...]) -> None:
    result = ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr
