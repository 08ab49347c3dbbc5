"""Diagnostic reports (pull) and notifications (push) encoded to JSON once, from cached pieces.

A 10 MB suite has about 6,800 findings: a ``textDocument/diagnostic`` answer of 2.7 MB. pygls
turns it into JSON on the event loop (``cattrs`` unstructuring, then ``json.dumps``): 50-150 ms
during which no other request is read — the completion request typed right after a keystroke
waited for the report of the keystroke before. Here the items of a result are encoded once (a
pull's off the loop, on a thread of their own), and every answer with that result is assembled
from the encoded text.

A keystroke keeps the ``Diagnostic`` of every finding it did not change (``Result.diagnostics``
reuses them, ``diagnostics/results.py``), so each diagnostic's JSON is kept too, per document
(``EncodedDocuments``): the next report encodes only the diagnostics that are new or moved, and
joins the rest — proportional to the edit, in pull and push alike.
"""

from __future__ import annotations

import asyncio
import json
import threading
import zlib
from collections.abc import Sequence
from typing import Protocol, overload

import attrs
from lsprotocol import types

from ...memory.tables import pop_and_shrink
from ..jsonrpc.encoded import encoder_pool, lsp_converter


class CaseBlock(Protocol):
    """A cached case's diagnostics, kept with their JSON (``convert.CaseDiagnostics``)."""

    def texts(self) -> list[str]: ...


# A run of a report: other findings' diagnostics, a cached case's, or its diagnostics start:stop.
ReportPart = list[types.Diagnostic] | CaseBlock | tuple[CaseBlock, int, int]

INLINE_LIMIT = 200  # reports this small are encoded on the loop (a thread hop costs more)


@attrs.define
class EncodedReport(types.RelatedFullDocumentDiagnosticReport):
    """A full document diagnostic report that also carries its items as JSON (``items_json``):
    ``EvalfixProtocol.write_data`` writes that instead of encoding ``items`` again."""

    items_json: str = attrs.field(default="[]", repr=False, eq=False)

    def to_json(self) -> str:
        """The report as pygls would write it (``relatedDocuments`` is never set here)."""
        return f'{{"items": {self.items_json}, "kind": "full", "resultId": {json.dumps(self.result_id)}}}'


@attrs.define
class EncodedPublishParams(types.PublishDiagnosticsParams):
    """``publishDiagnostics`` params that also carry their diagnostics as JSON: ``EvalfixProtocol``
    writes that instead of encoding ``diagnostics`` again."""

    diagnostics_json: str = attrs.field(default="[]", repr=False, eq=False)

    def to_json(self) -> str:
        version = "" if self.version is None else f', "version": {self.version}'
        return f'{{"uri": {json.dumps(self.uri)}, "diagnostics": {self.diagnostics_json}{version}}}'


def joined(items_json: str, extra: Sequence[str]) -> str:
    """A JSON array of diagnostics with ``extra`` (each a diagnostic's JSON) appended."""
    if not extra:
        return items_json
    inner = items_json.strip()[1:-1].strip()
    return "[" + ", ".join(([inner] if inner else []) + list(extra)) + "]"


class EncodedItems:
    """The JSON array of one result's diagnostics, encoded on first use and kept, with the JSON of
    each diagnostic (by identity: the list holds them, so no other object takes their ids)."""

    __slots__ = ("diagnostics", "parts", "_text", "_lock", "_previous", "_known")

    def __init__(
        self,
        diagnostics: Sequence[types.Diagnostic],
        previous: EncodedItems | None = None,
        parts: Sequence[ReportPart] | None = None,
    ) -> None:
        self.diagnostics = diagnostics
        self.parts = parts  # the runs the array is joined from, when the result has them
        self._text: str | None = None
        self._lock = threading.Lock()
        self._previous = previous  # the report before: its pieces are reused, then it is let go
        self._known: Known = {}

    def text(self) -> str:
        with self._lock:
            if self._text is None:
                previous = self._previous
                known, before = (previous.known(), previous.diagnostics) if previous else ({}, ())
                if self.parts is not None:
                    self._known, self._text = encode_parts(self.parts, known)
                else:
                    self._known, self._text = encode_items(self.diagnostics, known, before)
                self._previous = None
            return self._text

    def known(self) -> Known:
        """What the next report reuses (empty until ``text`` was built), see ``encode_items``."""
        with self._lock:
            return self._known

    async def text_off_loop(self) -> str:
        if self._text is not None or len(self.diagnostics) <= INLINE_LIMIT:
            return self.text()
        return await asyncio.get_running_loop().run_in_executor(encoder_pool()[0], self.text)


