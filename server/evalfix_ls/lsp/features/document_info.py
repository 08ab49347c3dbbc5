"""``evalfix/documentInfo`` (a custom request, client → server): which contract applies to an
open document and why, or why it is not checked — for a status item in the editor (the VS Code
extension shows ``title``, with ``reason``, ``decidedBy``, ``cases`` and ``readiness`` in its
tooltip). Params ``{"textDocument": {"uri": …}}``; the result is ``null`` for a document the
server does not know (not open). The same facts are in the hover on the root object."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import FeatureServer, feature
from .context import FeatureContext

if TYPE_CHECKING:  # the service is imported when the first request comes (start-up cost)
    from ...services.document_info import DocumentInfoJson

DOCUMENT_INFO = "evalfix/documentInfo"


def register(server: FeatureServer) -> None:
    # On a request worker like every feature: the case count and readiness scale with the document.
    @feature(server, DOCUMENT_INFO, uri_of=_uri, point=True, null_when_closed=True)
    def on_document_info(ctx: FeatureContext, params: object) -> DocumentInfoJson | None:
        from ...services.document_info import document_info

        return document_info(ctx.document, ctx.facts).to_json()


def _uri(params: object) -> str:
    """``params.textDocument.uri`` (pygls hands a custom request's params over as plain JSON)."""
    document = (
        params.get("textDocument") if isinstance(params, dict) else getattr(params, "textDocument", None)
    )
    uri = document.get("uri") if isinstance(document, dict) else getattr(document, "uri", None)
    return uri if isinstance(uri, str) else ""
