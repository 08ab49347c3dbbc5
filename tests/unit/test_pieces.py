"""``PieceText`` and ``LineStarts`` (the edit-sized text store) against the plain ``str`` they stand
for: random edit sequences with CJK, astral emoji, CRLF and the separators LSP does not count as
line breaks (U+2028, U+0085) give the same text, the same slices and characters, the same line
starts and the same positions in UTF-8, UTF-16 and UTF-32. The block and piece sizes are made
tiny so that short texts cross many blocks, pieces and build chunks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from evalfix_ls.lsp.session.documents import DocumentStore, Edit, spliced_index
from evalfix_ls.text import line_starts, pieces
from evalfix_ls.text.line_index import Encoding, LineIndex
from evalfix_ls.text.pieces import PieceText, finditer, match_run, search, search_forward

ENCODINGS = [Encoding.UTF8, Encoding.UTF16, Encoding.UTF32]
ALPHABET = st.sampled_from(["a", "b", "{", '"', " ", "\n", "\r\n", "\r", "\u2028", "\u0085", "中", "🎉", "é"])
TEXTS = st.lists(ALPHABET, max_size=24).map("".join)


@contextmanager
def tiny_blocks() -> Iterator[None]:
    with (
        mock.patch.object(line_starts, "BLOCK", 2),
        mock.patch.object(pieces, "_MERGE_LIMIT", 2),
        mock.patch.object(pieces, "_BUILD_CHUNK", 3),
        mock.patch.object(pieces, "_WINDOW", 2),
    ):
        yield


def plain_positions(text: str, offset: int, encoding: Encoding) -> tuple[int, int]:
    """The LSP position of ``offset`` computed the slow, obvious way."""
    before = text[:offset]
    line_start = max(before.rfind("\n"), before.rfind("\r")) + 1
    line = len(re.findall(r"\r\n|\r|\n", before))
    column = before[line_start:]
    if encoding is Encoding.UTF8:
        return line, len(column.encode("utf-8"))
    if encoding is Encoding.UTF16:
        return line, len(column.encode("utf-16-le")) // 2
    return line, len(column)


def edits(data: st.DataObject, text: str, count: int) -> Iterator[tuple[int, int, str]]:
    current = text
    for _ in range(count):
        start = data.draw(st.integers(0, len(current)))
        end = data.draw(st.integers(start, min(len(current), start + 6)))
        new = data.draw(TEXTS)
        current = current[:start] + new + current[end:]
        yield start, end, new


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data())
def test_piece_text_reads_like_the_edited_string(text: str, data: st.DataObject) -> None:
    with tiny_blocks():
        view, expected = PieceText.of(text), text
        for start, end, new in edits(data, text, data.draw(st.integers(1, 8))):
            view, expected = view.replaced(start, end, new), expected[:start] + new + expected[end:]
            assert len(view) == len(expected)
            a = data.draw(st.integers(-2, len(expected) + 2))
            b = data.draw(st.integers(-2, len(expected) + 2))
            assert view[a:b] == expected[a:b]
            if expected:
                at = data.draw(st.integers(-len(expected), len(expected) - 1))
                assert view[at] == expected[at]
            assert expected.isascii() or not view.isascii()
        assert view.text == expected and view.built
        assert view[0 : len(expected)] == expected  # read from the built str from now on


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data())
def test_spliced_line_starts_and_positions_equal_the_plain_string(text: str, data: st.DataObject) -> None:
    with tiny_blocks():
        view, expected = PieceText.of(text), text
        index = LineIndex(text)
        for start, end, new in edits(data, text, data.draw(st.integers(1, 6))):
            view, expected = view.replaced(start, end, new), expected[:start] + new + expected[end:]
            index = spliced_index(index, Edit(start, end, start + len(new)), view)
            assert index.starts == LineIndex(expected).starts
        assert not view.built or not expected  # positions below are read without the str
        for offset in range(len(expected) + 1):
            if 0 < offset < len(expected) and expected[offset - 1 : offset + 1] == "\r\n":
                continue  # inside one line break: LSP cannot address it
            for encoding in ENCODINGS:
                line, character = plain_positions(expected, offset, encoding)
                assert index.position(offset, encoding) == (line, character)
                assert index.offset(line, character, encoding) == offset


@settings(max_examples=200, deadline=None)
@given(st.data(), TEXTS, st.sampled_from(ENCODINGS))
def test_the_store_keeps_edits_unbuilt_and_exact(data: st.DataObject, text: str, encoding: Encoding) -> None:
    """Ranged changes through the store (positions in the client's encoding) give the string the
    client holds, without building it until ``text`` is read."""
    from lsprotocol import types

    with tiny_blocks():
        store = DocumentStore()
        store.open("untitled:x", 1, text)
        expected = text
        for version, (start, end, new) in enumerate(edits(data, text, 5), start=2):
            lines = LineIndex(expected)
            (sl, sc), (el, ec) = lines.position(start, encoding), lines.position(end, encoding)
            rng = types.Range(
                start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec)
            )
            change = types.TextDocumentContentChangePartial(range=rng, text=new)
            snapshot = store.change("untitled:x", version, [change], encoding)
            # LSP cannot address the inside of a \r\n pair: the position lands on its start.
            start = lines.offset(sl, sc, encoding)
            end = max(start, lines.offset(el, ec, encoding))
            expected = expected[:start] + new + expected[end:]
            assert len(snapshot) == len(expected)
            assert snapshot.line_index.starts == LineIndex(expected).starts
        assert snapshot.text == expected


def test_an_incremental_change_does_not_build_the_text() -> None:
    """What keeps a keystroke in a 10 MB suite O(edit) on the event loop (break ``replaced`` to
    return ``PieceText.of(self.text[:start] + new + self.text[end:])`` and this fails)."""
    from lsprotocol import types

    text = '{"prompt": "中🎉"}\n' * 3000
    store = DocumentStore()
    store.open("untitled:x", 1, text)
    position = types.Position(line=1500, character=13)  # after 中
    change = types.TextDocumentContentChangePartial(range=types.Range(start=position, end=position), text="x")
    snapshot = store.change("untitled:x", 2, [change], Encoding.UTF16)
    content = snapshot.content
    assert isinstance(content, PieceText) and not content.built
    assert snapshot.line_index.position(len(text) - 1) == (2999, 16)
    assert not content.built
    offset = 1500 * len('{"prompt": "中🎉"}\n') + 13
    assert snapshot.text[offset - 1 : offset + 2] == "中x🎉" and content.built
    assert snapshot.content is snapshot.text  # later readers get the str itself


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.data())
def test_regex_helpers_on_a_piece_text_match_the_str(text: str, data: st.DataObject) -> None:
    with tiny_blocks():
        view = PieceText.of("")
        half = len(text) // 2
        view = view.replaced(0, 0, text[:half]).replaced(half, half, text[half:])
        assert not view.built or not text
        pos = data.draw(st.integers(0, len(text)))
        endpos = data.draw(st.integers(pos, len(text)))
        token = re.compile(r'"(?:[^"\\\n\r]|\\.)*"?|[^"]')
        assert [m.span() for m in finditer(token, view, pos, endpos)] == [
            m.span() for m in token.finditer(text, pos, endpos)
        ]
        tail = re.compile(r"[\r\n][^\r\n]*\Z")
        found, plain = search(tail, view, pos, endpos), tail.search(text, pos, endpos)
        assert (found.span() if found else None) == (plain.span() if plain else None)
        brk = re.compile(r"[\r\n]")
        found, plain = search_forward(brk, view, pos), brk.search(text, pos)
        assert (found.start() if found else None) == (plain.start() if plain else None)
        word = re.compile(r"[a-b{ ]*")
        plain_word = word.match(text, pos)
        assert plain_word is not None  # a starred class matches the empty string anywhere
        assert match_run(word, view, pos) == plain_word.end()


NAME_PARTS = st.sampled_from(
    ['"cas', 'es"', '"cases"', '"exam', 'ples"', "\\u00", "63", "6D", "x", '"', "中", "🎉"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(NAME_PARTS, max_size=12).map("".join), st.data())
def test_may_hold_cases_reads_an_edited_buffer_like_its_string(text: str, data: st.DataObject) -> None:
    """The piece-wise search (no ``str`` built on the loop) answers as the search of the string,
    names split across pieces included."""
    from evalfix_ls.lsp.session.workspace_index import may_hold_cases

    with tiny_blocks():
        view, expected = PieceText.of(text), text
        for _ in range(data.draw(st.integers(1, 5))):
            start = data.draw(st.integers(0, len(expected)))
            end = data.draw(st.integers(start, len(expected)))
            new = data.draw(st.lists(NAME_PARTS, max_size=3).map("".join))
            view, expected = view.replaced(start, end, new), expected[:start] + new + expected[end:]
        assert may_hold_cases(view) == may_hold_cases(expected)
        assert not view.built or not expected
