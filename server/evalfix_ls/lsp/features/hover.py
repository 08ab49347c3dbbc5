"""``textDocument/hover``: the service's markdown with the range of the node it describes."""

from __future__ import annotations

from dataclasses import replace

from lsprotocol import types

from . import FeatureServer, feature
from .context import FeatureContext


def register(server: FeatureServer) -> None:
    # Reads no findings, and only the tree around the cursor: the whole text of a new version is
    # not built for it (at 2 MB that copy, or the wait for a worker building it, was most of a
    # hover's time while the editor's other requests followed each keystroke).
    @feature(server, types.TEXT_DOCUMENT_HOVER, wait_for_analysis=False, whole_text=False, point=True)
    def on_hover(ctx: FeatureContext, params: types.HoverParams) -> types.Hover | None:
        from ...services.hover import hover
        from .results import result_hover

        offset = ctx.offset(params.position)
        found = hover(ctx.document, offset, ctx.facts)
        result = result_hover(ctx, offset)
        if result is not None:  # the run's verdict first, then what the schema says
            found = (
                result
                if found is None
                else replace(found, markdown=f"{result.markdown}\n\n---\n\n{found.markdown}")
            )
        if found is None:
            return None
        kind = types.MarkupKind.Markdown if ctx.client.hover_markdown else types.MarkupKind.PlainText
        return types.Hover(
            contents=types.MarkupContent(kind=kind, value=found.markdown),
            range=ctx.range(found.start, found.end),
        )
