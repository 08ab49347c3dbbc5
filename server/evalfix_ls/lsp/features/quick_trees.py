"""The tree of an open document's current text without waiting for its analysis.

Completion, symbols, hover and every feature that reads no findings answer from the text of the
version they were asked on, and the analysis of a new version of a 10 MB suite takes far longer
than a keystroke. The latest analysed tree (or the last tree built here) plus the edits since
give an approximate re-parse (``parser.incremental.reparse``, ``Mode.APPROXIMATE``): a few
milliseconds whatever the document's size. Runs on the event loop: it never parses a whole text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...memory.tables import pop_and_shrink
from ...text.pieces import Text
from ..jsonrpc.trace import mark
from ..session.documents import Snapshot

if TYPE_CHECKING:  # the analysis core is imported by the first request, not at start-up
    from ...analysis import Analysis
    from ...contracts.detection import Classification
    from ...parser.tree import ParseResult
    from ...services.case_memo import CaseMemo
    from ...services.links import Link
    from ...services.outline import Symbol
    from ..diagnostics.edit_log import EditLog
    from ..diagnostics.results import ResultCache
    from ..diagnostics.worker import Result


@dataclass(frozen=True, slots=True)
class _Built:
    revision: int  # the snapshot's (exact text) revision
    text: Text
    tree: ParseResult
    kind: str
    # Why that contract applies (the analysed text's): the root hover shows it while typing.
    classification: Classification | None


class DocumentMemos:
    """The per-case results of an open document's features that walk every case, kept from one
    request to the next (``services.case_memo``)."""

    __slots__ = ("symbols", "links", "symbol_texts", "lens_texts")

    def __init__(self) -> None:
        from ...services.case_memo import CaseMemo

        self.symbols: CaseMemo[Symbol] = CaseMemo()
        self.links: CaseMemo[list[Link]] = CaseMemo()
        # The JSON each case's symbol was written as, by the memo's symbol (id): that symbol, what
        # the text depends on besides it (``features.outline``), and the text.
        self.symbol_texts: dict[int, tuple[Symbol, tuple[object, ...], str]] = {}
        # The JSON of each code lens, by its title, command, arguments and (line, character).
        self.lens_texts: dict[tuple[object, ...], str] = {}


class QuickTrees:
    """Per open document, the last tree built for a feature request (the base when the analysed
    tree is too far behind, and the answer to a second request on the same version)."""

    def __init__(self, cache: ResultCache, edits: EditLog) -> None:
        self._cache = cache
        self._edits = edits
        self._built: dict[str, _Built] = {}
        self._memos: dict[str, DocumentMemos] = {}

    def analysis_now(self, snapshot: Snapshot) -> Analysis | None:
        """An ``Analysis`` (tree and contract, no findings) of exactly ``snapshot.content``, or
        None when no earlier tree is close enough (the caller then waits for the full analysis).
        Reads only the text around the edits: its ``text`` is the snapshot's ``content`` (a
        ``PieceText`` until the analysis builds the ``str``)."""
        from ...analysis import Analysis
        from ...parser.incremental import Mode, reparse

        uri = snapshot.uri
        # The newest analysed tree, also when its text changed while it was analysed (``late``):
        # typing into a 10 MB suite, every analysis ends after the next keystroke, no result is
        # ever current, and with only current results as bases every symbols, folding, links …
        # request of the recorded VS Code traffic waited for a whole analysis (1-4 s).
        result = self._cache.base_for(uri)
        analysis = result.analysis if result is not None else None
        # How each earlier text relates to this one is read once: it decides both the reuse
        # and the span to re-parse.
        bases = [
            (base, self._edits.since(uri, base.text, base.revision, snapshot))
            for base in self._bases(uri, result, analysis)
        ]
        if bases and bases[0][1].same and analysis is not None and bases[0][0].tree is analysis.tree:
            return analysis  # the analysed text itself
        content = snapshot.content
        built = self._built.get(uri)
        if built is not None and built.revision == snapshot.revision:  # asked again, same text
            return Analysis(built.kind, content, built.tree, [], classification=built.classification)
        why = []  # for the request trace: why no base served
        for base, since in bases:
            if since.same:
                return Analysis(base.kind, content, base.tree, [], classification=base.classification)
            edit = since.edit
            if edit is None or len(base.text) + edit.new_end - edit.old_end != len(content):
                why.append("edits unknown")
                continue
            tree = reparse(base.tree, content, edit.start, edit.old_end, Mode.APPROXIMATE)
            if tree is not None:
                self._built[uri] = _Built(snapshot.revision, content, tree, base.kind, base.classification)
                return Analysis(base.kind, content, tree, [], classification=base.classification)
            why.append(f"no local re-parse of [{edit.start}, {edit.old_end}) -> {edit.new_end}")
        mark("no quick tree", why=why or ["no tree yet"])
        return None

    def _bases(self, uri: str, result: Result | None, analysis: Analysis | None) -> list[_Built]:
        """Earlier trees to start from: the analysed one first, then the last one built here.

        A tree built here shares the later items of its arrays lazily with the tree it came from
        (``ShiftedNode.edited``); building each request's tree from the previous request's would chain
        those views one level per keystroke, and every read walks the chain (measured: the local
        re-parse of a 10 MB suite grew from 0.4 to 3 ms over eight keystrokes). The analysed tree
        is plain, so it is the base whenever the edits since it are known and small."""
        bases = []
        built = self._built.get(uri)
        if (
            result is not None
            and analysis is not None
            and analysis.tree is not None
            and result.revision is not None
        ):
            bases.append(
                _Built(result.revision, result.text, analysis.tree, analysis.kind, analysis.classification)
            )
        if built is not None and not (bases and bases[0].revision == built.revision):
            bases.append(built)  # (not when it is of the analysed text: nothing more to learn)
        return bases

    def memos(self, uri: str) -> DocumentMemos:
        """The feature memos of an open document (made on first use)."""
        memos = self._memos.get(uri)
        if memos is None:
            memos = self._memos[uri] = DocumentMemos()
        return memos

    def forget(self, uri: str) -> None:
        pop_and_shrink(self._built, uri)
        pop_and_shrink(self._memos, uri)
