"""The newest spec-first (``../shared/corpus/spec-first-next``, v1.15): the normalizer and its
walk were retired, so only the canonical files are workflow fixtures; the skill-local shapes are
``unknown`` with the reason, and no tool's verdict is contradicted (issue 20 point 1). Forcing the
walk on brings the old normalizer's 129 errors back. Skipped when the corpus is absent."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from fixture_paths import CORPUS

from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import check_paths
from evalfix_ls.contracts.detection import CANONICAL_SCHEMA

pytestmark = pytest.mark.corpus
NEXT = CORPUS / "spec-first-next"


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not NEXT.is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    return NEXT


def test_no_error_no_warning_and_the_reason_for_each_skill_local_shape(corpus: Path) -> None:
    report = to_json(check_paths([corpus], root=corpus, readiness=True), "test")
    assert report["summary"]["files"] == 40
    assert (report["summary"]["errors"], report["summary"]["warnings"]) == (0, 0)
    kinds = Counter(f["kind"] for f in report["files"])
    assert kinds == {"workflow-fixture": 10, "unknown": 30}
    for file in report["files"]:
        if file["kind"] == "workflow-fixture":
            assert file["reason"] == f'declares schema_version "{CANONICAL_SCHEMA}"'
        else:
            assert file["findings"] == []
            assert file["reason"].startswith('skill-local shape (schema_version "')
            assert (
                "in a repository without spec-first's fixture walk: its own tests judge it" in file["reason"]
            )
    # Readiness counts canonical files only: spec-write-tasks holds none.
    assert "spec-write-tasks" not in report["readiness"] and "spec-plan" in report["readiness"]


def test_forcing_the_walk_on_brings_back_the_normalizers_errors(corpus: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(corpus, tmp_path / "next"))
    for directory in (copy, *(p for p in copy.rglob("*") if p.is_dir())):
        directory.chmod(0o755)  # the shared corpus is read-only; its copy is ours
    (copy / ".git").mkdir()
    (copy / ".evalfix.toml").write_text("workflow_walk = true\n")
    report = to_json(check_paths([copy], root=copy), "test")
    errors = Counter(
        f["code"] for file in report["files"] for f in file["findings"] if f["severity"] == "error"
    )
    assert errors == {"missing_coverage_tags": 94, "missing_input": 18, "missing_source_refs": 17}
    for file in report["files"]:  # the canonical files do not depend on the walk
        canonical = file["reason"] == f'declares schema_version "{CANONICAL_SCHEMA}"'
        assert canonical or "where spec-first's fixture walk is forced on (.evalfix.toml:1)" in file["reason"]
