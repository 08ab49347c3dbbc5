"""Workspace events: watched files, configuration changes, workspace folders."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ...config.project_files import PROJECT_FILE, PYPROJECT
from .documents import path_to_uri, uri_to_path
from .settings import SECTION
from .workspace_index import FileEvent

if TYPE_CHECKING:
    from .host import Host

logger = logging.getLogger(__name__)

WATCHED_FILES_ID = "evalfix-ls.watched-files"
CONFIGURATION_ID = "evalfix-ls.configuration"

_CREATE_DELETE = int(types.WatchKind.Create) | int(types.WatchKind.Delete)
_ALL_KINDS = _CREATE_DELETE | int(types.WatchKind.Change)


def watchers() -> list[types.FileSystemWatcher]:
    """Creations and deletions anywhere (a ``source_refs`` target can be any file), content
    changes of JSON fixtures and of the project files."""
    return [
        types.FileSystemWatcher(glob_pattern="**/*", kind=_CREATE_DELETE),
        types.FileSystemWatcher(glob_pattern="**/*.json", kind=_ALL_KINDS),
        types.FileSystemWatcher(glob_pattern=f"**/{PYPROJECT}", kind=_ALL_KINDS),
        types.FileSystemWatcher(glob_pattern=f"**/{PROJECT_FILE}", kind=_ALL_KINDS),
    ]


async def register_dynamic_capabilities(ls: Host) -> None:
    registrations = []
    if ls.client_features.watch_dynamic:
        registrations.append(
            types.Registration(
                id=WATCHED_FILES_ID,
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers()),
            )
        )
    if ls.client_features.configuration_dynamic:
        registrations.append(
            types.Registration(
                id=CONFIGURATION_ID,
                method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION),
            )
        )
    if not registrations:
        return
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=registrations))
    except Exception as exc:  # the client said no: we still handle whatever it sends
        logger.warning("client/registerCapability was refused: %s", exc)


async def fetch_configuration(ls: Host) -> None:
    """Ask for section ``evalfix`` globally and per workspace folder (``workspace/configuration``)."""
    if not ls.client_features.configuration:
        return
    folders = list(ls.workspace_index.folders)
    items = [types.ConfigurationItem(section=SECTION)] + [
        types.ConfigurationItem(scope_uri=path_to_uri(folder), section=SECTION) for folder in folders
    ]
    try:
        values = await ls.workspace_configuration_async(types.ConfigurationParams(items=items))
    except Exception as exc:
        logger.warning("workspace/configuration failed, keeping the previous settings: %s", exc)
        return
    values = list(values or [])
    values = (values + [None] * len(items))[: len(items)]
    ls.settings.set_client_settings(values[0], dict(zip(folders, values[1:], strict=True)))


def _is_project_file(path: Path) -> bool:
    return path.name in (PROJECT_FILE, PYPROJECT)


def register(server: Host) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: Host, params: types.DidChangeWatchedFilesParams) -> None:
        events = []
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path is not None:
                events.append(FileEvent(path, int(change.type)))
        if not events:
            return
        ls.diagnostics.files_changed(events)
        if any(_is_project_file(event.path) for event in events):
            ls.settings.changed()
            ls.diagnostics.everything_changed()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: Host, params: types.DidChangeConfigurationParams) -> None:
        if ls.client_features.configuration:
            await fetch_configuration(ls)  # the pull model: the notification is only a signal
        else:
            ls.settings.set_client_settings(params.settings, {})
        ls.diagnostics.everything_changed()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(ls: Host, params: types.DidChangeWorkspaceFoldersParams) -> None:
        folders = [path for uri in ls.workspace.folders if (path := uri_to_path(uri)) is not None]
        ls.workspace_index.set_folders(folders)
        ls.settings.changed()
        await fetch_configuration(ls)
        ls.diagnostics.everything_changed()
