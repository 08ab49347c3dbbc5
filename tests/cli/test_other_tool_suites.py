"""``skills/<x>/evals/evals.json`` holding ``{skill, cases: [...]}`` (issue 20 point 2): outside a
walking repository arc-skill-eval's discovery reads it and its loader rejects it with two
file-level issues; ``--check`` reports exactly those, a hint saying what the file is, and nothing
per case."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import make_walking

from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import check_paths

OTHER_TOOL = {
    "skill": "x",
    "cases": [
        {"id": "a", "prompt": "hi", "expected": "hello"},
        {"id": "b", "prompt": "bye", "rubric": ["polite"]},
        {"id": "c"},
    ],
}


def repository(root: Path, *, walking: bool) -> Path:
    (root / ".git").mkdir(parents=True)
    if walking:
        make_walking(root)
    for skill in ("alpha", "beta"):
        (root / f"skills/{skill}/evals").mkdir(parents=True)
        (root / f"skills/{skill}/SKILL.md").write_text(f"---\nname: {skill}\n---\n")
        (root / f"skills/{skill}/evals/evals.json").write_text(json.dumps(OTHER_TOOL, indent=2))
    return root


def test_the_loaders_file_level_errors_and_nothing_per_case(tmp_path: Path) -> None:
    root = repository(tmp_path, walking=False)
    report = to_json(check_paths([root], root=root), "test")
    assert [f["path"] for f in report["files"]] == [
        "skills/alpha/evals/evals.json",
        "skills/beta/evals/evals.json",
    ]
    for file in report["files"]:
        assert file["kind"] == "evals"
        errors = sorted(
            (f["code"], f["pointer"], f["case"]) for f in file["findings"] if f["severity"] == "error"
        )
        assert errors == [("evals-not-array", "", None), ("skill-name-required", "", None)]
        assert all(f["case"] is None for f in file["findings"])
        [hint] = [f for f in file["findings"] if f["code"] == "other-tool-suite"]
        assert hint["severity"] == "hint" and hint["range"]["end"] == {"line": 0, "character": 1}
        assert f'"{file["path"]}" = "none"' in hint["message"]  # how to map it off
    assert report["summary"]["errors"] == 4


def test_mapped_off_they_are_listed_only_when_named(tmp_path: Path) -> None:
    root = repository(tmp_path, walking=False)
    (root / ".evalfix.toml").write_text('[files]\n"skills/*/evals/evals.json" = "none"\n')
    assert check_paths([root], root=root).files == []
    [named] = check_paths([root / "skills/alpha/evals/evals.json"], root=root).files
    assert named.analysis.kind == "unknown" and named.analysis.findings == []
    assert named.analysis.reason == "mapped to unknown by configuration (.evalfix.toml:2)"


def test_a_walking_repository_reads_them_as_workflow_fixtures(tmp_path: Path) -> None:
    """The walk reads the file and the normalizer checks each case (today's semantics, kept)."""
    root = repository(tmp_path, walking=True)
    files = check_paths([root], root=root).files
    assert {file.analysis.kind for file in files} == {"workflow-fixture"}
    assert {f.case for file in files for f in file.analysis.findings if f.severity.word == "error"} == {
        0,
        1,
        2,
    }
