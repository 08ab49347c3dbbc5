"""Pull reports encoded once, off the loop (``lsp/diagnostics/encoded.py``), must reach the client as
exactly the JSON pygls writes for the same report: same items (related information, tags, data,
CJK and emoji in messages), same report members, one framed message (in-process, no server)."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from unittest import mock

from lsp_support import Capture
from lsprotocol import types
from pygls.protocol import default_converter

from evalfix_ls.lsp.diagnostics import encoded
from evalfix_ls.lsp.diagnostics.encoded import EncodedItems, EncodedReport, encode_items
from evalfix_ls.lsp.server import create_server


def _range(line: int, start: int, end: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=start), end=types.Position(line=line, character=end)
    )


def diagnostics(count: int) -> list[types.Diagnostic]:
    out = []
    for n in range(count):
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri="file:///w/evals/evals.json", range=_range(n + 1, 0, 3)),
                message=f"first defined here 中 {n}",
            )
        ]
        out.append(
            types.Diagnostic(
                range=_range(n, 2, 9),
                message=f"regex '🎉 (unclosed' n°{n}",
                severity=types.DiagnosticSeverity(1 + n % 4),
                code=f"code-{n % 3}" if n % 4 else n,
                code_description=types.CodeDescription(href=f"https://example.org/中/{n}") if n % 2 else None,
                source="evalfix-ls",
                data={"fix": n, "tags": ["a", "中"]} if n % 2 else None,
                related_information=related if n % 3 == 0 else None,
                tags=[types.DiagnosticTag.Deprecated] if n % 5 == 0 else None,
            )
        )
    return out


def frames(data: bytes) -> list[dict[str, Any]]:
    out = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def test_encoded_items_are_the_json_pygls_writes() -> None:
    converter = default_converter()  # pygls' own (the server is built with pygls' default)
    for count in (0, 1, 5, 7):
        items = diagnostics(count)
        plain = json.loads(json.dumps(converter.unstructure(items)))
        assert json.loads(encode_items(items)[1]) == plain


def test_an_encoded_report_is_framed_like_the_report_pygls_writes() -> None:
    server = create_server()
    capture = Capture()
    server.protocol.set_writer(capture)
    items = diagnostics(4)
    encoded_report = EncodedReport(items=items, result_id="r3", items_json=encode_items(items)[1])
    server.protocol.write_response(7, result=encoded_report)
    report = types.RelatedFullDocumentDiagnosticReport(items=items, result_id="r3")
    server.protocol.write_response(8, result=report)
    # What is written is the encoded text, not ``items`` encoded again (left empty here).
    server.protocol.write_response(
        9, result=EncodedReport(items=[], result_id="r3", items_json=encode_items(items)[1])
    )
    ours, theirs, again = frames(capture.data)
    assert ours.pop("id") == 7 and theirs.pop("id") == 8 and again.pop("id") == 9
    assert ours == theirs == again


def test_a_large_report_is_encoded_off_the_loop_once() -> None:
    converter = default_converter()
    items = diagnostics(encoded.INLINE_LIMIT + 1)
    holder = EncodedItems(items)
    threads = []

    def spy(diagnostics: Any, *known: Any) -> tuple[Any, str]:
        import threading

        threads.append(threading.current_thread().name)
        return encode_items(diagnostics, *known)

    with mock.patch.object(encoded, "encode_items", spy):
        first = asyncio.run(holder.text_off_loop())
        second = asyncio.run(holder.text_off_loop())
    assert first is second and json.loads(first) == json.loads(json.dumps(converter.unstructure(items)))
    assert threads == ["evalfix-encode_0"]


def test_an_encoded_publish_is_framed_like_the_notification_pygls_writes() -> None:
    server = create_server()
    capture = Capture()
    server.protocol.set_writer(capture)
    items = diagnostics(3)
    uri = "file:///w/evals/evals.json"
    for version in (4, None):
        text = encode_items(items)[1]
        server.text_document_publish_diagnostics(
            encoded.EncodedPublishParams(uri=uri, diagnostics=[], version=version, diagnostics_json=text)
        )
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version)
        )
    ours, theirs, ours_unversioned, theirs_unversioned = frames(capture.data)
    assert ours == theirs and ours_unversioned == theirs_unversioned
    assert "version" not in ours_unversioned["params"]


def encoded_again(
    documents: encoded.EncodedDocuments, after: list[types.Diagnostic]
) -> tuple[str, list[Any]]:
    """The next report of ``file:///a.json`` for ``after``, and the diagnostics encoded whole."""
    fully: list[Any] = []
    real = encoded._plain

    def counted(diagnostic: Any) -> Any:
        fully.append(diagnostic)
        return real(diagnostic)

    with mock.patch.object(encoded, "_plain", counted):
        return documents.items("file:///a.json", after).text(), fully


def test_a_report_encodes_only_the_diagnostics_the_previous_report_lacks() -> None:
    """A keystroke keeps the ``Diagnostic`` objects of the findings it did not change: their JSON
    is reused, only the new ones are encoded (counted), and the text is the whole report."""
    converter = create_server().protocol._converter
    documents = encoded.EncodedDocuments()
    before = diagnostics(6)
    documents.items("file:///a.json", before).text()
    after = [*before[:3], *diagnostics(2), *before[4:]]
    text, fully = encoded_again(documents, after)
    assert json.loads(text) == json.loads(json.dumps(converter.unstructure(after)))
    assert [id(d) for d in fully] == [id(d) for d in after[3:5]]


def test_a_diagnostic_moved_by_lines_costs_its_range_only() -> None:
    """A line added above shifts the diagnostics below it (copies with a new range, every other
    field the same object): the JSON after their range is taken from the report before."""
    from evalfix_ls.lsp.diagnostics.convert import lines_moved

    converter = create_server().protocol._converter
    documents = encoded.EncodedDocuments()
    before = diagnostics(40)
    documents.items("file:///a.json", before).text()
    after = [*before[:10], *(lines_moved(d, 1) for d in before[10:])]
    text, fully = encoded_again(documents, after)
    assert json.loads(text) == json.loads(json.dumps(converter.unstructure(after)))
    assert fully == []  # 30 moved, none encoded whole
