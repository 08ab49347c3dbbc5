"""The code stays `ruff` clean (lint and format), as the project's standards require."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from fixture_paths import ROOT

TARGETS = ["server", "tests", "bench"]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff") or shutil.which("ruff", path=str(ROOT / ".venv" / "bin"))
    command = [exe] if exe else [sys.executable, "-m", "ruff"]
    return subprocess.run([*command, *args, *TARGETS], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [("check",), ("format", "--check")], ids=["check", "format"])
def test_ruff_is_clean(args: tuple[str, ...]) -> None:
    result = ruff(*args)
    assert result.returncode == 0, result.stdout + result.stderr
