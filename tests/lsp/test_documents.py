"""The text store without a server: incremental changes in every encoding, edit spans, strict
positions (fast, in-process)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsp_support import lsp_range
from lsprotocol import types

from evalfix_ls.lsp.session.documents import (
    DocumentStore,
    Edit,
    Snapshot,
    apply_changes,
    compose,
    diff_edit,
    spliced_index,
    strict_offset,
)
from evalfix_ls.text.line_index import Encoding, LineIndex

ENCODINGS = [Encoding.UTF8, Encoding.UTF16, Encoding.UTF32]
# Line breaks LSP counts, separators it does not, CJK, astral emoji, a combining mark.
ALPHABET = st.sampled_from(
    ["a", "{", '"', "\n", "\r\n", "\r", "\u2028", "\u2029", "\u0085", "中", "🎉", "é", "e\u0301"]
)
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)


def change(
    text: str, start: int, end: int, new: str, encoding: Encoding
) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(range=lsp_range(text, start, end, encoding.value), text=new)


def _no_split_pair(text: str, offset: int) -> bool:
    """LSP cannot address the point between \\r and \\n (it is inside one line break)."""
    return not (0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n")


@settings(max_examples=300, deadline=None)
@given(st.data(), TEXTS, st.sampled_from(ENCODINGS))
def test_a_sequence_of_ranged_changes_equals_editing_the_string(
    data: st.DataObject, text: str, encoding: Encoding
) -> None:
    store = DocumentStore()
    store.open("untitled:x", 1, text)
    expected = text
    for version in range(2, 5):
        offsets = [i for i in range(len(expected) + 1) if _no_split_pair(expected, i)]
        start = data.draw(st.sampled_from(offsets))
        end = data.draw(st.sampled_from([i for i in offsets if i >= start]))
        new = data.draw(TEXTS)
        before = expected
        expected = expected[:start] + new + expected[end:]
        snapshot = store.change("untitled:x", version, [change(before, start, end, new, encoding)], encoding)
        assert snapshot.text == expected
        if start == end and not new:  # nothing changed: an empty span
            assert snapshot.edit is not None and snapshot.edit.old_end == snapshot.edit.new_end
        else:
            assert snapshot.edit == Edit(start, end, start + len(new))
        assert snapshot.line_index.starts == Snapshot("u", None, 0, expected).line_index.starts
        # The ASCII fast path is taken only for ASCII text (an edit that deletes the last emoji
        # may leave it off: the text is then converted exactly, the slow way).
        assert expected.isascii() or not snapshot.line_index._ascii


@settings(max_examples=500, deadline=None)
@given(TEXTS, TEXTS, st.data())
def test_spliced_line_index_equals_a_fresh_one(text: str, inserted: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    new = text[:start] + inserted + text[end:]
    spliced = spliced_index(LineIndex(text), Edit(start, end, start + len(inserted)), new)
    assert spliced.starts == LineIndex(new).starts


@settings(max_examples=300, deadline=None)
@given(st.data(), TEXTS)
def test_composed_edits_cover_every_change(data: st.DataObject, text: str) -> None:
    """Outside the composed span, the final text equals the original (shifted after it)."""
    current = text
    edits = []
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(current)))
        end = data.draw(st.integers(start, len(current)))
        new = data.draw(TEXTS)
        current = current[:start] + new + current[end:]
        edits.append(Edit(start, end, start + len(new)))
    total = compose(edits)
    assert total is not None
    assert current[: total.start] == text[: total.start]
    assert current[total.new_end :] == text[total.old_end :]
    assert len(current) - total.new_end == len(text) - total.old_end


def test_several_changes_in_one_notification_apply_in_order() -> None:
    text = '{"a": "中🎉",\n "b": 1}'
    first = change(text, 1, 4, '"z"', Encoding.UTF16)  # rename a → z
    after_first = '{"z": "中🎉",\n "b": 1}'
    second = change(after_first, len(after_first) - 2, len(after_first) - 1, "2", Encoding.UTF16)
    new, _index, edit = apply_changes(text, None, [first, second], Encoding.UTF16)
    assert str(new) == '{"z": "中🎉",\n "b": 2}'
    assert edit == Edit(1, len(text) - 1, len(new) - 1)


def test_whole_document_replacement_reports_the_span_that_differs() -> None:
    whole = types.TextDocumentContentChangeWholeDocument(text="{}")
    assert apply_changes("[1]", None, [whole], Encoding.UTF16) == ("{}", None, Edit(0, 3, 2))
    text = '{"a": "中🎉", "b": 1}\n' * 5000
    new_text = text[:60000] + "x" + text[60001:]
    index = LineIndex(text)
    whole = types.TextDocumentContentChangeWholeDocument(text=new_text)
    result, new_index, edit = apply_changes(text, index, [whole], Encoding.UTF16)
    assert result == new_text and edit == Edit(60000, 60001, 60001)
    assert new_index is not None and new_index.starts == LineIndex(new_text).starts


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS, st.data())
def test_diff_edit_is_minimal_and_exact(prefix: str, middle: str, data: st.DataObject) -> None:
    suffix = data.draw(TEXTS)
    replacement = data.draw(TEXTS)
    old, new = prefix + middle + suffix, prefix + replacement + suffix
    edit = diff_edit(old, new)
    assert old[: edit.start] + new[edit.start : edit.new_end] + old[edit.old_end :] == new
    assert edit.old_end - edit.start <= len(middle) and edit.new_end - edit.start <= len(replacement)


def test_positions_past_the_end_are_clamped_for_changes() -> None:
    text = "ab\ncd"
    rng = types.Range(start=types.Position(line=0, character=99), end=types.Position(line=7, character=0))
    new, _index, _edit = apply_changes(
        text, None, [types.TextDocumentContentChangePartial(range=rng, text="!")], Encoding.UTF16
    )
    assert str(new) == "ab!"


def test_unknown_documents_and_strict_positions() -> None:
    store = DocumentStore()
    with pytest.raises(LookupError):
        store.change("file:///nope.json", 2, [], Encoding.UTF16)
    snapshot = store.open("file:///x/evals/evals.json", 1, "{\n}")
    assert snapshot.path is not None and snapshot.path.name == "evals.json"
    assert strict_offset(snapshot, 1, 0, Encoding.UTF16) == 2
    for line, character in ((2, 0), (-1, 0), (0, -1)):
        with pytest.raises(ValueError):
            strict_offset(snapshot, line, character, Encoding.UTF16)
    assert store.close("file:///x/evals/evals.json") is snapshot
    assert store.get("file:///x/evals/evals.json") is None


def test_feature_helpers_answer_errors_for_closed_documents_and_bad_positions() -> None:
    """What feature handlers use: InvalidParams responses, never a crash; positions converted in
    the negotiated encoding by the feature context."""
    from pygls.exceptions import JsonRpcInvalidParams

    from evalfix_ls.analysis import analyze
    from evalfix_ls.config.model import Config
    from evalfix_ls.lsp.features.context import FeatureContext, document_view
    from evalfix_ls.lsp.server import EvalfixServer
    from evalfix_ls.lsp.session.client_features import ClientFeatures

    server = EvalfixServer()
    with pytest.raises(JsonRpcInvalidParams):
        server.snapshot_for("file:///closed.json")
    snapshot = server.documents.open("file:///x.json", 1, '{"k": "🎉"}\n')
    assert server.snapshot_for("file:///x.json") is snapshot
    document = document_view(snapshot, analyze(snapshot.text), None, text=snapshot.text)
    for encoding, after_emoji in ((Encoding.UTF16, 9), (Encoding.UTF8, 11), (Encoding.UTF32, 8)):
        ctx = FeatureContext(snapshot, document, encoding, Config(), ClientFeatures())
        assert ctx.offset(types.Position(line=0, character=after_emoji)) == 8  # after the emoji
        with pytest.raises(JsonRpcInvalidParams):
            ctx.offset(types.Position(line=3, character=0))
        assert ctx.range(7, 8) == types.Range(
            start=types.Position(line=0, character=7), end=types.Position(line=0, character=after_emoji)
        )
        assert ctx.position(8) == types.Position(line=0, character=after_emoji)
    server.executor.shutdown(wait=False)
