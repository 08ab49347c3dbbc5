"""The README's table of fixable findings names exactly the codes the fix engine has fixers for."""

from __future__ import annotations

import re
from pathlib import Path

from evalfix_ls.contracts.codes import ALL_CODES
from evalfix_ls.services.fixes import fixable_codes

README = Path(__file__).resolve().parents[3] / "README.md"


def documented_codes() -> set[str]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("<!-- fixable:start -->") : text.index("<!-- fixable:end -->")]
    codes: set[str] = set()
    for line in table.splitlines()[3:]:
        first_cell = line.split("|")[1]
        codes.update(re.findall(r"`([a-z_-]+)`", first_cell))
    return codes


def test_readme_lists_every_fixable_code_and_no_other() -> None:
    assert documented_codes() == set(fixable_codes())


def test_every_fixer_is_for_a_real_code() -> None:
    assert set(fixable_codes()) <= set(ALL_CODES)
