"""Positions on long lines (a minified suite is one line): the checkpointed conversion agrees with a
plain scan from the line start, and its work does not grow with the line length per conversion."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalfix_ls.text import line_index
from evalfix_ls.text.line_index import Encoding, LineIndex

ENCODINGS = (Encoding.UTF8, Encoding.UTF16, Encoding.UTF32)


def naive_position(text: str, offset: int, encoding: Encoding) -> tuple[int, int]:
    """The definition: count line breaks before ``offset``, then the code units since the line start."""
    offset = max(0, min(offset, len(text)))
    line, start, i = 0, 0, 0
    while i < offset:
        if text[i] == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            if i + 1 < offset:
                line, start, i = line + 1, i + 2, i + 2
                continue
            break  # offset between \r and \n: still on the line the \r\n ends
        if text[i] in "\r\n":
            line, start = line + 1, i + 1
        i += 1
    return line, line_index.unit_length(text[start:offset], encoding)


def naive_offset(text: str, line: int, character: int, encoding: Encoding) -> int:
    """The smallest offset on ``line`` whose position is at least ``character`` (snapping inside a
    multi-unit character to its start), else the line end."""
    index = LineIndex(text)
    if line < 0:
        return 0
    if line >= index.line_count:
        return len(text)
    start, end = index.starts[line], index.line_end(line)
    for offset in range(start, end + 1):
        units = line_index.unit_length(text[start:offset], encoding)
        if units == character:
            return offset
        if units > character:
            return offset - 1
    return end


texts = st.text(alphabet=st.sampled_from(["a", "{", '"', "请", "😀", "é", "\n", "\r", "\ud800"]), max_size=60)


@pytest.fixture(autouse=True)
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 4 code points, so short generated lines cross many checkpoints."""
    monkeypatch.setattr(line_index, "BLOCK", 4)


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_checkpointed_positions_equal_a_plain_scan(text: str, data: st.DataObject) -> None:
    index = LineIndex(text)
    for encoding in ENCODINGS:
        for offset in data.draw(st.lists(st.integers(-1, len(text) + 1), max_size=6)):
            assert index.position(offset, encoding) == naive_position(text, offset, encoding)


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_positions_in_one_pass_equal_a_plain_scan(text: str, data: st.DataObject) -> None:
    """``positions`` (the batch behind the JSON-written answers) agrees offset by offset."""
    index = LineIndex(text)
    offsets = data.draw(st.lists(st.integers(-1, len(text) + 1), max_size=8))
    for encoding in ENCODINGS:
        assert index.positions(offsets, encoding) == [naive_position(text, o, encoding) for o in offsets]


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_checkpointed_offsets_equal_a_plain_scan(text: str, data: st.DataObject) -> None:
    index = LineIndex(text)
    for encoding in ENCODINGS:
        for _ in range(4):
            line = data.draw(st.integers(-1, index.line_count))
            character = data.draw(st.integers(0, 2 * len(text) + 2))
            assert index.offset(line, character, encoding) == naive_offset(text, line, character, encoding)


def test_conversions_on_one_long_line_do_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count the code points each conversion encodes or scans. A scan from the line start costs
    the distance to the offset (quadratic over a one-line file with findings all along it); with
    checkpoints, a conversion costs at most a few blocks, plus one pass over the text to build them."""
    monkeypatch.setattr(line_index, "BLOCK", 64)
    examined = 0
    plain_unit_length, plain_scan = line_index.unit_length, line_index.scan_units

    def counting_unit_length(segment: str, encoding: Encoding) -> int:
        nonlocal examined
        examined += len(segment)
        return plain_unit_length(segment, encoding)

    def counting_scan(text: str, index: int, end: int, units: int, character: int, encoding: Encoding) -> int:
        nonlocal examined
        found = plain_scan(text, index, end, units, character, encoding)
        examined += found - index
        return found

    monkeypatch.setattr(line_index, "unit_length", counting_unit_length)
    monkeypatch.setattr(line_index, "scan_units", counting_scan)
    text = '{"evals": [' + ", ".join(f'{{"id": "c{i}", "prompt": "请 😀 {i}"}}' for i in range(2000)) + "]}"
    index = LineIndex(text)
    queries = range(0, len(text), 97)
    for encoding in (Encoding.UTF8, Encoding.UTF16):
        for offset in queries:
            line, character = index.position(offset, encoding)
            assert index.offset(line, character, encoding) == offset
    per_conversion = 4 * 64
    budget = 2 * len(text) + 2 * 2 * len(queries) * per_conversion  # 2 tables; 2 encodings x 2 calls
    assert examined <= budget, f"{examined} code points examined for {2 * len(queries)} conversions"
