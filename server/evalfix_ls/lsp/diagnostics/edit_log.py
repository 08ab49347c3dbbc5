"""The edit log: per open document, the edits between its snapshot revisions.

An analysis re-parses only around the edits since the previous result's tree, and a feature
answered before the analysis (completion) re-parses locally from the same edits. Revisions, not
versions: a client may send the same version number for two texts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...memory.tables import pop_and_shrink
from ...text.pieces import Text, as_str
from ..session.documents import Edit, Snapshot, compose

MAX_TRACKED_EDITS = 1000  # edits remembered per document between two analyses


@dataclass(frozen=True, slots=True)
class Since:
    """How an earlier text relates to a snapshot: the same text, and the span the edits between
    them changed (None when they are not all known)."""

    same: bool
    edit: Edit | None


SAME = Since(True, None)


class EditLog:
    """``(from revision, to revision, edit)`` per open document, oldest first."""

    def __init__(self) -> None:
        self._edits: dict[str, list[tuple[int, int, Edit | None]]] = {}
        self._latest_revision: dict[str, int] = {}

    def opened(self, snapshot: Snapshot) -> None:
        self._edits[snapshot.uri] = []
        self._latest_revision[snapshot.uri] = snapshot.revision

    def record(self, snapshot: Snapshot) -> None:
        edits = self._edits.setdefault(snapshot.uri, [])
        if len(edits) >= MAX_TRACKED_EDITS:  # nobody asked for a while: start from scratch
            edits.clear()
        previous = self._latest_revision.get(snapshot.uri)
        if previous is not None:
            edits.append((previous, snapshot.revision, snapshot.edit))
        self._latest_revision[snapshot.uri] = snapshot.revision

    def closed(self, uri: str) -> None:
        pop_and_shrink(self._edits, uri)
        pop_and_shrink(self._latest_revision, uri)

    def tracked(self) -> list[str]:
        return list(self._edits)

    def between(self, uri: str, from_revision: int, to_revision: int) -> Edit | None:
        """The span the edits from snapshot ``from_revision`` to ``to_revision`` changed (None when
        they are not all remembered)."""
        revision, edits = from_revision, []
        for start, end, edit in self._edits.get(uri, ()):
            if start == revision:
                edits.append(edit)
                revision = end
        return compose(edits) if revision == to_revision else None

    def same_text(self, uri: str, text: Text, revision: int | None, snapshot: Snapshot) -> bool:
        """Is ``text`` (that of snapshot ``revision``) the text of ``snapshot``?"""
        return self.since(uri, text, revision, snapshot).same

    def since(self, uri: str, text: Text, revision: int | None, snapshot: Snapshot) -> Since:
        """How ``text`` (that of snapshot ``revision``) relates to ``snapshot``, read once for
        everything a request decides from it (reuse the result, re-parse around the edit). The
        same text is decided from the edits between the two when they are known (an undo gives
        the same text back): comparing two versions of a 10 MB document would build the new
        one's ``str`` on the event loop."""
        content = snapshot.content
        if text is content or revision == snapshot.revision:
            return SAME
        edit = self.between(uri, revision, snapshot.revision) if revision is not None else None
        if len(text) != len(content):
            return Since(False, edit)
        if edit is not None:
            same_span = edit.old_end == edit.new_end
            same = same_span and text[edit.start : edit.old_end] == content[edit.start : edit.new_end]
            return Since(same, edit)
        return Since(as_str(text) == as_str(content), None)

    def forget_until(self, uri: str, revision: int | None) -> None:
        """A result of ``revision`` is stored: nothing starts from an older text any more."""
        edits = self._edits.get(uri)
        if edits is not None and revision is not None:
            edits[:] = [entry for entry in edits if entry[1] > revision]
