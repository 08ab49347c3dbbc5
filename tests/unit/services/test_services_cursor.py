"""The node and JSON path at an offset, in valid and in broken documents (``|`` is the cursor)."""

from __future__ import annotations

import pytest
from cursor_marker import document, split_cursor

from evalfix_ls.contracts.detection import WORKFLOW
from evalfix_ls.parser.tree import ARRAY, OBJECT, STRING
from evalfix_ls.services.cursor import locate


def cursor(marked: str, kind: str = "evals"):
    text, offset = split_cursor(marked)
    return locate(document(text, kind).root, offset)


def test_value_inside_a_case_names_its_path() -> None:
    c = cursor('{"skill_name": "s", "evals": [{"id": 1, "setup": {"kind": "emp|ty"}}]}')
    assert c.path == ("evals", 0, "setup", "kind")
    assert c.pointer == "/evals/0/setup/kind"
    assert c.node.kind == STRING and c.node.value == "empty"
    assert not c.on_key
    assert c.container.kind == OBJECT and c.container_path == ("evals", 0, "setup")


def test_on_a_member_name() -> None:
    c = cursor('{"skill_name": "s", "ev|als": []}')
    assert c.on_key and c.member.key == "evals"
    assert c.path == ("evals",)
    assert c.node.kind == ARRAY
    assert c.container_path == ()


def test_between_members_the_container_is_the_object() -> None:
    c = cursor('{"evals": [{"id": 1, | "prompt": "p"}]}')
    assert c.node.kind == OBJECT and c.path == ("evals", 0)
    assert c.container is c.node and c.container_path == ("evals", 0)
    assert not c.on_key


def test_empty_array() -> None:
    c = cursor('{"evals": [{"assertions": [|]}]}')
    assert c.node.kind == ARRAY and c.path == ("evals", 0, "assertions")
    assert c.container_path == ("evals", 0, "assertions")


@pytest.mark.parametrize(
    ("marked", "path"),
    [
        # an unterminated string value while typing
        ('{"evals": [{"setup": {"kind": "em|', ("evals", 0, "setup", "kind")),
        # a trailing colon with nothing after it yet
        ('{"evals": [{"setup": {"kind": |', ("evals", 0, "setup")),
        # a missing comma before the cursor
        ('{"evals": [{"id": 1 "prompt": "p|"}]}', ("evals", 0, "prompt")),
    ],
)
def test_broken_documents_still_locate(marked: str, path: tuple) -> None:
    c = cursor(marked)
    assert c.path[: len(path)] == path


def test_workflow_fixture_case() -> None:
    c = cursor('{"cases": [{"id": "a", "coverage_tags": ["trig|ger"]}]}', WORKFLOW)
    assert c.path == ("cases", 0, "coverage_tags", 0)


def test_cjk_and_emoji_before_the_cursor_count_code_points() -> None:
    c = cursor('{"evals": [{"prompt": "日本語 😀", "id": "x|"}]}')
    assert c.path == ("evals", 0, "id") and c.node.value == "x"


def test_outside_the_root() -> None:
    c = cursor('  |  {"evals": []}')
    assert c.node is None and c.path == ()
