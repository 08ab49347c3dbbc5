"""Inline code in the Markdown the server sends (hovers): a fixture's value or a file's name shown
as code, whatever it holds.

A plain ```…``` span ends at the first backtick inside: an id such as
``a`![x](https://host/t.png)`` closed it early, and what followed was rendered — an image the
editor fetches from anywhere on hover, a link, a heading."""

from __future__ import annotations

import re

from ..contracts.detection import ReasonPart

_BACKTICK_RUNS = re.compile("`+")
_LINE_BREAKS = re.compile("\r\n|[\r\n\u2028\u2029]")


def code(text: str) -> str:
    """``text`` as a CommonMark code span that holds all of it: the fence is one backtick longer
    than the longest run inside, a space pads a backtick at either end, and line breaks are
    spaces (a blank line would end the paragraph, and the span with it)."""
    text = _LINE_BREAKS.sub(" ", text)
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def reason_markdown(reason: str, parts: tuple[ReasonPart, ...]) -> str:
    """A classification's reason for a hover: its prose as written, each name and value it quotes
    as code (``parts``; a reason without them is prose only)."""
    if not parts:
        return reason
    return "".join(part if isinstance(part, str) else code(part.text) for part in parts)