class EncodedDocuments:
    """Per document, the encoded items of its last report; the next report reuses their pieces."""

    def __init__(self) -> None:
        self._last: dict[str, EncodedItems] = {}

    def items(
        self, uri: str, diagnostics: Sequence[types.Diagnostic], parts: Sequence[ReportPart] | None = None
    ) -> EncodedItems:
        last = self._last.get(uri)
        if last is not None and last.diagnostics is diagnostics:
            return last
        items = self._last[uri] = EncodedItems(diagnostics, previous=last, parts=parts)
        return items

    def forget(self, uri: str) -> None:
        pop_and_shrink(self._last, uri)

    def uris(self) -> list[str]:
        return list(self._last)


class KeptDiagnostics(Sequence[types.Diagnostic]):
    """A closed file's diagnostics kept as the JSON array the reports write, compressed (zlib,
    fastest level: about 5x on a suite's findings, 15 µs for 3 KB), instead of their objects
    (``disk_results.kept_form``): at 12,000 files the objects were ~25 MB of the server, the JSON
    8 MB, compressed 1.6 MB. Encoding writes the JSON as it is; anything else that reads the
    diagnostics gets objects decoded for it."""

    __slots__ = ("compressed", "_count")

    def __init__(self, json_text: bytes, count: int) -> None:
        self.compressed = zlib.compress(json_text, 1)
        self._count = count

    @classmethod
    def of(
        cls, diagnostics: Sequence[types.Diagnostic], parts: Sequence[ReportPart] | None
    ) -> KeptDiagnostics:
        text = encode_parts(parts, {})[1] if parts is not None else encode_items(diagnostics)[1]
        return cls(text.encode("utf-8"), len(diagnostics))

    @property
    def json(self) -> bytes:
        """The JSON array (UTF-8)."""
        return zlib.decompress(self.compressed)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> types.Diagnostic: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[types.Diagnostic]: ...
    def __getitem__(self, index: int | slice) -> types.Diagnostic | Sequence[types.Diagnostic]:
        return self.decoded()[index]

    def decoded(self) -> list[types.Diagnostic]:
        return lsp_converter().structure(json.loads(self.json), list[types.Diagnostic])


# What a report leaves for the next: each diagnostic's JSON and the length of its range's JSON
# in it (0: not written by hand, no range first), by the diagnostic's identity.
Known = dict[int, tuple[str, int]]
FEW_MISSES = 16  # below this many new diagnostics, moved ones are not looked for


def encode_items(
    diagnostics: Sequence[types.Diagnostic],
    known: Known | None = None,
    before: Sequence[types.Diagnostic] = (),
) -> tuple[Known, str]:
    """The JSON of the array as pygls writes it, and each diagnostic's JSON for the next report.
    A diagnostic of ``known`` is not encoded again; one moved by lines (``convert.lines_moved``:
    a copy of one of ``before`` with a new range, every other field the same object) costs its
    range only, the rest of its JSON taken from the one it was copied from."""
    if isinstance(diagnostics, KeptDiagnostics):  # a closed file's: written once already
        return {}, diagnostics.json.decode("utf-8")
    known = known or {}
    out: Known = {}
    missing = [d for d in diagnostics if id(d) not in known]
    tails = _tails(before, known) if len(missing) >= FEW_MISSES and _HAND_WRITTEN else {}
    for diagnostic in diagnostics:
        entry = known.get(id(diagnostic))
        if entry is None:
            tail = tails.get(_kept_fields(diagnostic)) if tails else None
            entry = encoded_piece(diagnostic) if tail is None else _with_range(diagnostic, tail)
        out[id(diagnostic)] = entry
    return out, "[" + ", ".join(out[id(d)][0] for d in diagnostics) + "]"


