"""Emacs 28 + lsp-mode 8.0 (Debian emacs-nox + elpa-lsp-mode), batch mode, through the shipped
editors/emacs/evalfix-lsp-mode.el.

lsp-mode offers no ``positionEncodings`` (so the server speaks UTF-16) and moves over a UTF-16
column as over that many Emacs characters: after a character outside the BMP (an emoji, 𠮷) the
diagnostic starts one character late per such character (a client bug, documented in the README).
The test checks exactly that: the raw report is right in UTF-16, and Flymake's character columns
are those same numbers, which are the true character columns only where no astral character
precedes.
"""

from __future__ import annotations

from pathlib import Path

import editor_support as ed
import pytest

DRIVER = Path(__file__).with_name("lsp_mode_driver.el")
ELPA = Path("/usr/share/emacs/site-lisp/elpa")  # where Debian's elpa-* packages put them


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    emacs = ed.require(ed.which_outside_venv("emacs"), "Emacs (Debian emacs-nox)")
    if not any(ELPA.glob("lsp-mode-*")):
        ed.require(None, "lsp-mode (Debian elpa-lsp-mode)")
    tmp = tmp_path_factory.mktemp("emacs-lsp-mode")
    return ed.drive(tmp, [str(emacs), "--batch", "-l", str(DRIVER)], "emacs", settings={})


def _shown(phase: dict) -> list[tuple[int, int, int, int]]:
    return sorted((*d["start"], *d["end"]) for d in phase["diagnostics"])


def _without_code(spans: list[ed.Span]) -> list[tuple[int, int, int, int]]:
    return sorted(span[1:] for span in spans)


def _check_phase(phase: dict, text: str) -> None:
    assert ed.lsp_spans(phase["report"]["diagnostics"]) == ed.expected_spans(text, "utf-16")
    # lsp-mode's Flymake entries: the UTF-16 numbers, taken as character columns.
    assert _shown(phase) == _without_code(ed.expected_spans(text, "utf-16"))


def test_the_shipped_hook_and_flymake_are_on(seen: dict) -> None:
    assert seen["major_mode"] == "evalfix-json-mode"
    assert seen["deferred"] is True  # evalfix-json-mode-hook ran lsp-deferred
    assert seen["flymake"] is True  # lsp-diagnostics (required by the shipped file) started it


def test_diagnostics_at_utf16_positions(seen: dict) -> None:
    _check_phase(seen["initial"], ed.fixture_text())


def test_lsp_mode_columns_are_utf16_read_as_characters(seen: dict) -> None:
    text = ed.fixture_text()
    lines = text.split("\n")
    shown = _shown(seen["initial"])
    in_characters = _without_code(ed.expected_spans(text, "utf-32"))
    for lsp_mode, right in zip(shown, in_characters, strict=True):
        astral_before = any(ord(c) > 0xFFFF for c in lines[right[0]][: right[1]])
        # Right unless an astral character precedes the problem on its line, late otherwise.
        assert (lsp_mode[1] == right[1]) is not astral_before, (lsp_mode, right)


def test_an_edit_across_an_emoji_desyncs_the_server(seen: dict) -> None:
    """lsp-mode counts characters for its didChange ranges too: the emoji's replacement is sent as
    a one-unit range where it takes two, so the server's copy of that line diverges from the
    buffer (documented in the README). Every other line stays exact, moved by the new line."""
    edited = ed.apply_edits(ed.fixture_text())
    assert seen["text_after_edit"] == edited
    assert seen["edited"]["version"] > seen["initial"]["version"]
    changed_line = ed.EDITS[0]["line"] + 1  # the emoji's line, below the inserted one
    raw = ed.lsp_spans(seen["edited"]["report"]["diagnostics"])
    truth = ed.expected_spans(edited, "utf-16")
    assert [s for s in raw if s[1] != changed_line] == [s for s in truth if s[1] != changed_line]
    on_line = [s for s in raw if s[1] == changed_line]
    assert on_line and on_line != [s for s in truth if s[1] == changed_line]
