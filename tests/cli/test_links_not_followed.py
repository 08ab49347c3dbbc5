"""`--check` never follows a symbolic link out of the repository (issue 33): the walk classifies
every entry by ``lstat``, so a link is never entered nor ``stat``-ed through, and a fixture path
that is such a link is reported (``file-outside-repository``) from ``lstat`` and ``readlink``
alone. Where ``strace`` can trace, the system calls themselves are checked."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TIMEOUT = 120  # seconds; a run takes about one
SECRET = "SECRET-11nk"
# ``1234 newfstatat(AT_FDCWD, "/path", …, 0) = 0``: the pid, the call, its first path, the rest.
_CALL = re.compile(r'^\d+\s+(\w+)\((?:AT_FDCWD|\d+|-\d+)?,?\s*"([^"]*)"(.*)$')


def check(repo: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    command = [*prefix, sys.executable, "-m", "evalfix_ls", "--check", "--format", "json", "."]
    return subprocess.run(
        command, cwd=repo, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose links lead out: a directory, a skill, a suite at ``evals/evals.json``
    (a link to an outside *directory*), a ``SKILL.md`` and a workflow fixture."""
    outside = tmp_path / "outside"
    (outside / "dir/evals").mkdir(parents=True)
    (outside / "dir/evals/evals.json").write_text(json.dumps({"skill_name": SECRET, "evals": []}))
    (outside / "SKILL.md").write_text(f"---\nname: {SECRET}\n---\n")
    (outside / "cases.json").write_text(json.dumps({"cases": [{"id": SECRET}]}))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/evals/evals.json").write_text(
        '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]}'
    )
    (root / "link-out").symlink_to(outside, target_is_directory=True)
    (root / "skills/linked").symlink_to(outside / "dir", target_is_directory=True)
    (root / "evals/evals.json").symlink_to(outside / "dir", target_is_directory=True)
    (root / "skills/demo/SKILL.md").symlink_to(outside / "SKILL.md")
    (root / "skills/demo/evals/cases.json").symlink_to(outside / "cases.json")
    return root


def test_a_link_to_an_outside_directory_at_a_suite_path_is_reported(repo: Path) -> None:
    """Before issue 33 the walk asked whether the link led to a directory (a ``stat`` through it)
    and, as it did, passed over ``evals/evals.json`` in silence."""
    result = check(repo)
    assert SECRET not in result.stdout + result.stderr
    report = {f["path"]: [x["code"] for x in f["findings"]] for f in json.loads(result.stdout)["files"]}
    assert report["evals/evals.json"] == ["file-outside-repository"]
    assert "skills/demo/evals/evals.json" in report


def _strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    try:  # ptrace may be forbidden (containers without CAP_SYS_PTRACE)
        done = subprocess.run(["strace", "-f", "-o", "/dev/null", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def calls_through_links(trace: str, links: list[Path], outside: Path) -> list[str]:
    """The traced calls on a path ``outside``, below one of ``links`` or that follow one:
    anything but ``lstat`` (``AT_SYMLINK_NOFOLLOW``) and ``readlink`` on the link itself."""
    named = [str(link) for link in links]
    found = []
    for line in trace.splitlines():
        match = _CALL.match(line)
        if match is None:
            continue
        call, path, rest = match.groups()
        below = path.startswith(str(outside)) or any(path.startswith(link + "/") for link in named)
        follows = path in named and not (call in ("readlink", "lstat") or "AT_SYMLINK_NOFOLLOW" in rest)
        if below or follows:
            found.append(line)
    return found


@pytest.mark.skipif(not _strace_works(), reason="strace is missing or cannot trace here")
def test_strace_shows_no_call_through_a_link_out(repo: Path, tmp_path: Path) -> None:
    """Before issue 33: one ``newfstatat(<link>, …, 0)`` per link (``link-out``, ``skills/linked``,
    ``evals/evals.json``, ``SKILL.md``, ``cases.json``)."""
    trace = tmp_path / "trace"
    result = check(repo, "strace", "-f", "-qq", "-e", "trace=%file", "-o", str(trace))
    links = [path for path in repo.rglob("*") if path.is_symlink()]
    assert len(links) == 5
    text = trace.read_text()
    assert str(repo / "evals/evals.json") in text  # the trace did see the walk
    assert calls_through_links(text, links, tmp_path / "outside") == []
    assert result.returncode == 1 and SECRET not in result.stdout, result.stderr
