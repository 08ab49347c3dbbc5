"""Paths and helpers shared by the test folders (import as ``fixture_paths``; a module named
``conftest`` would clash with the per-folder conftest files)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


def materialize(corpus: Path, dest: Path) -> Path:
    """Create every path of the corpus' tree.txt under ``dest`` (corpus files with their
    content, others empty), so existence checks behave as in the real checkout."""
    for line in (corpus / "tree.txt").read_text(encoding="utf-8").splitlines():
        if not line:
            continue
        target = dest / line
        target.parent.mkdir(parents=True, exist_ok=True)
        source = corpus / line
        target.write_bytes(source.read_bytes() if source.is_file() else b"")
    return dest


NORMALIZER = "skills/spec-skill-audit/scripts/eval-fixture-normalizer.js"


def make_walking(root: Path) -> Path:
    """Make ``root`` a *walking repository* (specs/README.md, "Which contract applies"): it holds
    spec-first's normalizer, so every JSON file under skills/**/evals/ is a workflow fixture with
    the legacy semantics — what the tests of legacy shapes exercise."""
    target = root / NORMALIZER
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("// spec-first's fixture normalizer (a stub: only its presence matters)\n")
    return root
