"""Rounds of fix-all edits folded into edits of the original text (services/fixes/compose.py):
applied to the original they give exactly the text the rounds gave, and they never overlap."""

from __future__ import annotations

import random

from evalfix_ls.services.fixes.compose import ComposedEdits
from evalfix_ls.services.fixes.edits import TextEdit, apply_edits


def random_round(rng: random.Random, text: str) -> list[TextEdit]:
    """Non-overlapping edits of ``text``: replacements, insertions, deletions, some adjacent."""
    edits, position = [], 0
    while position <= len(text) and len(edits) < 6:
        start = position + rng.randint(0, 4)
        if start > len(text):
            break
        end = min(len(text), start + rng.choice([0, 0, 1, 2, 5]))
        new_text = rng.choice(["", "x", "中🎉", "yy\n"])
        if start == end and not new_text:
            new_text = "+"
        edits.append(TextEdit(start, end, new_text))
        position = end + rng.choice([0, 1, 3])
        if position == start:  # two insertions at one point have no defined order
            position += 1
    return edits


def test_composed_rounds_give_the_rounds_text() -> None:
    for seed in range(400):
        rng = random.Random(seed)
        original = "".join(rng.choice("ab\n{}") for _ in range(rng.randint(0, 30)))
        composed, expected = ComposedEdits(original), original
        for _ in range(rng.randint(1, 4)):
            round_edits = random_round(rng, expected)
            expected = apply_edits(expected, round_edits)
            assert composed.apply(round_edits) == expected
        edits = composed.edits
        assert apply_edits(original, edits) == expected, seed
        assert all(a.end <= b.start for a, b in zip(edits, edits[1:], strict=False)), seed


def test_a_single_round_keeps_its_edits() -> None:
    composed = ComposedEdits("abcdef")
    composed.apply([TextEdit(1, 2, "B"), TextEdit(4, 4, "_")])
    assert composed.edits == [TextEdit(1, 2, "B"), TextEdit(4, 4, "_")]
