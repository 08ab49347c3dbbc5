"""``workspace/willRenameFiles`` and ``workspace/didRenameFiles`` over ``services.file_moves``.

Before a file or folder moves, the client asks for the edits that keep every fixture of its
repository pointing at it (open or not: an open buffer's text is what is edited, a closed file's
text on disk); after the move, the index and the findings are refreshed as for file events.
Registered for files and folders of every name: a fixture may cite any file.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ...text.line_index import LineIndex
from ..session.documents import Snapshot, lsp_range, path_to_uri, uri_to_path
from ..session.workspace_index import FileEvent
from . import FeatureServer

if TYPE_CHECKING:
    from ...services.file_moves import Replacement

# Per fixture file to edit: its text and the replacements in it.
Planned = dict[Path, tuple[str, list["Replacement"]]]

logger = logging.getLogger(__name__)

_CREATED, _DELETED = 1, 3

FILTERS = [
    types.FileOperationFilter(scheme="file", pattern=types.FileOperationPattern(glob="**/*", matches=matches))
    for matches in (types.FileOperationPatternKind.File, types.FileOperationPatternKind.Folder)
]


def register(server: FeatureServer) -> None:
    options = types.FileOperationRegistrationOptions(filters=FILTERS)
    server.feature(types.WORKSPACE_WILL_RENAME_FILES, options)(will_rename_files)
    server.feature(types.WORKSPACE_DID_RENAME_FILES, options)(did_rename_files)


def announce_to_every_client(capabilities: types.ClientCapabilities) -> None:
    """Make pygls announce the rename operations whatever the client declared: it announces a
    file operation only to a client that declares it, and Neovim 0.11 declares none, while its
    file explorers (oil.nvim, nvim-tree through nvim-lsp-file-operations) send
    ``willRenameFiles`` to a server that announces it. A client that does not know the
    capability ignores it."""
    workspace = capabilities.workspace = capabilities.workspace or types.WorkspaceClientCapabilities()
    operations = workspace.file_operations or types.FileOperationClientCapabilities()
    operations.will_rename = operations.did_rename = True
    workspace.file_operations = operations


def _renames(params: types.RenameFilesParams) -> list[tuple[Path, Path]]:
    pairs = []
    for item in params.files:
        old, new = uri_to_path(item.old_uri), uri_to_path(item.new_uri)
        if old is not None and new is not None and old != new:
            pairs.append((old, new))
    return pairs


async def will_rename_files(ls: FeatureServer, params: types.RenameFilesParams) -> types.WorkspaceEdit | None:
    renames = _renames(params)
    if not renames:
        return None
    # Snapshots are immutable: taken here, read on a worker (a repository walk, parses and line
    # indexes must not hold up the event loop).
    snapshots = {snapshot.path: snapshot for snapshot in ls.documents if snapshot.path is not None}
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(ls.executor, _edit_for, ls, renames, snapshots)
    except Exception:  # a failed plan must never stop the user's rename
        logger.exception("could not plan the edits for moved files; the move goes ahead without them")
        return None


def _edit_for(
    ls: FeatureServer, renames: list[tuple[Path, Path]], snapshots: dict[Path, Snapshot]
) -> types.WorkspaceEdit | None:
    planned = _plan(ls, renames, snapshots)
    return _workspace_edit(ls, planned, snapshots) if planned else None


def _plan(ls: FeatureServer, renames: list[tuple[Path, Path]], snapshots: dict[Path, Snapshot]) -> Planned:
    """Per fixture file: (its text, its replacements), over every repository a move lies in."""
    from ...services.file_moves import Move, Moves, fixture_files, plan_moves, plans_moves_in
    from ...workspace.files import read_file
    from ...workspace.walk import walk

    index = ls.workspace_index
    by_root: dict[Path, list[Move]] = defaultdict(list)
    for old, new in renames:
        root = index.repo_root_for(old, ls.settings.config_for(old).root)
        if plans_moves_in(root, old.absolute(), index.folders, snapshots):
            by_root[root].append(Move.of(old, new))
    discovered = index.discover(ls.settings.folder_config)
    planned: Planned = {}
    for root, moves in by_root.items():

        def text_of(path: Path, root: Path = root) -> str | None:
            snapshot = snapshots.get(path)
            if snapshot is not None:
                return snapshot.text
            file_text = read_file(path, root)
            return None if file_text.unavailable else file_text.text

        inside = [path for path in [*snapshots, *discovered] if root in path.parents]
        fixtures = {
            fixture.path: fixture
            for fixture in fixture_files(
                [*walk(root), *inside],
                root,
                Moves(moves),
                text_of,
                ls.settings.config_for,
                lambda path: path in snapshots,
            )
        }
        for path, replacements in plan_moves(Moves(moves), root, fixtures.values()).items():
            planned[path] = (fixtures[path].text, replacements)
    return planned


def _workspace_edit(
    ls: FeatureServer, planned: Planned, snapshots: dict[Path, Snapshot]
) -> types.WorkspaceEdit:
    """The edits in the negotiated encoding; an open document's are tied to its version (the
    client refuses them if the buffer changed since) and use the client's own URI."""
    document_changes = []
    changes = {}
    for path, (text, replacements) in sorted(planned.items()):
        snapshot = snapshots.get(path)
        line_index = snapshot.line_index if snapshot is not None else LineIndex(text)
        edits = [
            types.TextEdit(range=lsp_range(line_index, r.start, r.end, ls.encoding), new_text=r.new_text)
            for r in replacements
        ]
        uri = snapshot.uri if snapshot is not None else path_to_uri(path)
        version = snapshot.version if snapshot is not None else None
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        document_changes.append(types.TextDocumentEdit(text_document=identifier, edits=edits))
        changes[uri] = edits
    if ls.client_features.supports("workspace", "workspace_edit", "document_changes"):
        return types.WorkspaceEdit(document_changes=document_changes)
    return types.WorkspaceEdit(changes=changes)


def did_rename_files(ls: FeatureServer, params: types.RenameFilesParams) -> None:
    """The moved paths are gone and the new ones there: the same refresh as file events (which
    a client without file watchers never sends)."""
    events = []
    for old, new in _renames(params):
        events += [FileEvent(old, _DELETED), FileEvent(new, _CREATED)]
    if events:
        ls.diagnostics.files_changed(events)
