"""``initialize`` / ``initialized`` / ``shutdown``: negotiate, configure, start the first scan."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..text.line_index import Encoding
from .features.file_moves import announce_to_every_client
from .session.client_features import ClientFeatures
from .session.documents import uri_to_path
from .session.workspace_events import fetch_configuration, register_dynamic_capabilities
from .warm_up import prepare_codecs, prepare_editing_messages, prepare_hashing, prepare_type_checks

if TYPE_CHECKING:
    from .session.host import Host

logger = logging.getLogger(__name__)


def negotiated_encoding(value: types.PositionEncodingKind | str | None) -> Encoding:
    """pygls picks the client's first offer among utf-8/16/32 (LSP default: utf-16)."""
    try:
        return Encoding(value.value if isinstance(value, types.PositionEncodingKind) else str(value))
    except ValueError:
        return Encoding.UTF16


def workspace_folders(params: types.InitializeParams) -> list[Path]:
    uris = [folder.uri for folder in params.workspace_folders or ()]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    paths = [path for uri in uris if (path := uri_to_path(uri)) is not None]
    if not paths and params.root_path:
        paths = [Path(params.root_path).absolute()]
    return paths


def warm_up(
    structure: Callable[[dict[str, Any]], object],
    serialize: Callable[[object], object],
    structure_answer: Callable[[str, dict[str, Any]], object],
) -> None:
    """Import the analysis core and the features' services on a worker while the client is still
    busy with ``initialized``, so the first diagnostics and requests do not pay for them (they are
    not needed to answer ``initialize``: the feature modules import their services lazily); and
    build what an editing session builds once for good before the first document (``structure``,
    ``serialize`` and ``structure_answer``: the protocol's; see ``warm_up``)."""
    import importlib

    for name in WARM_UP:
        importlib.import_module(name, __package__)
    prepare_editing_messages(structure, serialize, structure_answer)
    prepare_type_checks()
    prepare_codecs()
    prepare_hashing()


def prepare_folders(ls: Host) -> None:
    """Build each workspace folder's configuration and repository state once the settings are
    known, before any document: kept for good, they were built at the first document's open,
    during its analysis, and held one of its pymalloc arenas after close."""
    for folder in ls.workspace_index.folders:
        # (a path inside the folder: its files' repository root is the folder's)
        ls.workspace_index.repo_for(folder / "skills", ls.settings.folder_config(folder))


WARM_UP = (  # relative to this package
    "..analysis",
    "..parser.incremental",  # an edit's re-parse (its modules were first imported by a keystroke)
    "..contracts.evals.check",
    "..contracts.placed",  # the cached cases' blocks (an analysis with a case cache)
    ".diagnostics.case_blocks",  # their diagnostics (the server's conversion)
    "..contracts.workflow.check",
    "..contracts.workflow.index",
    "..services.outline",
    "..services.hover",
    "..services.inline_facts",
    "..services.links",
    "..services.completion",
    "..services.finding_index",
    "..services.fixes",
    "..services.migrate",
    "..services.case_ids",
    "..services.document_info",
    "..services.document_caches",  # emptied when the last document closes
    "..services.run_results",  # run results: lenses, hints and diagnostics of every eval suite
    "..results.index",  # (and the producers' readers it imports: calendar, datetime)
)


def register(server: Host) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: Host, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.client_features = ClientFeatures.from_capabilities(params.capabilities, params.client_info)
        announce_to_every_client(params.capabilities)  # read by pygls once this handler returns
        ls.encoding = negotiated_encoding(ls.workspace.position_encoding)
        # Without file events, existence facts cannot be cached (decided before any repository).
        ls.workspace_index.watching = ls.client_features.watch_dynamic
        ls.workspace_index.set_folders(workspace_folders(params))
        ls.settings.init_options = params.initialization_options
        ls.settings.changed()
        features = ls.client_features
        logger.info(
            "evalfix-ls %s: %s positions, %s diagnostics, file events %s, folders: %s",
            ls.version,
            ls.encoding.value,
            "pull" if features.pull else "push",
            "watched" if features.watch_dynamic else "not available (re-checking the disk instead)",
            ", ".join(str(folder) for folder in ls.workspace_index.folders) or "none",
        )

    @server.feature(types.INITIALIZED)
    async def initialized(ls: Host, params: types.InitializedParams) -> None:
        ls.background.submit(
            warm_up, ls.protocol.structure_message, ls.protocol.serialize, ls.protocol.structure_answer
        )
        try:
            await fetch_configuration(ls)
        finally:
            ls.diagnostics.settings_ready.set()
        prepare_folders(ls)
        ls.diagnostics.recheck_open_documents()  # any opened while the settings were on their way
        await register_dynamic_capabilities(ls)
        ls.diagnostics.initialized()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: Host, params: None) -> None:
        ls.diagnostics.cancel_all()
        ls.executor.shutdown(wait=False, cancel_futures=True)
        ls.background.shutdown(wait=False, cancel_futures=True)
