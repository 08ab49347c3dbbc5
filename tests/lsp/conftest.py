"""pytest-lsp fixtures: the real server over stdio (``python -m evalfix_ls``) with the
capabilities of real clients (profiles in ``lsp_support.py``). The tests initialize it themselves,
with workspaces they write to ``tmp_path``."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_lsp
from lsp_support import CLIENTS, FAULTY_SERVER, SERVER, Session, make_session
from pytest_lsp import ClientServerConfig, LanguageClient


def _profile(request: pytest.FixtureRequest, fixture: str) -> str:
    return request.node.callspec.params[fixture]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=CLIENTS)
async def lsp(lsp_client: LanguageClient) -> Any:
    """The real server with each client profile in turn; the test initializes it."""
    yield
    if not lsp_client.stopped:
        await lsp_client.shutdown_session()


@pytest.fixture
def session(lsp: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp, _profile(request, "lsp"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["vscode-pull"])
async def lsp_pull(lsp_client: LanguageClient) -> Any:
    yield
    if not lsp_client.stopped:
        await lsp_client.shutdown_session()


@pytest.fixture
def pull_session(lsp_pull: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp_pull, _profile(request, "lsp_pull"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["vscode-push", "emacs"])
async def lsp_push(lsp_client: LanguageClient) -> Any:
    yield
    if not lsp_client.stopped:
        await lsp_client.shutdown_session()


@pytest.fixture
def push_session(lsp_push: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp_push, _profile(request, "lsp_push"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=FAULTY_SERVER), params=["vscode-pull"])
async def lsp_faulty(lsp_client: LanguageClient) -> Any:
    yield
    if not lsp_client.stopped:
        await lsp_client.shutdown_session()


@pytest.fixture
def faulty_session(lsp_faulty: LanguageClient, request: pytest.FixtureRequest) -> Session:
    return make_session(lsp_faulty, _profile(request, "lsp_faulty"))
