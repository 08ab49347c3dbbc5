"""Migration of legacy workflow fixtures to ``spec-first.workflow-eval-fixtures.v1``: for our own
legacy fixtures and every fixture of the spec-first corpus, the migrated text parses, normalizes
to the same case ids, inputs, tags, refs, authority and outcomes, and gets no new error."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fix_support import errors, make_repo, view
from fixture_paths import CORPUS, materialize

from evalfix_ls.contracts.detection import CANONICAL_SCHEMA
from evalfix_ls.services.document import DocumentView
from evalfix_ls.services.fixes.edits import apply_edits
from evalfix_ls.services.fixes.objects import reindent
from evalfix_ls.services.migrate import migrate_document, migration_applies

COMPARED = (
    "skill",
    "id",
    "input",
    "expected_outcome",
    "coverage_tags",
    "source_refs",
    "source_ref_authority",
    "boundary_note",
    "forbidden_signals",
)

LEGACY: dict[str, Any] = {
    "prompt-examples": {
        "schema_version": "prompt-examples/v1",
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md"],
        "examples": [
            {
                "name": "Plan the export 📦",
                "user_intent": "计划导出功能 📦",
                "expected_posture": "Plans first.",
                "boundary_note": "No code yet.",
                "negative_signal": "writes code",
                "context_snippets": ["规划", "export"],
                "coverage_tags": ["trigger"],
            },
            {
                "id": "with-both",
                "user_intent": "u",
                "expected": ["a", "b"],
                "forbidden_signals": ["x"],
                "negative_signal": ["y", "x", 3],
                "coverage_tags": ["boundary"],
            },
        ],
    },
    "composite-and-aliases": {
        "schema_version": "team-cases/v2",
        "coverage_tags": ["expected"],
        "source_refs": "skills/demo/SKILL.md",
        "case_contract": {"required": ["id"]},
        "cases": [
            {
                "id": "c1",
                "input_shape": "shape 🧩",
                "intent": "intent text",
                "expected_decision": "skip",
                "expected_next_action": "stop",
                "dispatch_authorization": "missing",
                "case_type": "positive",
            },
            {
                "id": 7,
                "name": "Seventh Case",
                "input": "",
                "user_intent": "real input",
                "expected_outcome": "",
                "expected_posture": "ignored (shadowed)",
                "case_id": "UPPER",
            },
            {
                "input": "by position",
                "expected_failure": None,
                "expected_output": {"k": 1},
                "extensions": {"note": "kept", "context": "already here"},
                "context": "case value",
            },
            {"name": "中文名称", "input": "x", "coverage_tags": ["failure"]},
            "not an object",
        ],
    },
    "examples-beside-cases": {
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md", "docs/plans/p.md"],
        "source_ref_authority": "historical",
        "cases": {"not": "an array"},
        "examples": [
            {
                "id": "e1",
                "input": "i",
                "expected": "o",
                "coverage_tags": ["trigger"],
                "source_ref_authority": "source",
                "extensions": "odd",
                "legacy_field": 1,
            }
        ],
        "recorded_output": {"text": "…"},
    },
    "cases-empty-but-examples": {
        "schema_version": "x/v1",
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md"],
        "cases": [],
        "examples": [{"id": "ignored", "input": "i", "coverage_tags": ["trigger"]}],
    },
}


def normalized(document: DocumentView) -> list[dict[str, Any]]:
    cases = document.analysis.workflow.cases
    return [{key: case.record()[key] for key in COMPARED} for case in cases]


def assert_lossless(before: DocumentView, after: DocumentView) -> None:
    assert after.parses, "the migrated text is not valid JSON"
    assert normalized(after) == normalized(before)
    assert not (errors(after) - errors(before)), f"new errors: {errors(after) - errors(before)}"
    data = json.loads(after.text)
    assert data["schema_version"] == CANONICAL_SCHEMA
    assert "examples" not in data or isinstance(data.get("cases"), list)


def leaves(value: Any) -> Counter[str]:
    """Every scalar of a JSON value (as JSON text), wherever it sits: nothing may be dropped."""
    found: Counter[str] = Counter()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        else:
            found[json.dumps(item, ensure_ascii=False)] += 1
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.mark.parametrize("name", sorted(LEGACY))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_own_legacy_fixtures_migrate_losslessly(repo: Path, name: str, newline: str) -> None:
    text = json.dumps(LEGACY[name], ensure_ascii=False, indent=2).replace("\n", newline) + newline
    rel = f"skills/demo/evals/{name}.json"
    before = view(repo, rel, text)
    migration = migrate_document(before)
    assert migration is not None and migration.text != text
    assert apply_edits(text, migration.edits) == migration.text  # the editor's edits: the same text
    after = view(repo, rel, migration.text)
    assert_lossless(before, after)
    assert migration_applies(before) and not migration_applies(after)
    # Nothing dropped: every value of the old file is still somewhere in the new one; what was
    # added is the canonical schema id, the ids the normalizer derived, and "y" (negative_signal
    # merged into forbidden_signals, the original kept under extensions).
    added = leaves(json.loads(migration.text)) - leaves(LEGACY[name])
    assert set(added) <= {
        json.dumps(CANONICAL_SCHEMA),
        '"plan-the-export"',
        '"seventh-case"',
        '"case-3"',
        '"y"',
    }
    assert not leaves(LEGACY[name]) - leaves(json.loads(migration.text))
    assert migration.text.count("\r\n") == (migration.text.count("\n") if newline == "\r\n" else 0)
    # A second migration changes nothing.
    again = migrate_document(after)
    assert again is not None and again.text == migration.text


def test_migration_renames_in_place_and_moves_the_rest(repo: Path) -> None:
    text = json.dumps(LEGACY["prompt-examples"], ensure_ascii=False, indent=2) + "\n"
    migration = migrate_document(view(repo, "skills/demo/evals/p.json", text))
    data = json.loads(migration.text)
    first, second = data["cases"]
    assert list(first) == [
        "id",
        "name",
        "input",
        "expected_outcome",
        "boundary_note",
        "forbidden_signals",
        "coverage_tags",
        "extensions",
    ]
    assert first["id"] == "plan-the-export" and first["input"] == "计划导出功能 📦"
    assert first["forbidden_signals"] == "writes code"
    assert first["extensions"] == {"context_snippets": ["规划", "export"]}
    assert second["forbidden_signals"] == ["x", "y"]
    assert second["extensions"] == {"negative_signal": ["y", "x", 3]}
    assert data["extensions"] == {"source_schema_version": "prompt-examples/v1"}
    assert "计划导出功能 📦" in migration.text  # CJK and emoji written as they were, not escaped


def test_canonical_file_without_legacy_members_is_left_alone(repo: Path) -> None:
    text = (
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo",\n'
        ' "source_refs": ["skills/demo/SKILL.md"], "cases": [{"id": "a", "input": "i",\n'
        '   "coverage_tags": ["trigger"], "expected_outcome": "o"}]}'
    )
    migration = migrate_document(view(repo, "skills/demo/evals/c.json", text))
    assert migration is not None and migration.text == text and migration.changes == []


def test_no_migration_for_invalid_json_or_evals_suites(repo: Path) -> None:
    assert migrate_document(view(repo, "skills/demo/evals/x.json", '{"cases": [')) is None
    assert (
        migrate_document(view(repo, "skills/demo/evals/evals.json", '{"skill_name": "d", "evals": []}'))
        is None
    )


@pytest.fixture(scope="module")
def corpus_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (CORPUS / "spec-first").is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    root = materialize(CORPUS / "spec-first", tmp_path_factory.mktemp("spec-first"))
    (root / ".git").mkdir()
    return root


def _corpus_fixtures() -> list[str]:
    tree = CORPUS / "spec-first" / "tree.txt"
    if not tree.is_file():
        return ["(corpus absent)"]
    lines = tree.read_text(encoding="utf-8").splitlines()
    return sorted(
        line for line in lines if line.startswith("skills/") and "/evals/" in line and line.endswith(".json")
    )


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _corpus_fixtures())
def test_corpus_fixture_migrates_losslessly(corpus_checkout: Path, rel: str) -> None:
    text = (corpus_checkout / rel).read_text(encoding="utf-8")
    before = view(corpus_checkout, rel, text)
    migration = migrate_document(before)
    assert migration is not None
    assert apply_edits(text, migration.edits) == migration.text
    after = view(corpus_checkout, rel, migration.text)
    assert_lossless(before, after)
    assert not leaves(json.loads(text)) - leaves(json.loads(migration.text))


def test_a_reindented_value_keeps_a_string_holding_a_raw_line_separator() -> None:
    """JSON allows U+2028 raw inside a string; it ends no line, so the spaces after it are the
    string's, not indentation."""
    value = '{\n    "note": "a\u2028    b",\n    "n": 1\n  }'
    moved = reindent(value, "  ", "    ")
    assert json.loads(moved) == json.loads(value)
    assert moved == '{\n      "note": "a\u2028    b",\n      "n": 1\n    }'
