"""Markdown heading anchors (``SKILL.md#install-安装``), one definition for every feature: what
completion inserts after ``#`` is what document links and go-to-definition resolve.

An anchor is GitHub's: the heading's slug (``github_slug``), ``-1``, ``-2``… for its repeats. An
anchor as people write it — the heading's own text (``SKILL.md#Install 安装``) or a slug with its
capitals kept (``#When-Not-To-Use``) — is read through the same slug, so it resolves too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..text.line_index import text_lines
from .workspace_facts import WorkspaceFacts

HEADING_SCAN_BYTES = 256 * 1024  # a Markdown file's headings are read from its first 256 KiB
MAX_HEADINGS = 200  # offered by completion
MARKDOWN_SUFFIXES = (".md", ".markdown")
# An ATX heading (CommonMark): up to three spaces, 1–6 '#', its text, an optional closing run of
# '#' after a blank ("C#" keeps its '#').
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*")


@dataclass(frozen=True, slots=True)
class Heading:
    text: str  # as written
    anchor: str  # GitHub's anchor: the slug, "-N" for the N-th repeat
    line: int  # 0-based, lines as an LSP client counts them


def github_slug(heading: str) -> str:
    """GitHub's heading slug: lower case, punctuation dropped, spaces to ``-``."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def headings(text: str) -> list[Heading]:
    """The ATX headings of a Markdown text, in order, each with its anchor."""
    found: list[Heading] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text_lines(text)):
        match = _HEADING.fullmatch(line)
        if match is None or not match.group(1):
            continue
        written = match.group(1)
        slug = github_slug(written)
        repeats = seen.get(slug, 0)
        seen[slug] = repeats + 1
        found.append(Heading(written, slug if repeats == 0 else f"{slug}-{repeats}", number))
    return found


def file_headings(facts: WorkspaceFacts, path: Path) -> list[Heading]:
    """The headings of a Markdown file inside the repository (its first ``HEADING_SCAN_BYTES``);
    none when it is no Markdown file or cannot be read (a FIFO is never opened)."""
    if path.suffix.lower() not in MARKDOWN_SUFFIXES:
        return []
    text = facts.read_head(path, HEADING_SCAN_BYTES)
    return headings(text) if text is not None else []


def find_heading(found: list[Heading], anchor: str) -> Heading | None:
    """The heading ``anchor`` names, written as GitHub's anchor or as the heading's text."""
    wanted = github_slug(anchor)
    return next((heading for heading in found if heading.anchor == wanted), None)