def encode_parts(parts: Sequence[ReportPart], known: Known) -> tuple[Known, str]:
    """``encode_items`` for a result joined from parts: a cached case's run is its kept JSON
    (``CaseDiagnostics.texts``), the other diagnostics are encoded unless ``known``."""
    out: Known = {}
    texts = []
    for part in parts:
        if isinstance(part, tuple):
            case, start, stop = part
            texts.extend(case.texts()[start:stop])
            continue
        if not isinstance(part, list):
            texts.extend(part.texts())
            continue
        for diagnostic in part:
            entry = known.get(id(diagnostic)) or encoded_piece(diagnostic)
            out[id(diagnostic)] = entry
            texts.append(entry[0])
    return out, "[" + ", ".join(texts) + "]"


_RANGE_KEY = '{"range": '


def moved_piece(diagnostic: types.Diagnostic, earlier: tuple[str, int]) -> tuple[str, int]:
    """The JSON of ``diagnostic``, a copy of the one ``earlier`` encodes with its range moved
    (``convert.lines_moved``): its range written, the rest taken from ``earlier``."""
    piece, range_length = earlier
    if not range_length:
        return encoded_piece(diagnostic)
    return _with_range(diagnostic, piece[len(_RANGE_KEY) + range_length :])


def encoded_piece(diagnostic: types.Diagnostic) -> tuple[str, int]:
    piece = json.dumps(_plain(diagnostic))
    if not (_HAND_WRITTEN and piece.startswith(_RANGE_KEY)):
        return piece, 0
    return piece, len(json.dumps(_range(diagnostic.range)))


def _with_range(diagnostic: types.Diagnostic, tail: str) -> tuple[str, int]:
    range_json = json.dumps(_range(diagnostic.range))
    return f"{_RANGE_KEY}{range_json}{tail}", len(range_json)


def _tails(before: Sequence[types.Diagnostic], known: Known) -> dict[tuple[object, ...], str]:
    """The JSON after the range of each diagnostic of the previous report, by the fields a moved
    copy keeps."""
    tails = {}
    for diagnostic in before:
        entry = known.get(id(diagnostic))
        if entry is not None and entry[1]:
            piece, range_length = entry
            tails[_kept_fields(diagnostic)] = piece[len(_RANGE_KEY) + range_length :]
    return tails


def _kept_fields(d: types.Diagnostic) -> tuple[object, ...]:
    """What decides a diagnostic's JSON besides its range: these objects themselves (a moved copy
    shares them; the previous report's list keeps them alive, so their ids are not reused) and
    the scalars by value."""
    objects = (d.message, d.data, d.related_information, d.tags, d.code_description)
    return (*map(id, objects), d.code, d.severity, d.source)


def _plain(diagnostic: types.Diagnostic) -> object:
    if _HAND_WRITTEN:
        try:
            return _diagnostic(diagnostic)
        except (AttributeError, TypeError, ValueError):  # something the hand-written form lacks
            pass
    return lsp_converter().unstructure(diagnostic)


# ``Diagnostic`` as lsprotocol's converter unstructures it (pygls' converter extends it only for its
# own message types), written out: three times faster than ``cattrs`` for 6,800 diagnostics (7 ms
# against 24). Used only while ``Diagnostic`` has no fields beyond these (a newer lsprotocol
# falls back to the converter); tests/lsp/test_encoded_reports.py compares both.
_FIELDS = {"range", "severity", "code", "code_description", "source", "message", "tags"}
_FIELDS |= {"related_information", "data"}
_HAND_WRITTEN = set(attrs.fields_dict(types.Diagnostic)) <= _FIELDS


def _range(rng: types.Range) -> dict[str, dict[str, int]]:
    start, end = rng.start, rng.end
    return {
        "start": {"line": start.line, "character": start.character},
        "end": {"line": end.line, "character": end.character},
    }


def _diagnostic(d: types.Diagnostic) -> dict[str, object]:
    out: dict[str, object] = {"range": _range(d.range), "message": d.message}
    if d.severity is not None:
        out["severity"] = int(d.severity)
    if d.code is not None:
        out["code"] = d.code
    if d.code_description is not None:
        out["codeDescription"] = {"href": d.code_description.href}
    if d.source is not None:
        out["source"] = d.source
    if d.tags is not None:
        out["tags"] = [int(tag) for tag in d.tags]
    if d.related_information is not None:
        out["relatedInformation"] = [
            {"location": {"uri": r.location.uri, "range": _range(r.location.range)}, "message": r.message}
            for r in d.related_information
        ]
    if d.data is not None:
        out["data"] = d.data
    return out
