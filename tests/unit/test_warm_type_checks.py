"""The warm-up's type checks cover the ABC checks an editing session makes later (issue 19,
point 5): an ABC records every concrete type it is asked about, for good, and recorded during the
first large analysis such an entry kept one of its pymalloc arenas after close. Run in a fresh
interpreter: the ABC caches are process-wide and the test session has filled them already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LSP_TESTS = Path(__file__).resolve().parents[1] / "lsp"  # abc_caches.py

SCRIPT = """
import asyncio, sys

sys.path.insert(0, sys.argv[1])
from abc_caches import abc_cache_entries

from evalfix_ls.lsp.warm_up import prepare_type_checks

prepare_type_checks()
before = set(abc_cache_entries())

async def pull_waiting_for_a_running_analysis():
    running = asyncio.get_running_loop().create_future()
    running.set_result(None)
    await asyncio.wait([running])  # as DiagnosticsRunner.result_for_open waits
    analysis = asyncio.ensure_future(asyncio.sleep(0))
    await asyncio.wait([analysis])  # the running analysis there is a task

asyncio.run(pull_waiting_for_a_running_analysis())
print(sorted(set(abc_cache_entries()) - before))
"""


def test_waiting_for_a_running_analysis_records_no_abc_entry_after_the_warm_up() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(LSP_TESTS)], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout


HASHING_SCRIPT = """
import gc, sys

from evalfix_ls.contracts.workflow.index import text_digest
from evalfix_ls.lsp.warm_up import prepare_hashing

if sys.argv[1] == "warm":
    prepare_hashing()
gc.disable()
before = sys.getallocatedblocks()
digest = text_digest("a fixture's text")
print(sys.getallocatedblocks() - before)
"""


def test_the_first_digest_of_the_index_after_the_warm_up_keeps_nothing_but_itself() -> None:
    """``blake2b`` interns the names of its ten parameters at its first call with keywords."""

    def kept(mode: str) -> int:
        run = subprocess.run(
            [sys.executable, "-c", HASHING_SCRIPT, mode],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return int(run.stdout)

    assert kept("warm") <= 2  # the digest (and its frame's leftovers)
    assert kept("cold") >= 10  # what the warm-up spares: the check can tell the two apart
