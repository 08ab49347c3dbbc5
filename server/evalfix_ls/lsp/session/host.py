"""``Host``: what the lifecycle, workspace-event and diagnostics modules need of the server: pygls'
``LanguageServer`` plus the server's state (this family's stores, the request runner) and
text-synchronisation hooks. The JSON-RPC protocol, a floor below, types what it calls back
against its own ``jsonrpc.protocol.ProtocolHost`` instead.

Those modules are imported by ``server.py``; typing them against the ``EvalfixServer`` class would
make each import the server back (an import cycle). They depend on this base class instead, which
``EvalfixServer`` extends. A base class rather than a ``Protocol``: pygls builds the protocol
object with the server (``protocol_cls(server, converter)``), and its protocol's constructor takes
a ``LanguageServer``; deriving from it also gives every pygls call these modules make pygls' own
types. Feature handlers need none of it: they work on a ``FeatureContext`` (see
``features/__init__.py`` for what registering one needs).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ...text.line_index import Encoding
from ..jsonrpc.encoded import EncodedResult
from ..jsonrpc.pygls_private import HookedProtocol
from ..scheduling.request_runner import RequestRunner
from ..scheduling.supersession import Supersession
from .client_features import ClientFeatures
from .documents import DocumentStore
from .settings import Settings
from .workspace_index import FileEvent, WorkspaceIndex

T = TypeVar("T")


class Diagnostics(Protocol):
    """What the modules typed against ``Host`` call on the diagnostics family (its
    ``DiagnosticsManager``, whose module is imported by the server after this one)."""

    # Called (on the event loop) when the workspace index learnt new fixture texts.
    index_listeners: list[Callable[[], None]]
    # Called (on the event loop) with the paths of file events / on ``initialized``.
    file_listeners: list[Callable[[list[Path]], object]]
    started_listeners: list[Callable[[], None]]
    # Run results' diagnostics, joined to the document's own (``diagnostics.manager.ExtraItems``;
    # its ``Result`` is the diagnostics family's, which this floor does not import).
    extra_items: Callable[[str, Any], Awaitable[tuple[str, Sequence[str]]]] | None

    @property
    def settings_ready(self) -> asyncio.Event: ...
    def initialized(self) -> None: ...
    def recheck_open_documents(self) -> None: ...
    async def extra_for(self, uri: str, result: Any) -> tuple[str, Sequence[str]]: ...
    def everything_changed(self) -> None: ...
    def files_changed(self, events: list[FileEvent]) -> None: ...
    def cancel_all(self) -> None: ...
    def spawn(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]: ...
    async def pull_document(
        self, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport: ...
    async def pull_workspace(self, params: types.WorkspaceDiagnosticParams) -> EncodedResult: ...


class Host(LanguageServer):
    """The server's state and the hooks ``EvalfixProtocol`` calls (``EvalfixServer`` sets and
    implements them)."""

    protocol: HookedProtocol  # (``EvalfixProtocol``)
    documents: DocumentStore
    workspace_index: WorkspaceIndex
    settings: Settings
    client_features: ClientFeatures
    encoding: Encoding
    executor: ThreadPoolExecutor  # analyses of open documents
    background: ThreadPoolExecutor  # the workspace's work: walk, index load, closed files
    loop: asyncio.AbstractEventLoop | None
    diagnostics: Diagnostics
    supersession: Supersession  # which answers were asked again on a newer text
    requests: RequestRunner  # the request workers (and which requests go first)

    # text synchronisation (EvalfixProtocol calls these, through ``ProtocolHost``)
    def on_did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        raise NotImplementedError

    def on_did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        raise NotImplementedError

    def on_did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        raise NotImplementedError
