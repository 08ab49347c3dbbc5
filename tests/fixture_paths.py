"""Paths and helpers shared by the test folders (import as ``fixture_paths``; a module named
``conftest`` would clash with the per-folder conftest files)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared exists only in the developers' workspace and in CI, never in a user's clone.
# EVALFIX_TEST_SHARED points the tests elsewhere: .ci/run sets it to a path that does not exist
# to run the suite as a user's clone has it (issue 32).
SHARED = Path(os.environ.get("EVALFIX_TEST_SHARED") or ROOT.parent / "shared")
CORPUS = SHARED / "corpus"
SHARED_ABSENT = "../shared/corpus is not available (only in the developers' workspace)"


def shared_present() -> bool:
    return CORPUS.is_dir()


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


JSONTESTSUITE = CORPUS / "jsontestsuite" / "test_parsing"


def json_parse_accepts(data: bytes) -> bool:
    """``JSON.parse(fs.readFileSync(p, "utf8"))`` succeeds — the reference parser's verdict,
    computed without evalfix-ls: Node reads invalid UTF-8 as U+FFFD and keeps a BOM (an error);
    the standard library's strict parser then agrees with JSON.parse once ``NaN``/``Infinity`` are
    refused, and one nested past the recursion limit is unclosed (rejected) in the suite. Checked
    against the suite's own y_/n_ labels by the tests that use it."""
    import json

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    try:
        json.loads(data.decode("utf-8", "replace"), parse_constant=refuse)
    except (ValueError, RecursionError):
        return False
    return True
