"""parser/incremental/approximate.py (``reparse_local``, the approximate mode of
``incremental.reparse``): the tree of a new version from an earlier one, re-parsing only
around the edit, equal (where features look) to parsing the whole new text."""

from __future__ import annotations

import json
import threading

import pytest

from evalfix_ls.parser import parse
from evalfix_ls.parser.incremental import shift
from evalfix_ls.parser.incremental.approximate import LOCAL_LIMIT, reparse_local
from evalfix_ls.parser.tree import Node, iter_nodes, resolve_pointer
from evalfix_ls.services.cursor import locate


def suite(cases: int) -> str:
    body = [{"id": f"c{i}", "prompt": "日本語 🎉", "setup": {"kind": "empty"}} for i in range(cases)]
    return json.dumps({"skill_name": "s", "evals": body}, ensure_ascii=False, indent=2)


def shape(root) -> list[tuple]:
    return [(n.kind, n.start, n.end, n.value if n.kind != "object" else None) for n in iter_nodes(root)]


def edited(text: str, at: str, insert: str, occurrence: int = 0) -> tuple[str, int]:
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(at, index + 1)
    return text[:index] + insert + text[index:], index


@pytest.mark.parametrize("insert", ['"em', '"x": ', "tr", ', "', "1, "])
@pytest.mark.parametrize("cases", [3, 400])
def test_same_tree_as_a_full_parse(insert: str, cases: int) -> None:
    old = suite(cases)
    new, at = edited(old, '"kind"', insert, occurrence=cases // 2)
    local = reparse_local(parse(old), new, at, at)
    assert local is not None
    full = parse(new)
    # the region around the edit equals the full parse; elsewhere the trees are the same
    assert shape(local.root) == shape(full.root)
    assert locate(local.root, at + len(insert)).path == locate(full.root, at + len(insert)).path


def test_an_edit_between_the_items_of_a_big_array_reparses_a_window() -> None:
    old = suite(400)
    assert len(old) > LOCAL_LIMIT
    new, at = edited(old, '{\n      "id": "c200"', '{"id": "new", "pro')
    local = reparse_local(parse(old), new, at, at)
    assert local is not None
    # the unterminated name swallows what follows on its line: the closing bracket added to the
    # window here, the next case's brace in the full text
    path = locate(local.root, at + 17).path
    assert path[:2] == locate(parse(new).root, at + 17).path[:2] == ("evals", 200) and path[2].startswith(
        "pro"
    )
    assert local.root.get("evals").items[-1].start == parse(new).root.get("evals").items[-1].start


def test_a_window_keeps_the_untouched_items_and_places_the_new_ones_exactly() -> None:
    old = suite(400)
    prev = parse(old)
    new, at = edited(old, '{\n      "id": "c200"', '{"id": "new 新", "prompt": "p"},\n    ')
    local = reparse_local(prev, new, at, at)
    assert local is not None and not local.errors
    assert shape(local.root) == shape(parse(new).root)
    # only the window was parsed again: the cases before the edit are the earlier tree's own
    assert local.root.get("evals").items[199] is prev.root.get("evals").items[199]


def test_a_later_edit_builds_on_a_recovered_tree() -> None:
    old = suite(50)
    first, at = edited(old, '"kind"', '"em', occurrence=10)
    broken = reparse_local(parse(old), first, at, at)
    second = first[: at + 3] + "p" + first[at + 3 :]
    again = reparse_local(broken, second, at + 3, at + 3)
    assert again is not None and shape(again.root) == shape(parse(second).root)


def test_an_edit_on_a_closing_bracket_reparses_the_container_around_it() -> None:
    old = '{"a": [1, 2], "b": {"c": 1}}'
    new = '{"a": [1, 2}, "b": {"c": 1}}'  # the array's closing bracket replaced
    local = reparse_local(parse(old), new, 11, 12)
    assert local is not None and local.errors and shape(local.root) == shape(parse(new).root)


def test_none_without_a_container_around_the_edit() -> None:
    assert reparse_local(parse("[1]"), "[1]x", 3, 3) is None


def test_the_items_after_a_window_are_moved_one_by_one_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mid-file edit leaves thousands of cases after it: wrapping each costs more than the
    request, so reading one of them moves that one only."""
    old = suite(400)
    prev = parse(old)
    new, at = edited(old, '{\n      "id": "c200"', '{"id": "new", "pro')
    local = reparse_local(prev, new, at, at)
    assert local is not None
    moved: list[int] = []
    real = shift.shifted
    monkeypatch.setattr(shift, "shifted", lambda node, delta: moved.append(node.start) or real(node, delta))
    items = local.root.get("evals").items
    last = items[len(items) - 1]
    assert moved == [prev.root.get("evals").items[-1].start]
    assert (last.start, last.end) == (lambda n: (n.start, n.end))(parse(new).root.get("evals").items[-1])


def test_a_moved_container_builds_its_children_outside_the_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """One lock guards the materialisation of every moved node: building the thousands of cases
    of a moved array under it made a hover on another thread wait for one node of its own."""
    root = parse(suite(20)).root
    built_while_locked: list[bool] = []
    real_shifted, real_member = shift.shifted, shift.shift_member

    def watched_shifted(node, delta):
        built_while_locked.append(shift._MATERIALIZE_LOCK.locked())
        return real_shifted(node, delta)

    def watched_member(member, delta):
        built_while_locked.append(shift._MATERIALIZE_LOCK.locked())
        return real_member(member, delta)

    moved = shift.shifted(root, 7)  # before the patch: the moved root itself is not a child
    monkeypatch.setattr(shift, "shifted", watched_shifted)
    monkeypatch.setattr(shift, "shift_member", watched_member)
    cases = moved.get("evals").items
    assert [(case.start, case.end) for case in cases] == [
        (case.start + 7, case.end + 7) for case in root.get("evals").items
    ]
    assert built_while_locked and not any(built_while_locked)


def test_a_tree_moved_twice_reads_its_unbuilt_children_without_deadlock() -> None:
    # An array moved by a first edit keeps its children unbuilt; a second edit earlier in the text
    # moves the node that holds it again, and reading through both once took the one lock shared by
    # every moved node twice on the same thread: the read (and every later one) never returned.
    doc = {"evals": [{"id": i, "assertions": [{"t": "a"}, {"t": "b"}]} for i in range(8)]}
    text = json.dumps(doc)
    first, at = edited(text, 'b"', "x", occurrence=5)
    once = reparse_local(parse(text), first, at, at)
    assert once is not None
    second, at = edited(first, ', "assertions"', "1", occurrence=3)
    twice = reparse_local(once, second, at, at)
    assert twice is not None
    read: list[Node | None] = []
    target = "/evals/5/assertions/1/t"
    reader = threading.Thread(target=lambda: read.append(resolve_pointer(twice.root, target)), daemon=True)
    reader.start()
    reader.join(timeout=30)  # bounds only a failure: a working read returns at once
    assert not reader.is_alive(), "reading the twice-moved tree deadlocked"
    assert [node.value for node in read if node is not None] == ["xb"]
    assert shape(twice.root) == shape(parse(second).root)
