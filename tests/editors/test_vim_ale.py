"""Vim 9 + ALE 3.3 (Debian vim + vim-ale), headless (``vim -es``), through the shipped
editors/vim/ale_linters/json/evalfix_ls.vim.

ALE offers no ``positionEncodings`` (so the server speaks UTF-16) and copies the UTF-16 columns
into its loclist, where Vim reads them as byte columns: after CJK text or an emoji the squiggle
lands left of the problem (a client bug, documented in the README). The test checks exactly that:
the raw report is right in UTF-16, and ALE's columns are those same numbers, which equal the byte
columns only on the ASCII control line.
"""

from __future__ import annotations

from pathlib import Path

import editor_support as ed
import pytest

DRIVER = Path(__file__).with_name("ale_driver.vim")
ALE = Path("/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale")  # where Debian's vim-ale puts it
# Proves the linter's lsp_config (sent with didChangeConfiguration) reaches the server.
SETTINGS = {"evalfix": {"severity": {"sandbox-invalid": "information"}}}


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    vim = ed.require(ed.which_outside_venv("vim"), "Vim (Debian vim)")
    if not ALE.is_dir():
        ed.require(None, "ALE (Debian vim-ale)")
    tmp = tmp_path_factory.mktemp("vim-ale")
    command = [str(vim), "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", str(DRIVER)]
    return ed.drive(tmp, command, "vim", complete_after=ed.COMPLETE_AFTER_ASCII, settings=SETTINGS)


def _loclist(phase: dict) -> list[ed.Span]:
    """ALE's loclist back in LSP terms: 1-based ``col``, inclusive 1-based ``end_col``."""
    return sorted(
        (d["code"], d["lnum"] - 1, d["col"] - 1, d["end_lnum"] - 1, d["end_col"]) for d in phase["loclist"]
    )


def _check_phase(phase: dict, text: str) -> None:
    assert ed.lsp_spans(phase["report"]["diagnostics"]) == ed.expected_spans(text, "utf-16")
    assert _loclist(phase) == ed.expected_spans(text, "utf-16")


def test_diagnostics_at_exact_positions(seen: dict) -> None:
    assert seen["filetype"] == "json"
    _check_phase(seen["initial"], ed.fixture_text())


def test_ale_columns_are_utf16_read_as_bytes(seen: dict) -> None:
    text = ed.fixture_text()
    lines = text.split("\n")
    shown = _loclist(seen["initial"])
    in_bytes = ed.expected_spans(text, "utf-8")
    for ale_span, byte_span in zip(shown, in_bytes, strict=True):
        line = lines[byte_span[1]]
        ascii_before = line.encode("utf-8")[: byte_span[2]].isascii()
        # Right where only ASCII precedes the problem (the control), left of it everywhere else.
        assert (ale_span[2] == byte_span[2]) is ascii_before, (ale_span, byte_span)


def test_lsp_config_reaches_the_server(seen: dict) -> None:
    severities = {d["code"]: d["severity"] for d in seen["initial"]["report"]["diagnostics"]}
    # information (3); a warning (2) without the setting. ALE's loclist shows both as "W".
    assert severities["sandbox-invalid"] == 3
    assert severities["setup-kind-invalid"] == 1


def test_edit_moves_the_diagnostics(seen: dict) -> None:
    edited = ed.apply_edits(ed.fixture_text())
    assert "\n".join(seen["text_after_edit"]) + "\n" == edited
    assert seen["edited"]["version"] > seen["initial"]["version"]
    _check_phase(seen["edited"], edited)


def test_completion_offers_the_setup_kinds(seen: dict) -> None:
    ed.skip_unless_completion(seen)
    edited = ed.apply_edits(ed.fixture_text())
    line, character = ed.completion_position(edited, "utf-16", ed.COMPLETE_AFTER_ASCII)
    # ALE sends `column - 1` of a byte column: right here, where only ASCII precedes the cursor.
    assert (seen["completion"]["line"] - 1, seen["completion"]["column"] - 1) == (line, character)
    assert ed.completion_labels(seen["completion"]["items"]) == ed.SETUP_KINDS
