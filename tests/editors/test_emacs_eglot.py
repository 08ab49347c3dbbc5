"""Emacs 28 + Eglot (Debian emacs-nox + elpa-eglot), batch mode, through the shipped
editors/emacs/evalfix-eglot.el.

``emacs --batch`` without ``-Q`` (that would drop Debian's package setup, where Eglot's load path
comes from). The driver (eglot_driver.el) opens the suite, records the raw publishDiagnostics and
Flymake's diagnostics, edits the buffer, records again, completes in the empty setup ``kind``.
"""

from __future__ import annotations

from pathlib import Path

import editor_support as ed
import pytest

DRIVER = Path(__file__).with_name("eglot_driver.el")
# Proves the workspace configuration (section `evalfix`) reaches the server.
SETTINGS = {"evalfix": {"severity": {"sandbox-invalid": "information"}}}
FLYMAKE_TYPE = {"setup-kind-invalid": "eglot-error", "script-type-invalid": "eglot-error"}


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    emacs = ed.require(ed.which_outside_venv("emacs"), "Emacs (Debian emacs-nox)")
    if not any(Path("/usr/share/emacs/site-lisp/elpa").glob("eglot-*")):
        ed.require(None, "Eglot (Debian elpa-eglot)")
    tmp = tmp_path_factory.mktemp("emacs-eglot")
    return ed.drive(tmp, [str(emacs), "--batch", "-l", str(DRIVER)], "emacs", settings=SETTINGS)


def _shown(phase: dict) -> list[tuple[str, int, int, int, int]]:
    return sorted((d["code"], *d["start"], *d["end"]) for d in phase["diagnostics"])


def _check_phase(phase: dict, text: str) -> None:
    # The raw report in UTF-16 (Eglot 1.9 offers no positionEncodings) ...
    assert ed.lsp_spans(phase["report"]["diagnostics"]) == ed.expected_spans(text, "utf-16")
    # ... and where Flymake put each one: Emacs characters (code points) into the line.
    assert _shown(phase) == ed.expected_spans(text, "utf-32")


def test_the_shipped_mode_and_flymake_are_on(seen: dict) -> None:
    assert seen["major_mode"] == "evalfix-json-mode"
    assert seen["flymake"] is True


def test_diagnostics_at_exact_positions(seen: dict) -> None:
    _check_phase(seen["initial"], ed.fixture_text())


def test_workspace_configuration_reaches_the_server(seen: dict) -> None:
    types = {d["code"]: d["type"] for d in seen["initial"]["diagnostics"]}
    assert types["sandbox-invalid"] == "eglot-note"  # information; a warning without the setting
    assert {code: types[code] for code in FLYMAKE_TYPE} == FLYMAKE_TYPE


def test_edit_moves_the_diagnostics(seen: dict) -> None:
    edited = ed.apply_edits(ed.fixture_text())
    assert seen["text_after_edit"] == edited
    assert seen["edited"]["version"] > seen["initial"]["version"]
    _check_phase(seen["edited"], edited)


def test_completion_offers_the_setup_kinds(seen: dict) -> None:
    ed.skip_unless_completion(seen)
    line, character = ed.completion_position(ed.apply_edits(ed.fixture_text()), "utf-32")
    assert seen["completion"]["position"] == [line, character]
    assert ed.completion_labels(seen["completion"]["items"]) == ed.SETUP_KINDS
