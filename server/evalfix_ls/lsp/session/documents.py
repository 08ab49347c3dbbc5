"""Open documents: our own text store, versions and line index; incremental synchronisation.

pygls applies incremental edits through ``TextDocument.lines`` (``str.splitlines()``), which also
breaks lines at U+2028, U+2029, U+0085 … — characters that are legal inside JSON strings — so an
edit below such a character lands on the wrong line. We keep our own copy of every open document and
apply changes with ``text.line_index.LineIndex``, which counts only the LSP line breaks.

Everything here runs on the event loop thread, in time proportional to the edit, not to the
document: a change makes a ``PieceText`` (no copy of the text) and splices a block-structured line
index (``LineStarts``). A ``Snapshot`` is immutable and may be handed to worker threads; the first
one to read ``snapshot.text`` builds the ``str``.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from ...memory.tables import pop_and_shrink
from ...text.line_index import LINE_BREAK, Encoding, LineIndex
from ...text.pieces import PieceText, Text, as_str

_REVISIONS = itertools.count(1)
URIS_KEPT = 1 << 15  # paths whose URI is remembered (a monorepo's 12,000 fixture files fit)


class Snapshot:
    """One version of one document. Immutable; the line index is built on first use, once.

    After an incremental change the text is a ``PieceText`` (the previous text and the edit):
    ``content`` reads around a position without building the new ``str``; ``text`` builds it
    (once, thread-safe) — the analysis does, on a worker thread, not the event loop."""

    __slots__ = ("uri", "path", "version", "_content", "language_id", "edit", "revision", "_index", "_lock")

    def __init__(
        self,
        uri: str,
        path: Path | None,
        version: int,
        text: Text,
        language_id: str = "json",
        index: LineIndex | None = None,
        edit: Edit | None = None,
    ) -> None:
        self.uri = uri
        self.path = path
        self.version = version
        self._content = text
        self.language_id = language_id
        # What changed since the previous version (None: unknown, e.g. a full replacement).
        self.edit = edit
        # Unique per text the store ever held: versions can be reused by a client (v5, v4, v5
        # again), so results are matched to the snapshot they were computed from by this.
        self.revision = next(_REVISIONS)
        self._index = index
        self._lock = threading.Lock()

    @property
    def content(self) -> Text:
        """The text for reading around a position: the ``str`` once it is built, else the
        ``PieceText`` (which reads only the pieces a slice covers)."""
        content = self._content
        if not isinstance(content, str) and content.built:
            content = self._content = content.text
        return content

    @property
    def text(self) -> str:
        """The whole text (built from the pieces on first use after an edit)."""
        return as_str(self._content)

    def __len__(self) -> int:
        return len(self.content)

    @property
    def line_index(self) -> LineIndex:
        index = self._index
        if index is None:
            with self._lock:  # workers and the loop may ask at once: build it once
                if self._index is None:
                    self._index = LineIndex(self.content)
                index = self._index
        return index

    def __repr__(self) -> str:
        return f"Snapshot({self.uri!r}, version={self.version}, {len(self.content)} chars)"


@dataclass(frozen=True, slots=True)
class Edit:
    """``[start, old_end)`` of the old text became ``[start, new_end)`` of the new text."""

    start: int
    old_end: int
    new_end: int

    def then(self, later: Edit) -> Edit:
        """One edit covering ``self`` followed by ``later`` (whose offsets are in the text
        ``self`` produced)."""
        start = min(self.start, later.start)
        end_between = max(self.new_end, later.old_end)  # in the intermediate text
        return Edit(
            start,
            end_between - (self.new_end - self.old_end),
            end_between + (later.new_end - later.old_end),
        )


NO_EDIT = Edit(0, 0, 0)


def compose(edits: Iterable[Edit | None]) -> Edit | None:
    """The span covering a sequence of edits; None when one of them is unknown."""
    total: Edit | None = None
    for edit in edits:
        if edit is None:
            return None
        if edit.start == edit.old_end == edit.new_end:
            continue  # changed nothing: must not widen the span
        total = edit if total is None else total.then(edit)
    return total if total is not None else NO_EDIT


class UnknownDocument(LookupError):
    """A request or notification named a document that is not open."""


def uri_to_path(uri: str) -> Path | None:
    """The local file path of a ``file:`` URI, else None (untitled buffers, other schemes)."""
    if not uri.startswith("file:"):
        return None
    from pygls.uris import to_fs_path

    path = to_fs_path(uri)
    return Path(path).absolute() if path else None


@functools.lru_cache(maxsize=URIS_KEPT)
def path_to_uri(path: Path) -> str:
    """The ``file:`` URI of ``path``, remembered: pygls quotes each part of the path (15 µs), and
    a ``workspace/diagnostic`` over 12,000 files asked for each of them twice per request (a
    third of a second request's 0.2 s when every report was unchanged)."""
    from pygls.uris import from_fs_path

    return from_fs_path(str(path)) or path.as_uri()


ContentChange = types.TextDocumentContentChangeEvent  # ranged, or the whole text


def change_range(change: ContentChange) -> types.Range | None:
    """The range of a content change, or None for a whole-document replacement."""
    return change.range if isinstance(change, types.TextDocumentContentChangePartial) else None


def spliced_index(index: LineIndex, edit: Edit, text: Text) -> LineIndex:
    """The line index of ``text`` (``index.text`` after ``edit``) without scanning all of it: line
    starts before the edit are kept, those after it shifted (lazily: ``LineStarts`` moves whole
    blocks), and only the lines around the edit scanned again (one line either side, so a ``\r``
    + ``\n`` pair formed or split at either edge is seen)."""
    starts = index.line_starts
    delta = edit.new_end - edit.old_end
    first = starts.line_of(max(edit.start - 1, 0))  # line holding start - 1
    low = starts[first]
    after = starts.line_of(edit.old_end + 1) + 1  # first line start beyond old_end + 1
    if after < len(starts):
        high = starts[after] + delta
        stop = after + 1
    else:
        high, stop = len(text), len(starts)
    middle = [low + match.end() for match in LINE_BREAK.finditer(text[low:high])]
    return LineIndex.with_starts(text, starts.replaced(first + 1, stop, middle, delta))


_CHUNK = 1 << 16


def diff_edit(old: str, new: str) -> Edit:
    """The smallest span that turns ``old`` into ``new`` (their common prefix and suffix kept).

    Compared chunk by chunk with slice equality (C speed), then narrowed by bisection inside the
    first chunk that differs: a few milliseconds for megabytes of unchanged text.
    """
    limit = min(len(old), len(new))
    prefix = _common_length(old, new, limit, from_end=False)
    suffix = _common_length(old, new, limit - prefix, from_end=True)
    return Edit(prefix, len(old) - suffix, len(new) - suffix)


def _common_length(a: str, b: str, limit: int, *, from_end: bool) -> int:
    def same(lo: int, hi: int) -> bool:
        if from_end:
            return a[len(a) - hi : len(a) - lo] == b[len(b) - hi : len(b) - lo]
        return a[lo:hi] == b[lo:hi]

    done = 0
    while done < limit:
        step = min(_CHUNK, limit - done)
        if same(done, done + step):
            done += step
            continue
        lo, hi = 0, step  # the common run inside this chunk is shorter than hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if same(done, done + mid):
                lo = mid
            else:
                hi = mid - 1
        return done + lo
    return done


def apply_changes(
    text: Text,
    index: LineIndex | None,
    changes: Sequence[ContentChange],
    encoding: Encoding,
) -> tuple[Text, LineIndex | None, Edit | None]:
    """Apply LSP content changes in order. Each range is read against the text produced by the
    previous change (as the protocol requires) in ``encoding`` units. Positions past the end of a
    line or of the text are clamped to it (LSP: "the character value is defaulted back to the line
    length"). Returns the new text (a ``PieceText`` after a ranged change: no copy of the
    document), its line index when still valid, and the span that changed (for a whole-document
    replacement, the span where old and new text differ)."""
    edits: list[Edit | None] = []
    for change in changes:
        rng = change_range(change)
        if rng is None:
            # Clients that send the whole text on every keystroke still change a few characters:
            # find that span, so the parse and the line index are updated around it only.
            edit = diff_edit(as_str(text), change.text)
            text = change.text
            index = None if index is None else spliced_index(index, edit, text)
            edits.append(edit)
            continue
        if index is None:
            index = LineIndex(text)
        start = index.offset(rng.start.line, rng.start.character, encoding)
        end = index.offset(rng.end.line, rng.end.character, encoding)
        if end < start:  # a reversed range: be lenient, treat it as the span between the two
            start, end = end, start
        if start == end and not change.text:
            continue
        text = PieceText.of(text).replaced(start, end, change.text)
        edit = Edit(start, end, start + len(change.text))
        edits.append(edit)
        index = spliced_index(index, edit, text)
    return text, index, compose(edits)


def strict_offset(snapshot: Snapshot, line: int, character: int, encoding: Encoding) -> int:
    """The offset of a position sent in a request (hover, completion, …); raises ``ValueError``
    for a position outside the document (a negative value, or a line past the last one)."""
    index = snapshot.line_index
    if line < 0 or character < 0:
        raise ValueError(f"position ({line}, {character}) is negative")
    if line >= index.line_count:
        raise ValueError(f"line {line} is past the end of the document ({index.line_count} lines)")
    return index.offset(line, character, encoding)


class DocumentStore:
    """The open documents, by URI exactly as the client spelled it."""

    def __init__(self) -> None:
        self._docs: dict[str, Snapshot] = {}
        self._uri_by_path: dict[Path, str] = {}

    def open(self, uri: str, version: int, text: str, language_id: str = "json") -> Snapshot:
        snapshot = Snapshot(uri, uri_to_path(uri), version, text, language_id)
        self._docs[uri] = snapshot
        if snapshot.path is not None:
            self._uri_by_path[snapshot.path] = uri
        return snapshot

    def change(
        self,
        uri: str,
        version: int,
        changes: Sequence[ContentChange],
        encoding: Encoding,
    ) -> Snapshot:
        current = self._docs.get(uri)
        if current is None:
            raise UnknownDocument(uri)
        text, index, edit = apply_changes(current.content, current._index, changes, encoding)
        snapshot = Snapshot(uri, current.path, version, text, current.language_id, index, edit)
        self._docs[uri] = snapshot
        return snapshot

    def close(self, uri: str) -> Snapshot | None:
        snapshot = pop_and_shrink(self._docs, uri)
        if snapshot is not None and snapshot.path is not None:
            self._uri_by_path.pop(snapshot.path, None)
        return snapshot

    def get(self, uri: str) -> Snapshot | None:
        return self._docs.get(uri)

    def require(self, uri: str) -> Snapshot:
        snapshot = self._docs.get(uri)
        if snapshot is None:
            raise UnknownDocument(uri)
        return snapshot

    def for_path(self, path: Path) -> Snapshot | None:
        uri = self._uri_by_path.get(path)
        return self._docs.get(uri) if uri is not None else None

    def __iter__(self) -> Iterator[Snapshot]:
        return iter(list(self._docs.values()))

    def __len__(self) -> int:
        return len(self._docs)


def lsp_range(index: LineIndex, start: int, end: int, encoding: Encoding) -> types.Range:
    start_line, start_char = index.position(start, encoding)
    end_line, end_char = index.position(max(start, end), encoding)
    return types.Range(
        start=types.Position(line=start_line, character=start_char),
        end=types.Position(line=end_line, character=end_char),
    )
