"""``textDocument/documentLink`` and ``textDocument/definition`` for the paths a fixture names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..jsonrpc.encoded import EncodedResult
from ..session.documents import path_to_uri
from . import FeatureServer, feature, json_text
from .context import FeatureContext

if TYPE_CHECKING:
    from ...services.links import Link


def register(server: FeatureServer) -> None:
    # Neither reads findings: answered from the current text's tree without waiting for its analysis.
    link_options = types.DocumentLinkOptions(resolve_provider=False)
    feature(server, types.TEXT_DOCUMENT_DOCUMENT_LINK, link_options, wait_for_analysis=False)(links)
    feature(server, types.TEXT_DOCUMENT_DEFINITION, wait_for_analysis=False, point=True)(go_to_definition)


def _target_uri(link: Link) -> str:
    uri = path_to_uri(link.target)
    return f"{uri}#L{link.line + 1}" if link.line is not None else uri


def links(ctx: FeatureContext, params: types.DocumentLinkParams) -> EncodedResult:
    """Written as JSON directly (``json_text``): a 10 MB suite names thousands of paths."""
    from ...services.links import document_links

    tooltips = bool(ctx.client.supports("text_document", "document_link", "tooltip_support"))
    found = document_links(ctx.document, ctx.facts, ctx.memos.links if ctx.memos is not None else None)
    ranges = ctx.range_texts([(link.start, link.end) for link in found])
    return EncodedResult(
        json_text.array(
            json_text.members(
                (
                    ("range", rng),
                    ("target", json_text.string(_target_uri(link))),
                    ("tooltip", json_text.string(link.tooltip) if tooltips and link.tooltip else None),
                )
            )
            for link, rng in zip(found, ranges, strict=True)
        )
    )


def go_to_definition(ctx: FeatureContext, params: types.DefinitionParams) -> list[types.Location] | None:
    from ...services.links import definition

    link = definition(ctx.document, ctx.facts, ctx.offset(params.position))
    if link is None:
        return None
    line = link.line or 0
    at = types.Position(line=line, character=0)
    return [types.Location(uri=path_to_uri(link.target), range=types.Range(start=at, end=at))]
