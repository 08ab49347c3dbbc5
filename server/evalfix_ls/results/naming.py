"""Names on disk, computed as arc-skill-eval's JavaScript computes them (run-results.md A.3, A.4).

The case folder is ``eval-`` + the JS-string of the id with every UTF-16 code unit outside
``[A-Za-z0-9_.-]`` replaced by one ``-``: a character outside the BMP (an emoji) is two code units,
so two hyphens; nothing is trimmed, lowered or collapsed. Run ids from the CLI are 24-character
UTC timestamps (``2026-05-04T22-31-04-123Z``), so their names sort chronologically; a library
caller's custom id does not, and falls back to the folder's mtime.
"""

from __future__ import annotations

import re

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
RUN_ID = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
CASE_PREFIX = "eval-"
BUCKET_PREFIX = "iteration-"


def _utf16_units(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


def sanitize(value: str) -> str:
    """arc-skill-eval's slug: each UTF-16 code unit outside ``[A-Za-z0-9_.-]`` becomes ``-``."""
    return "".join(char if char in _SAFE else "-" * _utf16_units(char) for char in value)


def case_dir_name(case_id: str) -> str:
    """The folder of a case whose JS-string id is ``case_id`` (``"東京 greeting"`` → ``eval----greeting``)."""
    return CASE_PREFIX + sanitize(case_id)


def iteration_bucket(value: str) -> str | None:
    """The bucket folder ``--iteration value`` writes into (None: no bucket). Trim, prefix
    ``iteration-`` unless it starts so (case-sensitive), then sanitize (A.3, in that order)."""
    trimmed = value.strip()
    if not trimmed:
        return None
    if not trimmed.startswith(BUCKET_PREFIX):
        trimmed = BUCKET_PREFIX + trimmed
    return sanitize(trimmed)


def is_timestamp_run(name: str) -> bool:
    return RUN_ID.match(name) is not None


_ITERATION_NUMBER = re.compile(r"^iteration-(\d+)$")


def iteration_number(name: str) -> int | None:
    """skill-creator's ``iteration-N`` as a number (``iteration-10`` is newer than ``iteration-9``)."""
    found = _ITERATION_NUMBER.match(name)
    return int(found.group(1)) if found else None


_FOLDER_NUMBER = re.compile(r"^eval-(\d+)(?:-|$)")


def folder_number(name: str) -> int | None:
    """The integer of skill-creator's ``eval-<n>[-name]`` folder (the aggregator's second rule)."""
    found = _FOLDER_NUMBER.match(name)
    return int(found.group(1)) if found else None
