"""``evalfix/documentInfo`` (a custom request, client → server): which contract applies to an
open document and why, or why it is not checked — for a status item in the editor (the VS Code
extension shows ``title``, with ``reason``, ``decidedBy``, ``cases`` and ``readiness`` in its
tooltip). Params ``{"textDocument": {"uri": …}}``; the result is ``null`` for a document the
server does not know (not open). The same facts are in the hover on the root object."""

from __future__ import annotations

from typing import Any

from ...services.document_info import document_info

DOCUMENT_INFO = "evalfix/documentInfo"


def register(server: Any) -> None:
    @server.feature(DOCUMENT_INFO)
    async def on_document_info(ls: Any, params: Any) -> dict[str, Any] | None:
        uri = _uri(params)
        if uri is None or ls.documents.get(uri) is None:
            return None
        ctx = await ls.feature_context(uri)
        return document_info(ctx.document, ctx.facts).to_json()


def _uri(params: Any) -> str | None:
    """``params.textDocument.uri`` (pygls hands a custom request's params over as plain JSON)."""
    document = (
        params.get("textDocument") if isinstance(params, dict) else getattr(params, "textDocument", None)
    )
    uri = document.get("uri") if isinstance(document, dict) else getattr(document, "uri", None)
    return uri if isinstance(uri, str) else None
