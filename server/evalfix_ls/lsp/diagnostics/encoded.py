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
import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

BATCH = 256  # diagnostics per json.dumps call
INLINE_LIMIT = 200  # reports this small are encoded on the loop (a thread hop costs more)

_encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalfix-encode")


@dataclass(frozen=True, slots=True)
class EncodedReport:
    """A full document diagnostic report whose JSON is already written (``json``): what
    ``EvalfixProtocol._send_data`` puts in the response as it is."""

    json: str


class EncodedItems:
    """The JSON array of one result's diagnostics, encoded on first use and kept."""

    __slots__ = ("_diagnostics", "_text", "_lock")

    def __init__(self, diagnostics: Sequence[types.Diagnostic]) -> None:
        self._diagnostics = diagnostics
        self._text: str | None = None
        self._lock = threading.Lock()

    def text(self, converter: Any) -> str:
        with self._lock:
            if self._text is None:
                self._text = encode_items(converter, self._diagnostics)
            return self._text

    async def text_off_loop(self, converter: Any) -> str:
        if self._text is not None or len(self._diagnostics) <= INLINE_LIMIT:
            return self.text(converter)
        return await asyncio.get_running_loop().run_in_executor(_encoder, self.text, converter)


def encode_items(converter: Any, diagnostics: Sequence[types.Diagnostic]) -> str:
    """``json.dumps`` of the diagnostics as pygls would write them, a batch at a time."""
    parts = []
    for start in range(0, len(diagnostics), BATCH):
        batch = [converter.unstructure(d) for d in diagnostics[start : start + BATCH]]
        parts.append(json.dumps(batch)[1:-1])
    return "[" + ", ".join(part for part in parts if part) + "]"


def full_report(items_json: str, result_id: str) -> EncodedReport:
    """``RelatedFullDocumentDiagnosticReport(items=…, result_id=…)`` as JSON."""
    return EncodedReport(f'{{"items": {items_json}, "kind": "full", "resultId": {json.dumps(result_id)}}}')
