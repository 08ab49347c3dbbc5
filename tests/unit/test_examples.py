"""The shipped examples: `examples/clean` checks clean, `examples/broken` reports exactly the planted
problems (code, severity, 1-based line and UTF-16 column as `--check` prints them)."""

from __future__ import annotations

import json

from fixture_paths import ROOT
from jsonschema import Draft202012Validator

from evalfix_ls import __version__, schema
from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import check_paths

CLEAN = ROOT / "examples" / "clean"
BROKEN = ROOT / "examples" / "broken"
CLEAN_SUITE = "examples/clean/skills/release-notes/evals/evals.json"
BROKEN_SUITE = "examples/broken/skills/release-notes-broken/evals/evals.json"

# One case per line in the broken suite; each line's planted problems, in output order.
PLANTED = [
    ("version-type", "error", 2, 14),
    ("prompt-required", "error", 5, 5),  # no prompt: anchored at the case's opening brace
    ("prompt-required", "error", 6, 38),
    ("description-type", "error", 6, 57),
    ("setup-kind-invalid", "error", 7, 79),  # after an emoji: two UTF-16 units
    ("sources-string-form", "warning", 8, 104),
    ("setup-source-not-object", "error", 8, 125),
    ("mount-mode-flatten", "warning", 8, 143),
    ("assertion-empty", "error", 9, 65),  # after CJK text and an emoji
    ("script-type-invalid", "error", 9, 78),
    ("intent-kind-invalid", "error", 9, 118),
    ("regex-flags-invalid", "error", 10, 116),
    ("regex-invalid", "error", 10, 157),
    ("regex-target-invalid", "error", 10, 182),
    ("intent-path-required", "error", 11, 62),
    ("intent-method-invalid", "error", 11, 105),
    ("intent-id-required", "error", 11, 116),
    ("judge-prompt-missing", "hint", 11, 116),
    ("intent-must-pass-type", "error", 11, 166),
    # errors, not warnings: `"sandbox": "docker"` in the same case, so neither the spec nor the loader
    # accepts it (evals-json.md §14)
    ("metadata-difficulty-invalid", "error", 12, 76),
    ("metadata-tags-type", "error", 12, 92),
    ("sandbox-invalid", "warning", 12, 115),
    ("files-legacy", "hint", 13, 56),
    ("files-skill-root-relative", "warning", 13, 57),
    ("files-item-type", "error", 13, 84),
    ("duplicate-id", "error", 15, 12),
]


def report_files(directory: str) -> dict[str, dict]:
    # No --root: each file's repository root is found as the batch mode finds it (examples/clean/).
    report = to_json(check_paths([ROOT / directory], cwd=ROOT), __version__)
    return {entry["path"]: entry for entry in report["files"]}


def test_clean_examples_have_no_error_or_warning() -> None:
    files = report_files("examples/clean")
    assert CLEAN_SUITE in files
    for path, entry in files.items():
        serious = [f for f in entry["findings"] if f["severity"] in ("error", "warning")]
        assert serious == [], path
    assert files[CLEAN_SUITE]["kind"] == "evals"


def test_clean_suite_validates_against_the_schema() -> None:
    document = json.loads((ROOT / CLEAN_SUITE).read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema.load(schema.EVALS_SCHEMA))
    assert [error.message for error in validator.iter_errors(document)] == []


def test_clean_suite_exercises_every_setup_kind_and_assertion_family() -> None:
    document = json.loads((ROOT / CLEAN_SUITE).read_text(encoding="utf-8"))
    cases = document["evals"]
    assert {case["setup"]["kind"] for case in cases if "setup" in case} == {"empty", "seeded", "fixture"}
    items = [item for case in cases for item in case.get("assertions", [])]
    families = {item["type"] if "type" in item else item["kind"] for item in items if isinstance(item, dict)}
    assert families >= {"file-exists", "regex-match", "json-valid", "output", "workspace"}
    assert any(isinstance(item, str) for item in items)
    prompts = "".join(case["prompt"] for case in cases)
    assert any("\u3040" <= ch <= "\u9fff" for ch in prompts)  # CJK
    assert any(ord(ch) > 0xFFFF for ch in prompts)  # astral (emoji)


def test_broken_example_reports_exactly_the_planted_problems() -> None:
    entry = report_files("examples/broken")[BROKEN_SUITE]
    found = [
        (f["code"], f["severity"], f["range"]["start"]["line"] + 1, f["range"]["start"]["character"] + 1)
        for f in entry["findings"]
    ]
    assert found == PLANTED


def test_broken_example_plants_enough_kinds_of_problem() -> None:
    """What the checker reports on the broken suite (not the PLANTED list itself) spans many rules."""
    findings = report_files("examples/broken")[BROKEN_SUITE]["findings"]
    error_codes = {f["code"] for f in findings if f["severity"] == "error"}
    warning_codes = {f["code"] for f in findings if f["severity"] == "warning"}
    assert len(error_codes) >= 8 and len(warning_codes) >= 2
