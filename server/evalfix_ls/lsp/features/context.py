"""The immutable context a feature handler works on, and the one place offsets meet LSP positions.

A handler never receives the server object: it gets a ``FeatureContext`` — the document's snapshot,
the analysis of exactly that text (parsed once for every feature), the negotiated position
encoding, the effective settings, what the client can do, and a read-only view of the workspace —
and converts its service's plain results (code-point offsets) with ``range``/``position`` here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from ...config.model import Config
from ...text.line_index import Encoding, LineIndex
from ...text.pieces import Text
from ..scheduling.request_runner import NEVER_STOPPED, RequestToken
from ..session.client_features import ClientFeatures
from ..session.documents import Snapshot, lsp_range, path_to_uri, strict_offset
from ..session.workspace_index import RepoState

if TYPE_CHECKING:  # the analysis core is imported by the first analysis, not at start-up
    from ...analysis import Analysis
    from ...services.document import DocumentView
    from ...services.workspace_facts import WorkspaceFacts
    from .quick_trees import DocumentMemos


@dataclass(frozen=True)
class FeatureContext:
    snapshot: Snapshot
    document: DocumentView
    encoding: Encoding
    config: Config
    client: ClientFeatures
    repo: RepoState | None = None
    # The line index of another file (its open buffer, else its text on disk), for locations there.
    line_index_of: Callable[[Path], LineIndex | None] = lambda path: None
    # Whether the request is still wanted: every conversion below is a checkpoint (requests.py).
    token: RequestToken = NEVER_STOPPED
    # The document's per-case results of earlier requests (None: computed afresh).
    memos: DocumentMemos | None = None

    @property
    def uri(self) -> str:
        return self.snapshot.uri

    @cached_property
    def facts(self) -> WorkspaceFacts:
        """The workspace facts of the document's repository (built on first use: the workflow
        index may load from disk, so call it from a worker, not the event loop, on a first use)."""
        from ...services.workspace_facts import WorkspaceFacts

        if self.repo is None:
            return WorkspaceFacts.empty()
        return WorkspaceFacts(self.repo.root, self.repo.fs, self.repo.workflow_index())

    # -- conversions: the only place features meet positions -------------------------------------
    def offset(self, position: types.Position) -> int:
        """The code-point offset of a request position; ``InvalidParams`` when it lies outside."""
        self.token.check()
        try:
            return strict_offset(self.snapshot, position.line, position.character, self.encoding)
        except ValueError as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from None

    def range(self, start: int, end: int) -> types.Range:
        self.token.check()
        return lsp_range(self.snapshot.line_index, start, end, self.encoding)

    def position(self, offset: int) -> types.Position:
        self.token.check()
        line, character = self.snapshot.line_index.position(offset, self.encoding)
        return types.Position(line=line, character=character)

    def range_texts(self, spans: Sequence[tuple[int, int]]) -> list[str]:
        """The LSP ``Range`` of each ``(start, end)`` as JSON text, converted in one pass: for
        answers of thousands of ranges (symbols, lenses, links of a 10 MB suite) written as JSON
        directly, without ``lsprotocol`` objects and their unstructuring (``json_text``)."""
        self.token.check_now()
        points = self.snapshot.line_index.positions(
            [offset for start, end in spans for offset in (start, max(start, end))], self.encoding
        )
        check = self.token.check
        out = []
        for at in range(0, len(points), 2):
            check()
            (start_line, start_char), (end_line, end_char) = points[at], points[at + 1]
            out.append(
                f'{{"start": {{"line": {start_line}, "character": {start_char}}}, '
                f'"end": {{"line": {end_line}, "character": {end_char}}}}}'
            )
        return out

    def location(self, path: Path | None, start: int, end: int) -> types.Location | None:
        """A location in this document (``path`` None) or in another file of the workspace."""
        if path is None or path == self.snapshot.path:
            return types.Location(uri=self.uri, range=self.range(start, end))
        self.token.check()
        index = self.line_index_of(path)
        if index is None:
            return None
        return types.Location(uri=path_to_uri(path), range=lsp_range(index, start, end, self.encoding))


@dataclass(frozen=True)
class WorkspaceContext:
    """The context of a workspace-wide request (``workspace/symbol``): the facts of each known
    repository, the evals suites of the workspace folders, open buffers, the encoding."""

    facts: tuple[WorkspaceFacts, ...]
    evals_suites: tuple[Path, ...]
    encoding: Encoding
    open_text: Callable[[Path], str | None]
    line_index_of: Callable[[Path], LineIndex | None]

    def location(self, path: Path, start: int, end: int) -> types.Location | None:
        index = self.line_index_of(path)
        if index is None:
            return None
        return types.Location(uri=path_to_uri(path), range=lsp_range(index, start, end, self.encoding))


def document_view(
    snapshot: Snapshot, analysis: Analysis, repo_root: Path | None, *, text: Text
) -> DocumentView:
    """The service-layer view of one analysed snapshot; ``text`` is its ``str``, or for a
    completion (answered before the analysis built the ``str``) its ``content``."""
    from ...services.document import DocumentView

    rel_path = None
    if snapshot.path is not None and repo_root is not None:
        from ...workspace.view import relative_posix

        rel_path = relative_posix(snapshot.path, repo_root)
    return DocumentView(text, analysis, path=snapshot.path, repo_root=repo_root, rel_path=rel_path)
