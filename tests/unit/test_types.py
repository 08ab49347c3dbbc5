"""The server type-checks: mypy, configured in pyproject.toml (the whole of server/, strict), finds
nothing."""

from __future__ import annotations

import subprocess
import sys

from fixture_paths import ROOT


def test_mypy_is_clean() -> None:
    # The mypy of this environment (the test extra pins its minor), run as a contributor runs it:
    # from the repository root, without file arguments, so pyproject.toml says what is checked.
    command = [sys.executable, "-m", "mypy"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
