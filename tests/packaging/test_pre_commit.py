"""`.pre-commit-hooks.yaml`: the real `pre-commit try-repo` runs the `evalfix-ls` hook from this
checkout on a temporary git repository holding a clean and a broken suite."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CLEAN = {"skill_name": "clean", "evals": [{"id": "a", "prompt": "请总结 😀"}]}
BROKEN = {"skill_name": "broken", "evals": [{"id": "a", "prompt": ""}]}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: pre-commit needs it")
    repo = tmp_path / "repo"
    for name, suite in (("clean", CLEAN), ("broken", BROKEN)):
        (repo / f"skills/{name}/evals").mkdir(parents=True)
        (repo / f"skills/{name}/SKILL.md").write_text(f"---\nname: {name}\n---\n", encoding="utf-8")
        (repo / f"skills/{name}/evals/evals.json").write_text(json.dumps(suite, ensure_ascii=False), "utf-8")
    (repo / "docs").mkdir()
    (repo / "docs/settings.json").write_text("{not json", encoding="utf-8")  # not a fixture: not passed
    git(repo, "init", "-q")
    git(repo, "add", ".")
    return repo


# What a hook repository needs; not the caches and environments a checkout accumulates.
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "node_modules",
    ".cache",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    ".data",
    ".peer",
)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This project as committed files of a fresh git repository: `try-repo` sees only what git
    tracks, and the checkout may be an unpacked sdist or hold uncommitted work."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: pre-commit needs it")
    copy = tmp_path_factory.mktemp("hooks") / "evalfix-ls"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    git(copy, "init", "-q")
    git(copy, "add", ".")
    git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "hooks")
    return copy


def try_repo(
    hook_repo: Path, repo: Path, home: Path, *args: str, hook: str = "evalfix-ls"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), hook, "--verbose", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_hook_file_pattern_matches_both_families() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks] == ["evalfix-ls", "evalfix-ls-fix"]
    assert len({hook["files"] for hook in hooks}) == 1
    pattern = re.compile(hooks[0]["files"])
    for path in (
        "evals/evals.json",
        "skills/a/evals/evals.json",
        "skills/a/evals/deep/x.json",
        "x/skills/a/evals/b.json",
    ):
        assert pattern.search(path), path
    for path in ("docs/settings.json", "skills/a/notes.json", "evals/other.json", "skills/a/evals/x.yaml"):
        assert not pattern.search(path), path


def test_try_repo_fails_on_the_broken_suite_only(hook_repo: Path, repo: Path, tmp_path: Path) -> None:
    proc = try_repo(hook_repo, repo, tmp_path / "home", "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "skills/broken/evals/evals.json:1:" in out and "error[prompt-required]" in out
    assert "1 error, 0 warnings in 2 files" in out  # both suites passed, docs/settings.json not


def test_try_repo_passes_on_the_clean_suite(hook_repo: Path, repo: Path, tmp_path: Path) -> None:
    proc = try_repo(
        hook_repo, repo, tmp_path / "home", "--files", "skills/clean/evals/evals.json", "docs/settings.json"
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"evalfix-ls\.+Passed", out), out
    assert "0 errors, 0 warnings in 1 file" in out


def test_fix_hook_applies_safe_fixes(hook_repo: Path, repo: Path, tmp_path: Path) -> None:
    suite = repo / "skills/clean/evals/evals.json"
    suite.write_text(
        json.dumps({**CLEAN, "evals": [{**CLEAN["evals"][0], "setup": {"kind": "Empty"}}]}), "utf-8"
    )
    git(repo, "add", ".")
    proc = try_repo(
        hook_repo, repo, tmp_path / "home", "--files", "skills/clean/evals/evals.json", hook="evalfix-ls-fix"
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in out
    assert json.loads(suite.read_text(encoding="utf-8"))["evals"][0]["setup"] == {"kind": "empty"}
