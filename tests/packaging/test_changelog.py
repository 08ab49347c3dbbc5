"""CHANGELOG.md (Keep a Changelog): an `[Unreleased]` section on top, then a dated section for
the version being released, so that a version bump without release notes fails."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from evalfix_ls import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_unreleased_then_the_current_version_dated() -> None:
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\S+))?$", (ROOT / "CHANGELOG.md").read_text("utf-8"), re.M)
    assert headings[0] == ("Unreleased", "")
    versions = headings[1:]
    assert versions and versions[0][0] == __version__, headings
    date.fromisoformat(versions[0][1])  # YYYY-MM-DD
