"""Every server a test starts ends within a bound, whatever the test did (issue 32).

pytest-lsp's fixture teardown calls ``client.stop()``, which waits for the server process to exit
without ever ending it; its ``shutdown_session()`` sends nothing to a server that was never
initialized. A test that skipped or failed between the start and ``initialize`` therefore left a
teardown waiting forever. Here the end is always bounded: ``shutdown``/``exit`` where they apply,
then the end of the server's standard input, then SIGTERM, then SIGKILL.

The last line of defence is a census at the end of the session: every process the suite started
carries ``EVALFIX_TEST_RUN`` (set in the pytest process, inherited by every descendant, even one
whose parent died and left it to init), and one still alive when pytest finishes is killed and
reported, failing the run."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

GRACE_SECONDS = 5.0  # per step: a server that answers shutdown exits in well under a second
RUN_MARKER = "EVALFIX_TEST_RUN"

# The processes started through the helpers below (RawClient, pytest-lsp fixtures), ended after
# each test by the autouse fixture in tests/lsp/conftest.py.
started: list[asyncio.subprocess.Process] = []


async def end_process(process: asyncio.subprocess.Process, grace: float = GRACE_SECONDS) -> int:
    """End ``process`` in at most three graces: end of input, SIGTERM, SIGKILL. Its exit code."""
    if process.returncode is None and process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()  # our servers exit on end of input
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
    for stop in (process.terminate, process.kill):
        if process.returncode is not None:
            break
        with contextlib.suppress(ProcessLookupError):
            stop()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
    if process.returncode is None:  # killed, but its exit never reached this loop
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
    return process.returncode if process.returncode is not None else -signal.SIGKILL


def server_process_of(client: Any) -> asyncio.subprocess.Process | None:
    """The server process behind a pytest-lsp client (pygls keeps it in the private ``_server``:
    no public accessor exists in pygls 2.1)."""
    return getattr(client, "_server", None)


async def end_language_client(client: Any, grace: float = GRACE_SECONDS) -> None:
    """Shut down the server of a pytest-lsp ``LanguageClient`` properly where it was initialized,
    else just end it; never waits longer than a few graces."""
    process = server_process_of(client)
    if not client.stopped and client.capabilities is not None and client.error is None:
        with contextlib.suppress(Exception, asyncio.TimeoutError):
            await asyncio.wait_for(client.shutdown_session(), grace)
    if process is not None and process.returncode is None and client.capabilities is None:
        with contextlib.suppress(Exception):
            client.exit(None)  # LSP: exit before initialize ends the server too
    if process is not None:
        await end_process(process, grace)


async def end_started(grace: float = GRACE_SECONDS) -> list[int]:
    """End every process still running among those the helpers started; their pids."""
    left = [process for process in started if process.returncode is None]
    started.clear()
    for process in left:
        await end_process(process, grace)
    return [process.pid for process in left]


def mark_this_run() -> str:
    """Tag every process the suite will start (inherited through the environment)."""
    token = os.environ.setdefault(RUN_MARKER, str(os.getpid()))
    return token


# Helpers of the pytest process itself that live as long as it does (multiprocessing's fork
# server and resource tracker, started by an in-process ``--jobs`` run): not left behind.
OWN_HELPERS = ("multiprocessing.forkserver", "multiprocessing.resource_tracker")
STRAGGLER_SECONDS = 15.0  # a server in its exit grace (5 s) when the last test ended


def leftover_processes(token: str) -> dict[int, str]:
    """Processes other than this one still alive with ``RUN_MARKER=token``: pid → command line.
    Zombies are left out (dead already, waiting only for their parent's wait()), and so are this
    process' own multiprocessing helpers."""
    needle = f"{RUN_MARKER}={token}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if any(helper in command for helper in OWN_HELPERS):
                continue
            found[int(entry.name)] = command
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def left_after_grace(token: str, grace: float = STRAGGLER_SECONDS) -> dict[int, str]:
    """``leftover_processes`` once those on their way out had ``grace`` seconds to exit."""
    deadline = time.monotonic() + grace
    left = leftover_processes(token)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = leftover_processes(token)
    return left


def kill_all(pids: dict[int, str]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
