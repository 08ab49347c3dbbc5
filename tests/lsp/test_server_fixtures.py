"""The suite's own guards against hangs and stray servers (issue 32): a server fixture ends its
server whatever the test did, a stubborn process is killed, a process left behind is found at the
end of the session, and a test that needs ../shared is skipped before any fixture starts one."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from lsp_support import SERVER
from pytest_lsp import ClientServerConfig
from server_processes import RUN_MARKER, end_language_client, end_process, kill_all, leftover_processes

STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)"
)


async def test_a_server_never_initialized_ends_and_its_client_stops() -> None:
    """pytest-lsp's teardown (``client.stop()``) waits for the server's exit; a test that skipped
    before ``initialize`` left it waiting forever (the hang of issue 32)."""
    client = await ClientServerConfig(server_command=SERVER).start()
    process = client._server
    assert process is not None and process.returncode is None
    await end_language_client(client)
    assert process.returncode is not None
    await asyncio.wait_for(client.stop(), 10)  # returns at once now that the server is gone


async def test_a_process_that_ignores_the_end_of_input_and_sigterm_is_killed() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", STUBBORN, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    await process.stdout.readline()  # SIGTERM is ignored from here on
    assert await end_process(process, grace=0.2) == -9


async def test_a_process_left_behind_is_found_by_the_census_and_killed() -> None:
    token = f"census-{os.getpid()}"
    env = {**os.environ, RUN_MARKER: token}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", STUBBORN, env=env, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        await process.stdout.readline()
        left = leftover_processes(token)
        assert list(left) == [process.pid]
        assert "SIG_IGN" in left[process.pid]
        kill_all(left)
        assert await asyncio.wait_for(process.wait(), 10) == -9
        assert leftover_processes(token) == {}
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.corpus
def test_a_corpus_test_is_skipped_before_its_fixtures_without_shared(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The setup hook (tryfirst, before fixtures) skips a ``corpus`` test where ../shared is absent."""
    conftest = request.config.pluginmanager.get_plugin(str(Path(__file__).parents[1] / "conftest.py"))
    assert conftest is not None
    monkeypatch.setattr(conftest, "shared_present", lambda: False)
    with pytest.raises(pytest.skip.Exception, match="not available"):
        conftest.pytest_runtest_setup(request.node)
    monkeypatch.setattr(conftest, "shared_present", lambda: True)
    conftest.pytest_runtest_setup(request.node)  # no skip where it exists
