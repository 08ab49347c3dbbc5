"""Shared fixtures and the suite's guards. Plain helpers live in ``fixture_paths`` (importable
from every test folder).

Guards (issue 32):
* a test marked ``corpus`` needs ../shared and is skipped *before* any of its fixtures runs when
  it is absent (a user's clone): no server is started for a test that will not run;
* every process the suite starts is tagged, and one still alive when the session ends is killed,
  listed and fails the run (``server_processes``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixture_paths import CORPUS, ROOT, SHARED, SHARED_ABSENT, materialize, shared_present  # noqa: E402
from server_processes import kill_all, left_after_grace, mark_this_run  # noqa: E402

__all__ = ["CORPUS", "ROOT", "SHARED", "materialize"]

_RUN = mark_this_run()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("corpus") is not None and not shared_present():
        pytest.skip(SHARED_ABSENT)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = left_after_grace(_RUN)
    if not left:
        return
    kill_all(left)
    listing = "\n".join(f"  {pid}: {command}" for pid, command in sorted(left.items()))
    sys.stderr.write(f"\nprocesses the suite started were still running at its end (killed):\n{listing}\n")
    if exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def corpus_dir() -> Path:
    if not shared_present():
        pytest.skip(SHARED_ABSENT)
    return CORPUS
