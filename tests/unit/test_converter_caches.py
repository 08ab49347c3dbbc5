"""cattrs keeps the hooks it generated when it meets a list type for the first time (issue 33).

cattrs registers the hook of a new list type directly, and a registration cleared its whole
dispatch cache: every class's hook was generated again at its next use, during whatever analysis
was running, and those once-only objects held the analysis' pymalloc arenas after close (the
arena census of the hostile phase, ``bench/tools/arena_census.py``)."""

from __future__ import annotations

import gc
from typing import Union

import pytest
from cattrs import Converter
from lsprotocol import types
from pygls.protocol import JsonRPCResponseMessage

from evalfix_ls.lsp.jsonrpc.encoded import lsp_converter
from evalfix_ls.lsp.server import create_server
from evalfix_ls.lsp.warm_up import SERVER_MESSAGES, prepare_editing_messages


def _server_converter() -> Converter:
    return create_server().protocol._converter


CONVERTERS = {"the protocol's": _server_converter, "the encoder's": lsp_converter}


@pytest.mark.parametrize("make", CONVERTERS.values(), ids=CONVERTERS.keys())
def test_a_new_list_type_keeps_the_hooks_of_classes(make: object) -> None:
    converter: Converter = make()  # type: ignore[operator]
    unstructure_position = converter.get_unstructure_hook(types.Position)
    structure_position = converter.get_structure_hook(types.Position)
    edits = [types.TextEdit(range=types.Range(types.Position(0, 0), types.Position(0, 1)), new_text="x")]
    assert converter.unstructure(edits, list[types.TextEdit])[0]["newText"] == "x"
    assert converter.structure([{"line": 1, "character": 2}], list[types.Position]) == [types.Position(1, 2)]
    assert converter.get_unstructure_hook(types.Position) is unstructure_position
    assert converter.get_structure_hook(types.Position) is structure_position


def test_a_hook_registered_later_still_applies() -> None:
    converter = _server_converter()
    assert converter.unstructure(types.Position(1, 2)) == {"line": 1, "character": 2}
    converter.register_unstructure_hook(types.Position, lambda position: [position.line, position.character])
    assert converter.unstructure(types.Position(1, 2)) == [1, 2]


def test_a_union_hook_registered_later_still_applies() -> None:
    converter = _server_converter()
    assert converter.structure("5", Union[int, str]) == "5"  # noqa: UP007 - the type cattrs is given
    converter.register_structure_hook(Union[int, str], lambda value, _type: f"<{value}>")  # noqa: UP007
    assert converter.structure("5", Union[int, str]) == "<5>"  # noqa: UP007


def _generated_hooks() -> set[int]:
    return {
        id(obj)
        for obj in gc.get_objects()
        if type(obj).__name__ == "function" and obj.__name__.startswith(("unstructure_", "structure_"))
    }


def test_what_the_server_sends_on_its_own_is_serialized_by_the_warm_up() -> None:
    protocol = create_server().protocol
    prepare_editing_messages(protocol.structure_message, protocol.serialize, protocol.structure_answer)
    # an answer with list types met for the first time (hooks of its own made, nothing else)
    where = types.Location(uri="file:///a", range=types.Range(types.Position(0, 0), types.Position(0, 0)))
    protocol.serialize(JsonRPCResponseMessage(id=8, jsonrpc="2.0", result=[where]))
    before = _generated_hooks()
    for message in SERVER_MESSAGES:
        protocol.serialize(message)
    log = types.LogMessageParams(type=types.MessageType.Info, message="indexed")
    protocol.serialize(types.LogMessageNotification(params=log))
    assert _generated_hooks() - before == set()
