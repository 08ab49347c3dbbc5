"""The README's GitHub Actions example: a valid workflow (check-jsonschema's GitHub workflow
schema), whose evalfix-ls steps do what the README says when run here in bash."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalfix_ls.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")


@pytest.fixture(scope="module")
def workflow_text() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```yaml\n(# \.github/workflows/[^\n]+\n.*?)```", readme, re.S)
    assert match, "the README has no GitHub Actions example"
    return match.group(1)


def steps(workflow_text: str) -> dict[str, str]:
    [job] = yaml.safe_load(workflow_text)["jobs"].values()
    return {step.get("name", step.get("uses", step.get("run"))): step.get("run", "") for step in job["steps"]}


def test_example_is_a_valid_github_workflow(workflow_text: str, tmp_path: Path) -> None:
    path = tmp_path / "evals.yml"
    path.write_text(workflow_text, encoding="utf-8")
    proc = subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    uses = [s.get("uses", "") for s in next(iter(yaml.safe_load(workflow_text)["jobs"].values()))["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)


def test_evalfix_commands_parse(workflow_text: str) -> None:
    commands = [run for run in steps(workflow_text).values() if run.startswith("evalfix-ls")]
    assert len(commands) == 2
    formats = set()
    for run in commands:
        argv = shlex.split(run.split(">")[0])[1:]
        formats.add(build_parser().parse_args(argv).format)
    assert formats == {"github", "sarif"}


@pytest.mark.parametrize(
    ("suite", "expected"), [('{"skill_name": "d", "evals": [{"id": "a"}]}', 0), (None, 2)]
)
def test_sarif_step_uploads_findings_but_fails_on_usage_errors(
    workflow_text: str, tmp_path: Path, suite: str | None, expected: int
) -> None:
    """`… > evalfix.sarif || test $? -eq 1`: findings (exit 1) still give a SARIF file and a
    green step; no fixture at all (exit 2) fails the step."""
    (tmp_path / ".git").mkdir()
    if suite is not None:
        (tmp_path / "skills/d/evals").mkdir(parents=True)
        (tmp_path / "skills/d/SKILL.md").write_text("---\nname: d\n---\n", encoding="utf-8")
        (tmp_path / "skills/d/evals/evals.json").write_text(suite, encoding="utf-8")
    run = steps(workflow_text)["SARIF for code scanning"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-c", run], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == (0 if expected == 0 else 1), proc.stderr
    if expected == 0:
        log = json.loads((tmp_path / "evalfix.sarif").read_text(encoding="utf-8"))
        assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["prompt-required"]
