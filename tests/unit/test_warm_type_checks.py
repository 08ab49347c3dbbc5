"""The warm-up's type checks cover the ABC checks an editing session makes later (issue 19,
point 5): an ABC records every concrete type it is asked about, for good, and recorded during the
first large analysis such an entry kept one of its pymalloc arenas after close. Run in a fresh
interpreter: the ABC caches are process-wide and the test session has filled them already."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import _abc, asyncio
from abc import ABCMeta

def entries():
    found, seen, pending = set(), set(), [object]
    while pending:
        cls = pending.pop()
        for sub in type.__subclasses__(cls):
            if id(sub) not in seen:
                seen.add(id(sub))
                pending.append(sub)
        if isinstance(cls, ABCMeta):
            _registry, cache, negative, _version = _abc._get_dump(cls)
            found |= {(cls.__qualname__, getattr(ref(), "__qualname__", None)) for ref in (*cache, *negative)}
    return found

from evalfix_ls.lsp.warm_messages import prepare_type_checks

prepare_type_checks()
before = entries()

async def pull_waiting_for_a_running_analysis():
    running = asyncio.get_running_loop().create_future()
    running.set_result(None)
    await asyncio.wait([running])  # as DiagnosticsRunner.result_for_open waits

asyncio.run(pull_waiting_for_a_running_analysis())
print(sorted(entries() - before))
"""


def test_waiting_for_a_running_analysis_records_no_abc_entry_after_the_warm_up() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
