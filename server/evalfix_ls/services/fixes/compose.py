"""Edits of several rounds as edits of the original text.

Fix-all applies a round of edits, re-analyses, and applies the next round to the new text. The
editor needs edits on the text it has, so the rounds are folded together here: each round's edits
are mapped back through the edits already taken, and where a new edit touches an earlier one the
two become one edit (its text read from the round's text). Linear in the number of edits; no
comparison of whole texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .edits import TextEdit, apply_edits


@dataclass(slots=True)
class _Span:
    """An edit of the original text and where its new text lies in the current text."""

    edit: TextEdit
    current_start: int

    @property
    def current_end(self) -> int:
        return self.current_start + len(self.edit.new_text)

    @property
    def delta(self) -> int:
        return len(self.edit.new_text) - (self.edit.end - self.edit.start)


class ComposedEdits:
    """The edits that turn the original text into the current one, round after round."""

    def __init__(self, original: str) -> None:
        self.text = original  # the current text
        self._spans: list[_Span] = []

    @property
    def edits(self) -> list[TextEdit]:
        """Non-overlapping edits of the original text, in order."""
        return [span.edit for span in self._spans]

    def apply(self, edits: Sequence[TextEdit]) -> str:
        """Apply one round of non-overlapping ``edits`` of the current text; the new text."""
        new = sorted(edits, key=lambda e: (e.start, e.end))
        # (start, end, an earlier span or None, a new edit or None), in the current text
        items: list[tuple[int, int, _Span | None, TextEdit | None]] = [
            (s.current_start, s.current_end, s, None) for s in self._spans
        ]
        items += [(e.start, e.end, None, e) for e in new]
        items.sort(key=lambda item: (item[0], item[1]))
        spans: list[_Span] = []
        shift = 0  # current minus original offset after the spans already placed
        added = 0  # how far this round's edits moved the current text so far
        at = 0
        while at < len(items):
            start, end = items[at][0], items[at][1]
            cluster = [items[at]]
            at += 1
            while at < len(items) and items[at][0] <= end:  # overlapping or touching
                end = max(end, items[at][1])
                cluster.append(items[at])
                at += 1
            olds = [span for item in cluster if (span := item[2]) is not None]
            news = [edit for item in cluster if (edit := item[3]) is not None]
            cluster_delta = sum(span.delta for span in olds)
            if not news:  # earlier edits only: they stay as they are, moved by this round
                for span in olds:
                    spans.append(_Span(span.edit, span.current_start + added))
                shift += cluster_delta
                continue
            local = [TextEdit(e.start - start, e.end - start, e.new_text) for e in news]
            new_text = apply_edits(self.text[start:end], local)
            original = TextEdit(start - shift, end - shift - cluster_delta, new_text)
            spans.append(_Span(original, start + added))
            shift += cluster_delta
            added += sum(len(e.new_text) - (e.end - e.start) for e in news)
        self.text = apply_edits(self.text, new)
        self._spans = spans
        return self.text
