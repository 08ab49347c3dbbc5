"""Editing features: one module per LSP method family, each a thin handler over a service.

How to add a feature:

1. write the protocol-free service in ``evalfix_ls/services/`` (plain data, code-point offsets)
   with unit tests;
2. add a module here with ``register(server)``, whose handlers are declared with
   ``@feature(server, types.TEXT_DOCUMENT_X, options)``: the decorator builds the
   ``FeatureContext`` (snapshot, its analysis, encoding, settings, workspace view) and passes it
   with the params; the handler calls the service and converts offsets with ``ctx.range`` /
   ``ctx.position``. The handler runs on a request worker, off the event loop
   (``lsp/scheduling/request_runner.py``): it is a plain function (not ``async``) that reads
   only its context and params, never the server object; each conversion is a checkpoint where
   a cancelled request or one whose document changed stops (``RequestCancelled`` /
   ``ContentModified``). A long loop that converts nothing calls ``ctx.token.check()`` itself.
   The handler imports its service in its body: the analysis core is not imported before
   ``initialize`` (``lifecycle.WARM_UP`` imports it on ``initialized``);
3. nothing to list: every module of this package that defines ``register`` is registered at
   start-up (so features added in parallel never edit a shared list);
4. pytest-lsp tests in ``tests/lsp/`` against the real server over stdio.

Features: ``completion`` (textDocument/completion, answered from the text of the new version
without waiting for its analysis), ``hover``, ``code_actions`` (quick fixes, fix-all, migrate),
``outline`` (document and workspace symbols, folding, selection ranges), ``links`` (document links,
definition), ``case_ids`` (references, highlights, rename), ``inline`` (inlay hints, code lenses,
the ``evalfix.caseCommand`` command).

Their support, beside them (no ``register``): ``context`` (the ``FeatureContext`` a handler reads),
``quick_trees`` (the tree of the current text without waiting for its analysis, and the memos
kept per document) and ``json_text`` (an answer of thousands of items written as JSON directly).
"""

from __future__ import annotations

import asyncio
import inspect
import pkgutil
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ...text.line_index import Encoding
from ..jsonrpc.encoded import encoded
from ..jsonrpc.trace import current_request, mark
from ..scheduling.request_runner import DOCUMENT, POINT, RequestRunner, RequestToken
from ..session.client_features import ClientFeatures
from ..session.documents import DocumentStore
from ..session.settings import Settings
from ..session.workspace_index import WorkspaceIndex
from .context import FeatureContext, WorkspaceContext

if TYPE_CHECKING:
    from pygls.progress import Progress

    from ..session.host import Diagnostics

F = TypeVar("F", bound=Callable[..., object])
# A feature handler: ``(ctx, params)``, its params as pygls structures them for its method (the
# lsprotocol type the handler annotates, or plain JSON for a custom request), hence ``Any`` here.
Handler = TypeVar("Handler", bound=Callable[[FeatureContext, Any], object])


class FeatureServer(Protocol):
    """What the feature modules need of the server: pygls' registration, the document store,
    the contexts handlers run on, and the state the few handlers on the event loop read."""

    @property
    def documents(self) -> DocumentStore: ...
    @property
    def requests(self) -> RequestRunner: ...
    @property
    def executor(self) -> Executor: ...
    @property
    def background(self) -> Executor: ...
    @property
    def workspace_index(self) -> WorkspaceIndex: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def encoding(self) -> Encoding: ...
    @property
    def client_features(self) -> ClientFeatures: ...
    @property
    def diagnostics(self) -> Diagnostics: ...

    def feature(self, feature_name: str, options: object = None) -> Callable[[F], F]: ...
    def command(self, command_name: str) -> Callable[[F], F]: ...
    def feature_context(self, uri: str) -> Awaitable[FeatureContext]: ...
    def feature_context_now(self, uri: str) -> Awaitable[FeatureContext]: ...
    def workspace_context(self) -> WorkspaceContext: ...
    def prepared_workspace_context(self) -> Awaitable[WorkspaceContext]: ...
    @property
    def work_done_progress(self) -> Progress: ...
    def workspace_code_lens_refresh_async(self, params: None) -> Awaitable[None]: ...


class _Uri(Protocol):
    @property
    def uri(self) -> str: ...


