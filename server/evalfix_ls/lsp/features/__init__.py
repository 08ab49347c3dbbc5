"""Editing features: one module per LSP method family, each a thin handler over a service.

How to add a feature:

1. write the protocol-free service in ``evalfix_ls/services/`` (plain data, code-point offsets)
   with unit tests;
2. add a module here with ``register(server)``, whose handlers are declared with
   ``@feature(server, types.TEXT_DOCUMENT_X, options)``: the decorator builds the
   ``FeatureContext`` (snapshot, its analysis, encoding, settings, workspace view) and passes it
   with the params; the handler calls the service and converts offsets with ``ctx.range`` /
   ``ctx.position``;
3. nothing to list: every module of this package that defines ``register`` is registered at
   start-up (so features added in parallel never edit a shared list);
4. pytest-lsp tests in ``tests/lsp/`` against the real server over stdio.

Features: ``completion`` (textDocument/completion, answered from the text of the new version
without waiting for its analysis), ``hover``, ``code_actions`` (quick fixes, fix-all, migrate),
``outline`` (document and workspace symbols, folding, selection ranges), ``links`` (document links,
definition), ``case_ids`` (references, highlights, rename), ``inline`` (inlay hints, code lenses,
the ``evalfix.caseCommand`` command).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

from ...parser.gcpause import gc_paused
from ..context import FeatureContext

Handler = Callable[[FeatureContext, Any], Any]


def feature(
    server: Any, method: str, options: Any = None, *, wait_for_analysis: bool = True
) -> Callable[[Handler], Handler]:
    """Register ``handler(ctx, params)`` for ``method``; ``params.text_document.uri`` names the
    document (an ``InvalidParams`` error answers a document that is not open). With
    ``wait_for_analysis=False`` the context's tree is a cheap local re-parse of the current text
    (no findings) instead of its full analysis: for requests sent while typing (completion)."""

    def decorate(handler: Handler) -> Handler:
        async def run(ls: Any, params: Any) -> Any:
            uri = params.text_document.uri
            ctx = await (ls.feature_context(uri) if wait_for_analysis else ls.feature_context_now(uri))
            # The collector is paused while a handler runs: a few thousand small allocations next
            # to a million-node tree otherwise trigger full collections that walk the whole tree
            # (document symbols of a 10 MB suite: 1.25 s with the collector, 10 ms without).
            with gc_paused():
                result = handler(ctx, params)
            return await result if inspect.isawaitable(result) else result

        run.__name__ = handler.__name__
        register = server.feature(method, options) if options is not None else server.feature(method)
        register(run)
        return handler

    return decorate


def feature_modules() -> list[str]:
    """The feature modules of this package, in name order."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


def register_all(server: Any) -> None:
    for name in feature_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        if hasattr(module, "register"):
            module.register(server)
