"""pytest-lsp fixtures: the real server over stdio (``python -m evalfix_ls``) with the
capabilities of real clients (profiles in ``lsp_support.py``). The tests initialize it themselves,
with workspaces they write to ``tmp_path``. Every server a test starts is ended after it, within a
bound (``server_processes``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from lsp_support import CLIENTS, FAULTY_SERVER, SERVER, Session, make_session, server_fixture
from pytest_lsp import LanguageClient
from server_processes import end_started


def _profile(request: pytest.FixtureRequest, fixture: str) -> str:
    return request.node.callspec.params[fixture]


@pytest.fixture(autouse=True)
async def _no_server_outlives_its_test() -> AsyncIterator[None]:
    """A server the test started through RawClient or a fixture and did not end is ended here
    (its pipes released while the test's event loop still runs)."""
    yield
    await end_started()


lsp = server_fixture("lsp", SERVER, CLIENTS)  # the real server with each client profile in turn
lsp_pull = server_fixture("lsp_pull", SERVER, ["vscode-pull"])
lsp_push = server_fixture("lsp_push", SERVER, ["vscode-push", "emacs"])
lsp_faulty = server_fixture("lsp_faulty", FAULTY_SERVER, ["vscode-pull"])


@pytest.fixture
def session(lsp: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp, _profile(request, "lsp"))


@pytest.fixture
def pull_session(lsp_pull: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp_pull, _profile(request, "lsp_pull"))


@pytest.fixture
def push_session(lsp_push: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp_push, _profile(request, "lsp_push"))


@pytest.fixture
def faulty_session(lsp_faulty: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp_faulty, _profile(request, "lsp_faulty"))
