"""The findings model shared by every contract, the CLI and the language server."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum
from operator import attrgetter
from typing import NamedTuple

from .json_value import JsonValue


class Severity(IntEnum):
    """Values equal LSP's ``DiagnosticSeverity``."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def word(self) -> str:
        return self.name.lower()

    @classmethod
    def from_word(cls, word: str) -> Severity:
        word = word.strip().lower()
        aliases = {"info": "information", "warn": "warning", "err": "error"}
        return cls[aliases.get(word, word).upper()]


class RuleDoc(NamedTuple):
    """What a finding code means and how to fix it (SARIF's rule metadata)."""

    when: str  # what is wrong (Markdown)
    fix: str  # how to fix it (Markdown)


@dataclass(frozen=True, slots=True)
class Related:
    """A second place a finding refers to (e.g. the first occurrence of a duplicate id).

    ``path`` is None for the same document, else a file path (absolute or root-relative)."""

    message: str
    start: int
    end: int
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """One contract violation or remark.

    ``start``/``end`` are code-point offsets into the analysed text; front ends convert them to
    their position encoding. ``pointer`` is the RFC 6901 anchor (for a missing member: its parent).
    ``case`` is the index of the case the finding was raised for, never derived from the pointer.
    ``data`` carries what a quick fix needs (allowed values, the missing member name, …).
    """

    code: str
    severity: Severity
    message: str
    pointer: str
    start: int
    end: int
    case: int | None = None
    data: Mapping[str, JsonValue] | None = None
    related: tuple[Related, ...] = field(default=())

    def with_severity(self, severity: Severity) -> Finding:
        return replace(self, severity=severity)

    @property
    def sort_key(self) -> tuple[int, str]:
        return (self.start, self.code)


# ``Finding.sort_key`` as a C-level key function: the analysis sorts every finding of a document
# on each keystroke (12,555 on a noisy 10 MB suite), where a lambda reading the property cost a
# Python call and a property call per finding.
SORT_KEY: Callable[[Finding], tuple[int, str]] = attrgetter("start", "code")