class DocumentParams(Protocol):
    """The params of a request about one document."""

    @property
    def text_document(self) -> _Uri: ...


def text_document_uri(params: DocumentParams) -> str:
    return params.text_document.uri


def feature(
    server: FeatureServer,
    method: str,
    options: object = None,
    *,
    wait_for_analysis: bool = True,
    whole_text: bool = True,
    uri_of: Callable[[Any], str] = text_document_uri,  # Any: the params, as for ``Handler``
    point: bool = False,
    null_when_closed: bool = False,
) -> Callable[[Handler], Handler]:
    """Register ``handler(ctx, params)`` for ``method``; ``uri_of(params)`` names the document
    (``params.text_document.uri`` unless said otherwise; an ``InvalidParams`` error answers a
    document that is not open). The handler runs on a request worker.

    By default the loop first waits for the analysis of the current text: for features that read
    its findings (code actions). A feature that does not (symbols, folding, hover, links, hints,
    lenses, completion) passes ``wait_for_analysis=False``: its context's tree is a local re-parse
    of the current text around the edits since the last tree (no findings, no contract results),
    so it costs the same whatever the findings and never waits for an analysis. Its text is then
    built on the worker, unless ``whole_text=False`` (completion reads around the cursor only).

    ``point=True``: the request is about one position and cheap (hover, completion, definition,
    selection, highlights): it runs in the point lane, never queued behind document-wide requests.

    ``null_when_closed=True``: a document that is not open (or params naming none) is answered
    ``null`` instead of an error (custom requests whose contract says so)."""
    lane = POINT if point else DOCUMENT

    def decorate(handler: Handler) -> Handler:
        if inspect.iscoroutinefunction(handler):
            raise TypeError(f"{handler.__name__}: a feature handler runs on a worker, it cannot be async")

        async def run(ls: FeatureServer, params: Any) -> object:
            mark("handler", lane=lane)
            if not point:
                # Let the requests read with this one go first: an editor sends a keystroke's
                # symbols, folding, lenses … and a hover together, and each document-wide
                # request builds its context on the loop (a local re-parse, settings) before it
                # reaches a worker; a hover read in the same batch waited behind all of them.
                await asyncio.sleep(0)
            uri = uri_of(params)
            if null_when_closed and (not uri or ls.documents.get(uri) is None):
                return None
            ctx = await (ls.feature_context(uri) if wait_for_analysis else ls.feature_context_now(uri))
            snapshot = ctx.snapshot
            # A document-wide request gives way to point requests at its checkpoints.
            give_way = ls.requests.point_first.give_way if not point else _never
            token = RequestToken(lambda: ls.documents.get(uri) is snapshot, give_way)
            ctx = replace(ctx, token=token)
            mark("context")
            if point:  # from now (not while it waited for an analysis) until its answer is queued
                ls.requests.point_first.begin(current_request.get())  # (EvalfixProtocol.write_response)
            # The answer is written as JSON on the worker too: thousands of symbols are not
            # unstructured on the loop.
            return await ls.requests.run(
                token, lambda: encoded(handler(_with_text(ctx, whole_text), params)), lane=lane
            )

        run.__name__ = handler.__name__
        register = server.feature(method, options) if options is not None else server.feature(method)
        register(run)
        return handler

    return decorate


def _never() -> bool:
    """A point request gives way to nothing."""
    return False


def _with_text(ctx: FeatureContext, whole_text: bool) -> FeatureContext:
    """``ctx`` whose document text is the ``str`` (built here, on the worker, once per snapshot)
    when the handler needs the whole text and the context holds pieces of it."""
    if not whole_text or isinstance(ctx.document.text, str):
        return ctx
    return replace(ctx, document=replace(ctx.document, text=ctx.snapshot.text))


def feature_modules() -> list[str]:
    """The feature modules of this package, in name order."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


def register_all(server: FeatureServer) -> None:
    for name in feature_modules():
        # ``__import__``, not ``importlib.import_module``: ``python -X importtime`` (bench.startup)
        # sees only the imports made through it
        __import__(f"{__name__}.{name}")
        module = sys.modules[f"{__name__}.{name}"]
        if hasattr(module, "register"):
            module.register(server)
