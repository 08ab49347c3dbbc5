"""``Host``: what the protocol, lifecycle, workspace-event and diagnostics modules need of the
server, as a structural type.

Those modules are imported by ``server.py``; typing them against the ``EvalfixServer`` class would
make each import the server back (an import cycle, even under ``TYPE_CHECKING``). They depend on
this description instead, which ``EvalfixServer`` satisfies. Feature handlers need none of it:
they work on a ``FeatureContext``.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor
from typing import Any, Protocol

from lsprotocol import types

from ..parser.line_index import Encoding
from .capabilities import ClientFeatures
from .documents import DocumentStore
from .settings import Settings
from .workspace_index import WorkspaceIndex


class Host(Protocol):
    """The server's state and the pygls calls these modules make."""

    documents: DocumentStore
    workspace_index: WorkspaceIndex
    settings: Settings
    client_features: ClientFeatures
    encoding: Encoding
    executor: Executor
    loop: asyncio.AbstractEventLoop | None
    diagnostics: Any  # the DiagnosticsManager (typed loosely: its module imports this one)
    name: str
    version: str

    # pygls' LanguageServer
    @property
    def protocol(self) -> Any: ...
    @property
    def workspace(self) -> Any: ...
    @property
    def work_done_progress(self) -> Any: ...
    def feature(self, feature_name: str, options: Any | None = None) -> Any: ...
    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None: ...
    def workspace_diagnostic_refresh(self, params: None) -> Any: ...
    def workspace_configuration_async(self, params: types.ConfigurationParams) -> Any: ...
    def client_register_capability_async(self, params: types.RegistrationParams) -> Any: ...
    def window_log_message(self, params: types.LogMessageParams) -> None: ...

    # text synchronisation and error reporting (EvalfixProtocol calls these)
    def on_did_open(self, params: types.DidOpenTextDocumentParams) -> None: ...
    def on_did_change(self, params: types.DidChangeTextDocumentParams) -> None: ...
    def on_did_close(self, params: types.DidCloseTextDocumentParams) -> None: ...
    def report_server_error(self, error: Exception, source: Any) -> None: ...
