"""arc-skill-eval's own eval suites (../shared/corpus/arc-skill-eval): the reference loader accepts both,
so evalfix-ls reports no error and, on the repository rebuilt from tree.txt, no warning either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_paths import materialize
from jsonschema import Draft202012Validator

from evalfix_ls import __version__, schema
from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import check_paths

pytestmark = pytest.mark.corpus

HELLO = "skills/hello-world/evals/evals.json"
ALPHA = "tests/fixtures/evals-skill-repo/skills/alpha/evals/evals.json"


def findings_by_file(root: Path) -> dict[str, list[dict]]:
    report = to_json(check_paths([root], root=root), __version__)
    return {entry["path"]: entry["findings"] for entry in report["files"] if entry["kind"] == "evals"}


def test_rebuilt_repository_has_no_error_or_warning(corpus_dir: Path, tmp_path: Path) -> None:
    repo = materialize(corpus_dir / "arc-skill-eval", tmp_path)
    found = findings_by_file(repo)
    assert sorted(found) == sorted([HELLO, ALPHA])
    assert found[HELLO] == []
    assert [(f["code"], f["severity"], f["pointer"], f["case"]) for f in found[ALPHA]] == [
        ("files-legacy", "hint", "/evals/1/files", 1)
    ]


def test_bare_corpus_folder_only_adds_file_system_findings(corpus_dir: Path) -> None:
    root = corpus_dir / "arc-skill-eval"
    found = findings_by_file(root)
    codes = {f["code"] for findings in found.values() for f in findings}
    assert codes <= {"files-legacy", "path-not-found", "not-discovered"}
    assert "not-discovered" in codes  # SKILL.md files are listed in tree.txt but not stored
    assert not [f for findings in found.values() for f in findings if f["severity"] == "error"]


@pytest.mark.parametrize("rel", [HELLO, ALPHA])
def test_corpus_suites_validate_against_the_schema(corpus_dir: Path, rel: str) -> None:
    document = json.loads((corpus_dir / "arc-skill-eval" / rel).read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema.load(schema.EVALS_SCHEMA))
    assert [error.message for error in validator.iter_errors(document)] == []
