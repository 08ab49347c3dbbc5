"""The globs of the configuration's ``files`` mappings, matched without a regular expression.

A project file comes with the repository, and the repository may be a stranger's: a glob such as
``*a*a*a*a*a*a*a*a*a*a*a*a*b`` translated to a regular expression backtracks exponentially on a
long file name (``--check`` hung on it). Here a path is matched by the greedy wildcard algorithm,
at two levels with the same code: the path's segments against the pattern's segments (``**`` is
the star), and a segment's characters against a segment pattern (``*`` is the star). Each level
takes at most (pattern length × text length) steps, whatever the input.

``*`` and ``?`` never cross ``/``; ``**`` as a whole segment matches any number of segments (a
final ``**`` at least one: ``qa/**`` is everything below ``qa``); ``[...]`` is a character class
(``!`` or ``^`` first negates it, ``a-z`` is a range). A pattern without ``/`` matches a file name
in any directory (as in ``.gitignore``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from operator import eq

# One element of a pattern: a test of one item (a character, or a path segment), or None for the
# star that matches any run of items.
Token = Callable[[str], bool] | None

ANY_SEGMENT = "**"


def wildcard_match(tokens: Sequence[Token], items: Sequence[str]) -> bool:
    """Whether ``items`` match ``tokens`` as a whole. Greedy, with one backtracking point (the last
    star): each non-star token matches exactly one item, so the earliest match of what follows a
    star is never worse than a later one — no other choice has to be revisited."""
    token = item = 0
    star, star_item = -1, 0
    while item < len(items):
        test = tokens[token] if token < len(tokens) else _nothing
        if test is None:
            star, star_item = token, item
            token += 1
        elif test(items[item]):
            token += 1
            item += 1
        elif star >= 0:  # let the last star take one more item, and retry what follows it
            star_item += 1
            token, item = star + 1, star_item
        else:
            return False
    return all(rest is None for rest in tokens[token:])


@dataclass(frozen=True, slots=True)
class CharClass:
    """``[...]``: a set of characters and ranges, possibly negated."""

    negated: bool
    chars: str
    ranges: tuple[tuple[str, str], ...]

    def __call__(self, char: str) -> bool:
        inside = char in self.chars or any(low <= char <= high for low, high in self.ranges)
        return inside != self.negated


@dataclass(frozen=True, slots=True)
class SegmentPattern:
    """One ``/``-free piece of a glob, matched against one path segment."""

    tokens: tuple[Token, ...]

    def __call__(self, segment: str) -> bool:
        return wildcard_match(self.tokens, segment)


class PathGlob:
    """A glob over ``/``-separated relative paths. Raises ``ValueError`` for a character class
    with a reversed range (``[z-a]``), which could match nothing."""

    def __init__(self, pattern: str) -> None:
        pattern = pattern.strip()
        while pattern.startswith("./"):
            pattern = pattern[2:]
        if "/" not in pattern:
            pattern = f"{ANY_SEGMENT}/{pattern}"
        segments = pattern.split("/")
        tokens: list[Token] = []
        for number, segment in enumerate(segments):
            if segment != ANY_SEGMENT:
                tokens.append(segment_pattern(segment))
                continue
            if number == len(segments) - 1:  # a final ``**``: something below, not the folder itself
                tokens.append(segment_pattern("*"))
            tokens.append(None)
        self.pattern = pattern
        self._tokens = tuple(tokens)

    def matches(self, relative_path: str) -> bool:
        return wildcard_match(self._tokens, relative_path.split("/"))


def segment_pattern(segment: str) -> SegmentPattern:
    tokens: list[Token] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            tokens.append(None)
        elif char == "?":
            tokens.append(_any_char)
        elif char == "[" and (close := _class_end(segment, index)) != -1:
            tokens.append(char_class(segment[index + 1 : close]))
            index = close
        else:
            tokens.append(partial(eq, char))
        index += 1
    return SegmentPattern(tuple(tokens))


def _any_char(char: str) -> bool:
    return True


def _nothing(item: str) -> bool:
    """What stands past the end of the tokens: matches no item."""
    return False


def _class_end(segment: str, start: int) -> int:
    """The index of the ``]`` closing the class opened at ``start`` (a ``]`` right after the
    opening, or after its ``!``, is a member), or -1 when it is not closed."""
    first = start + 2 if segment.startswith(("[!", "[^"), start) else start + 1
    return segment.find("]", first + 1)


def char_class(body: str) -> CharClass:
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    chars: list[str] = []
    ranges: list[tuple[str, str]] = []
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            low, high = body[index], body[index + 2]
            if low > high:
                raise ValueError(f"the range {low}-{high} in [{body}] is reversed")
            ranges.append((low, high))
            index += 3
        else:
            chars.append(body[index])
            index += 1
    return CharClass(negated, "".join(chars), tuple(ranges))
