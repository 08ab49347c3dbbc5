"""Issue 29 in Neovim on real run trees: ``../shared/corpus/arc-runs`` (written by arc-skill-eval's
own code), copied to ``tmp_path``. Each case's result lens, as Neovim keeps it for display
(``vim.lsp.codelens.get``), says what the corpus README says, from the run the spec's rule picks
(the same expectations as ``tests/lsp/test_run_results.py``'s corpus test over stdio). Skipped
before anything starts where ``../shared`` is absent."""

from __future__ import annotations

import shutil
from pathlib import Path

import editor_support as ed
import pytest
from test_neovim import DRIVER, VARIANTS, Variant

pytestmark = pytest.mark.corpus
SUITE = Path("skills/greeter/evals/evals.json")
NEWEST = "no result in the newest run (2026-12-03T08-00-00-000Z) · from 2026-12-02T11-30-00-000Z: "


def result_lenses(titles: list[str]) -> list[str]:
    """The result lenses among a suite's lenses (each case also has its "run … alone" lens)."""
    return [title for title in titles if title[:1].isdigit() or title.startswith("no ")]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_corpus_runs_show_in_neovim(variant: Variant, tmp_path: Path, corpus_dir: Path) -> None:
    binary = variant.binary()
    workspace = shutil.copytree(corpus_dir / "arc-runs" / "repo", tmp_path / "workspace")
    (workspace / ".git").mkdir(exist_ok=True)
    output = tmp_path / "seen.json"
    spec = ed.write_spec(
        tmp_path,
        file=str(workspace / SUITE),
        output=str(output),
        config_dir=str(ed.ROOT / "editors" / "nvim"),
        edits=[],
        timeout_ms=ed.WAIT_TIMEOUT_MS,
        setup=variant.setup,
        settings={},
        lens_marker="3/6 passed",
        lenses_only=True,
    )
    env = ed.isolated_env(tmp_path) | {"EVALFIX_SPEC": str(spec)}
    command = [str(binary), "--headless", "--clean", "-c", f"luafile {DRIVER}"]
    seen = ed.run_editor(command, env, workspace, output)
    assert seen["errors"] == [], seen["errors"]
    default, two, tokyo, empty = result_lenses(seen["lenses"]["shown"])
    assert default.startswith("3/6 passed · ")
    assert two.startswith(NEWEST + "3/3 passed") and two.endswith("+0.00 vs without skill")
    assert tokyo.startswith(NEWEST + "1/2 passed")
    assert empty.startswith(NEWEST + "no assertions graded")
