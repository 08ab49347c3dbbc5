"""The intact view's "a name starts a line no deeper than column" patterns are compiled with the
module, not into ``re``'s own cache during an analysis (issue 33: a pattern compiled for a column
met during a large analysis stayed in that cache after close, holding one of its arenas)."""

from __future__ import annotations

import re

from evalfix_ls.parser import intact


def test_a_usual_column_compiles_nothing_into_res_cache() -> None:
    re.purge()
    pattern = intact._name_line(7)
    assert pattern.search('{\n  "a": 1,\n       "b": 2\n}', 0) is not None
    assert pattern.search('{\n  "a": 1,\n        "b": 2\n}', 11) is None  # deeper than 7
    assert pattern.pattern not in {key[1] for key in re._cache}  # type: ignore[attr-defined]


def test_every_column_finds_the_same_lines_as_a_pattern_made_for_it() -> None:
    text = '{\n"a": 1,\n  "b": [\n      "c"\n  ],\n\t"d": 2}'
    for column in (0, 1, 2, 5, 6, 32, 33, 40):
        made = re.compile(rf'[\r\n][ \t]{{0,{column}}}"')
        found = [m.start() for m in intact._name_line(column).finditer(text)]
        assert found == [m.start() for m in made.finditer(text)], column
