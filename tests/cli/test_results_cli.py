"""``evalfix-ls --results``: the newest result of every case as a text table, JSON and GitHub
annotations at the failed assertion's line (columns in UTF-16 units), never a failing exit status;
``[evals] results`` in ``.evalfix.toml`` adds an ``--output-dir`` root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import results_trees as trees

from evalfix_ls.cli import main

FILE_EXISTS = {"type": "file-exists", "path": "missing.txt"}
JUDGED = "The reply greets 東京 😀"


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "greeter"
    trees.suite(
        skill,
        [
            {"id": "東京 greeting", "prompt": "p", "assertions": [JUDGED, FILE_EXISTS]},
            {"id": 2, "prompt": "q", "assertions": [JUDGED]},
            {"id": "never-run", "prompt": "r", "assertions": [JUDGED]},
        ],
    )
    runs = skill / "evals-runs"
    trees.arc_run(runs / "2026-05-01T00-00-00-000Z", {"2": [(JUDGED, True, "older ok")]})
    trees.arc_run(
        runs / "2026-05-02T00-00-00-000Z",
        {"東京 greeting": [(JUDGED, True, "yes"), (FILE_EXISTS, False, "No such file: `missing.txt`")]},
        duration_ms=41207,
        tokens=12345,
        cost=0.1234,
    )
    return root, skill


def test_text_table_names_each_case_and_its_failed_assertion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _skill = _repo(tmp_path)
    assert main(["--results", str(root)]) == 0
    out = capsys.readouterr().out
    assert "東京 greeting: 1/2 passed · 41 s · 12.3k tokens · $0.12 · " in out
    assert (
        "2: no result in the newest run (2026-05-02T00-00-00-000Z) · "
        "from 2026-05-01T00-00-00-000Z: 1/1 passed" in out
    )
    assert "never-run: no result in any run" in out
    assert ' failed {"type": "file-exists"' in out and "No such file: `missing.txt`" in out


def test_json_carries_each_assertions_state_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _skill = _repo(tmp_path)
    assert main(["--results", "--format", "json", str(root)]) == 0
    (suite,) = json.loads(capsys.readouterr().out)
    tokyo, two, never = suite["cases"]
    assert (tokyo["passed"], tokyo["total"], tokyo["cost_usd"]) == (1, 2, 0.1234)
    assert [a["state"] for a in tokyo["assertions"]] == ["passed", "failed"]
    assert two["from_older_run"] is True and two["run"] == "2026-05-01T00-00-00-000Z"
    assert never["run"] is None


def test_github_annotates_failed_assertions_at_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, skill = _repo(tmp_path)
    text = (skill / "evals" / "evals.json").read_text(encoding="utf-8")
    brace = text.rindex("{", 0, text.index('"type": "file-exists"'))  # the assertion's start
    line_no = text[:brace].count("\n") + 1
    assert main(["--results", "--format", "github", str(root)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("::notice file=")
    assert f",line={line_no}," in line and "title=evalfix-ls results%3A 東京 greeting" in line
    assert line.endswith("::failed in run 2026-05-02T00-00-00-000Z: No such file: `missing.txt`")


def test_an_output_dir_root_from_the_project_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, skill = _repo(tmp_path)
    trees.arc_run(
        root / "out" / "greeter" / "2026-06-01T00-00-00-000Z", {"never-run": [(JUDGED, False, "late")]}
    )
    (root / ".evalfix.toml").write_text('[evals]\nresults = ["out"]\n', encoding="utf-8")
    assert main(["--results", "--format", "json", str(skill)]) == 0
    never = json.loads(capsys.readouterr().out)[0]["cases"][2]
    assert never["run"] == "2026-06-01T00-00-00-000Z" and never["passed"] == 0


def test_no_suite_is_a_usage_error_and_results_never_fail_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--results", str(tmp_path)]) == 2
    assert "no eval suites found" in capsys.readouterr().err
