"""Positions in another file than the request's (a finding's related location, a reference, a
workspace symbol): that file's uri and line index, read once here for every feature."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...text.line_index import LineIndex
from .documents import Snapshot, path_to_uri

# The open buffer of a path, or None (the server reads its document store).
OpenLookup = Callable[[Path], "Snapshot | None"]


def uri_and_lines(
    path: Path, repo_root: Path | None, open_lookup: OpenLookup
) -> tuple[str, LineIndex] | None:
    """(uri, line index) of ``path``: the open buffer, else the file on disk. Only a path inside
    ``repo_root`` is resolved at all, through workspace/confine.py (a link leading out of the
    repository is not followed, and with no repository nothing is read): the positions sent would
    otherwise describe an outside file."""
    from ...workspace.confine import resolve_within
    from ...workspace.files import read_file

    if repo_root is None or resolve_within(path, repo_root) is None:
        return None
    snapshot = open_lookup(path)
    if snapshot is not None:
        return (snapshot.uri, snapshot.line_index)
    file_text = read_file(path, repo_root)
    return None if file_text.unavailable else (path_to_uri(path), LineIndex(file_text.text))
