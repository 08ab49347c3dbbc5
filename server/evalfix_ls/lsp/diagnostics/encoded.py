"""Pull reports encoded to JSON once per result, off the event loop.

A 10 MB suite has about 6,800 findings: a ``textDocument/diagnostic`` answer of 2.7 MB. pygls
turns it into JSON on the event loop (``cattrs`` unstructuring, then ``json.dumps``): 50-150 ms
during which no other request is read — the completion request typed right after a keystroke
waited for the report of the keystroke before. Here the items of a result are encoded once, on a
thread of their own, in batches (each a short ``json.dumps``, so the loop thread gets the GIL
between them), and every answer with that result is assembled from the encoded text.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import attrs
from cattrs import Converter
from lsprotocol import types

BATCH = 256  # diagnostics per json.dumps call
INLINE_LIMIT = 200  # reports this small are encoded on the loop (a thread hop costs more)

_encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalfix-encode")


@attrs.define
class EncodedReport(types.RelatedFullDocumentDiagnosticReport):
    """A full document diagnostic report that also carries its items as JSON (``items_json``):
    ``EvalfixProtocol.write_data`` writes that instead of encoding ``items`` again."""

    items_json: str = attrs.field(default="[]", repr=False, eq=False)

    def to_json(self) -> str:
        """The report as pygls would write it (``relatedDocuments`` is never set here)."""
        return f'{{"items": {self.items_json}, "kind": "full", "resultId": {json.dumps(self.result_id)}}}'


class EncodedItems:
    """The JSON array of one result's diagnostics, encoded on first use and kept."""

    __slots__ = ("_diagnostics", "_text", "_lock")

    def __init__(self, diagnostics: Sequence[types.Diagnostic]) -> None:
        self._diagnostics = diagnostics
        self._text: str | None = None
        self._lock = threading.Lock()

    def text(self) -> str:
        with self._lock:
            if self._text is None:
                self._text = encode_items(self._diagnostics)
            return self._text

    async def text_off_loop(self) -> str:
        if self._text is not None or len(self._diagnostics) <= INLINE_LIMIT:
            return self.text()
        return await asyncio.get_running_loop().run_in_executor(_encoder, self.text)


def encode_items(diagnostics: Sequence[types.Diagnostic]) -> str:
    """``json.dumps`` of the diagnostics as pygls writes them, a batch at a time."""
    parts = []
    for start in range(0, len(diagnostics), BATCH):
        batch = diagnostics[start : start + BATCH]
        try:
            plain = [_diagnostic(d) for d in batch] if _HAND_WRITTEN else lsp_converter().unstructure(batch)
        except (AttributeError, TypeError, ValueError):  # something the hand-written form lacks
            plain = lsp_converter().unstructure(batch)
        parts.append(json.dumps(plain)[1:-1])
    return "[" + ", ".join(part for part in parts if part) + "]"


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


@functools.cache
def lsp_converter() -> Converter:
    """lsprotocol's converter: LSP types to plain JSON data, fields named and omitted as pygls
    writes them (pygls' own converter extends it only for its message envelopes)."""
    from lsprotocol.converters import get_converter

    return get_converter()
