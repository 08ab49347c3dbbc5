"""Line index and position encodings: CJK, emoji and LSP-only line breaks."""

from __future__ import annotations

import pytest

from evalfix_ls.text.line_index import Encoding, LineIndex

TEXT = '{\n  "prompt": "请帮我 😀 plan",\r\n  "x": 1\r"y"\n}'


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [
        # the 'p' of "plan": after `  "prompt": "` (13), 请帮我 (3 chars), space, 😀, space
        (Encoding.UTF32, (1, 13 + 3 + 1 + 1 + 1)),
        (Encoding.UTF16, (1, 13 + 3 + 1 + 2 + 1)),
        (Encoding.UTF8, (1, 13 + 9 + 1 + 4 + 1)),
    ],
)
def test_position_after_cjk_and_emoji(encoding: Encoding, expected: tuple[int, int]) -> None:
    index = LineIndex(TEXT)
    offset = TEXT.index("plan")
    assert index.position(offset, encoding) == expected
    assert index.offset(*expected, encoding) == offset


def test_lsp_line_breaks_only() -> None:
    index = LineIndex(TEXT)
    # \n, \r\n and a lone \r each end a line
    assert index.line_count == 5
    assert index.position(TEXT.index('"y"'), Encoding.UTF16) == (3, 0)
    text = '{"a": "x\u2028y\u2029z\x85w\x0cv", "b": 1}\n"c"'
    index = LineIndex(text)
    assert index.line_count == 2  # U+2028, U+2029, NEL and form feed are not LSP line breaks
    assert index.position(text.index('"b"'), Encoding.UTF16) == (0, text.index('"b"'))


def test_offsets_clamp_and_snap() -> None:
    index = LineIndex("ab😀c\nd")
    assert index.offset(0, 99, Encoding.UTF16) == 4  # past the line end: the line end
    assert index.offset(9, 0, Encoding.UTF16) == 6  # past the last line: end of text
    assert index.offset(0, 3, Encoding.UTF16) == 2  # inside the surrogate pair: its start
    assert index.offset(0, 4, Encoding.UTF16) == 3
    assert index.offset(0, 3, Encoding.UTF8) == 2  # inside the 4-byte sequence: its start
    assert index.offset(0, 6, Encoding.UTF8) == 3
    assert index.position(100, Encoding.UTF16) == (1, 1)


def test_lone_surrogate_counts_as_one_unit() -> None:
    text = '"\ud800x"'
    index = LineIndex(text)
    assert index.position(3, Encoding.UTF16) == (0, 3)
    assert index.position(3, Encoding.UTF8) == (0, 5)
