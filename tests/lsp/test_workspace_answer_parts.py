"""The pieces of a ``workspace/diagnostic`` answer (``workspace_pull.answer_parts``) make the same
JSON as the answer written whole, whatever mix of written reports (each its own piece) and
unchanged ones (written together) it holds: a separator lost or doubled between two pieces is a
message the client cannot read."""

from __future__ import annotations

import itertools
import json

import pytest

from evalfix_ls.lsp.diagnostics.workspace_pull import WorkspaceItem, answer_parts, items_json


def item(n: int, written: bool) -> WorkspaceItem:
    if written:
        report = {"uri": f"file:///s{n}", "resultId": f"r{n}", "version": None, "items": [], "kind": "full"}
        return WorkspaceItem(
            f"file:///s{n}", f"r{n}", None, (), json.dumps(report, ensure_ascii=False).encode()
        )
    return WorkspaceItem(f"file:///s{n}", f"r{n}", None, None)


@pytest.mark.parametrize(
    "shape", [shape for size in range(5) for shape in itertools.product((False, True), repeat=size)]
)
def test_the_pieces_join_into_the_whole_answer(shape: tuple[bool, ...]) -> None:
    items = [item(n, written) for n, written in enumerate(shape)]
    whole = json.loads(f'{{"items": {items_json(items)}}}')
    assert json.loads(b"".join(answer_parts(items)).decode("utf-8")) == whole
    assert len(whole["items"]) == len(shape)


def test_a_written_report_is_its_own_piece() -> None:
    items = [item(0, False), item(1, True), item(2, False)]
    assert items[1].written in answer_parts(items)
