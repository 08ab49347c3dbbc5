"""`--check` on a repository nobody vetted (CI runs it on pull requests from strangers and publishes
its output): special files must not block or exhaust it, and nothing outside the repository may be
read or probed. Each run is a real subprocess with a timeout, so a hang fails the test instead of
stopping the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_paths import make_walking

SECRET = "SECRET-5eed"
TIMEOUT = 120  # seconds; a correct run takes about one


def check(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "evalfix_ls", "--check", *args],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"--check {' '.join(args)} did not finish in {TIMEOUT} s (blocked?): {exc}")


def findings(result: subprocess.CompletedProcess[str]) -> dict[str, list[tuple[str, str]]]:
    report = json.loads(result.stdout)
    return {f["path"]: [(x["code"], x["message"]) for x in f["findings"]] for f in report["files"]}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    make_walking(root)
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text(
        json.dumps({"skill_name": SECRET, "evals": [{"id": SECRET, "prompt": 1}]})
    )
    (outside / "SKILL.md").write_text(f"---\nname: {SECRET}\n---\n")
    return root


def test_a_fifo_at_evals_json_is_reported_not_opened(repo: Path) -> None:
    os.mkfifo(repo / "skills/demo/evals/evals.json")
    result = check(repo, "--format", "json")
    assert result.returncode == 1, result.stderr
    [(code, message)] = findings(result)["skills/demo/evals/evals.json"]
    assert code == "file-unreadable" and "named pipe (FIFO)" in message


def test_a_fifo_as_workflow_fixture_or_skill_md_does_not_block(repo: Path) -> None:
    os.mkfifo(repo / "skills/demo/evals/cases.json")
    (repo / "skills/demo/SKILL.md").unlink()
    os.mkfifo(repo / "skills/demo/SKILL.md")
    (repo / "skills/demo/evals/evals.json").write_text(
        '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]}'
    )
    result = check(repo, "--format", "json")
    found = findings(result)
    assert [code for code, _ in found["skills/demo/evals/cases.json"]] == ["fixture_unreadable"]
    assert "named pipe (FIFO)" in found["skills/demo/evals/cases.json"][0][1]
    assert "skills/demo/evals/evals.json" in found  # analysed; SKILL.md (a FIFO) was not read


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/stdin"])
def test_a_link_to_a_device_is_not_read(repo: Path, device: str) -> None:
    (repo / "skills/demo/evals/evals.json").symlink_to(device)
    result = check(repo, "--format", "json")
    assert result.returncode == 1, result.stderr
    assert [code for code, _ in findings(result)["skills/demo/evals/evals.json"]] == [
        "file-outside-repository"
    ]


def test_nothing_outside_the_repository_reaches_the_output(repo: Path) -> None:
    outside = repo.parent / "outside"
    (repo / "skills/linked/evals").mkdir(parents=True)
    (repo / "skills/linked/SKILL.md").write_text("---\nname: linked\n---\n")
    (repo / "skills/linked/evals/evals.json").symlink_to(outside / "x.json")
    (repo / "skills/demo/SKILL.md").unlink()
    (repo / "skills/demo/SKILL.md").symlink_to(outside / "SKILL.md")
    (repo / "skills/demo/evals/evals.json").write_text(
        '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p"}]}'
    )
    for output in ("text", "json"):
        result = check(repo, "--format", output)
        assert SECRET not in result.stdout + result.stderr
    found = findings(check(repo, "--format", "json"))
    assert [code for code, _ in found["skills/linked/evals/evals.json"]] == ["file-outside-repository"]
    assert "path-outside-repository" in {code for code, _ in found["skills/demo/evals/evals.json"]}


def outside_paths_report(repo: Path, target: str) -> str:
    """--check output for a suite and a workflow fixture naming ``target`` outside the repository."""
    (repo / "skills/demo/evals/evals.json").write_text(
        json.dumps(
            {
                "skill_name": "demo",
                "evals": [
                    {
                        "id": "a",
                        "prompt": "p",
                        "setup": {
                            "kind": "seeded",
                            "sources": [f"../../../../{target}", {"from": f"../../../../{target}"}],
                        },
                        "files": [f"../../../../{target}"],
                    }
                ],
            }
        )
    )
    (repo / "skills/demo/evals/cases.json").write_text(
        json.dumps(
            {
                "schema_version": "spec-first.workflow-eval-fixtures.v1",
                "skill": "demo",
                "source_ref_authority": "source",
                "cases": [
                    {
                        "id": "c",
                        "input": "i",
                        "coverage_tags": ["trigger"],
                        "expected_outcome": "o",
                        "source_refs": [f"../{target}"],
                    }
                ],
            }
        )
    )
    result = check(repo)
    return result.stdout.replace(target, "TARGET") + f"exit {result.returncode}"


def test_outside_paths_are_never_probed(repo: Path) -> None:
    existing = outside_paths_report(repo, "outside/x.json")
    missing = outside_paths_report(repo, "outside/y.json")  # same length: same columns
    assert existing == missing  # an existing outside file cannot be told from a missing one
    assert "path-outside-repository" in existing and "path_outside_repository" in existing
    assert "source_ref_missing" not in existing and "path-not-found" not in existing


def test_a_file_named_outside_the_given_root_is_still_checked(repo: Path, tmp_path: Path) -> None:
    """The command line, not the repository, chose it (output paths may start with ../)."""
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    suite = other / "skills/x/evals/evals.json"
    suite.parent.mkdir(parents=True)
    suite.write_text('{"skill_name": "x", "evals": [{"id": "a"}]}')
    found = findings(check(repo, "--format", "json", "--root", str(repo), str(suite)))
    # Read and checked; what it names beside it (its SKILL.md) lies outside --root, so is not looked at.
    assert sorted(code for code, _ in found["../other/skills/x/evals/evals.json"]) == [
        "path-outside-repository",
        "prompt-required",
    ]


# -- project files (.evalfix.toml, pyproject.toml) -------------------------------------------------

SUITE_WITH_FILES = '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p", "files": ["x.txt"]}]}'
OUTSIDE_CONFIG = f'severity = {{"files-legacy" = "off"}}\n{SECRET} = 1\n'


@pytest.mark.parametrize(
    ("name", "text"),
    [(".evalfix.toml", OUTSIDE_CONFIG), ("pyproject.toml", "[tool.evalfix]\n" + OUTSIDE_CONFIG)],
    ids=[".evalfix.toml", "pyproject.toml"],
)
def test_a_project_file_linked_outside_the_repository_is_not_read(repo: Path, name: str, text: str) -> None:
    (repo / "skills/demo/evals/evals.json").write_text(SUITE_WITH_FILES)
    (repo / "skills/demo/evals/x.txt").write_text("x")
    outside = repo.parent / "outside" / name
    outside.write_text(text)
    (repo / name).symlink_to(outside)
    result = check(repo)
    assert SECRET not in result.stdout + result.stderr
    assert "files-legacy" in result.stdout  # the outside file's override was not applied
    assert f"{repo / name}: a symbolic link leading outside the repository" in result.stderr
    outside.unlink()  # a link to nothing: the same run, word for word
    again = check(repo)
    assert (again.stdout, again.stderr, again.returncode) == (result.stdout, result.stderr, result.returncode)


def test_a_project_file_linked_inside_the_repository_is_read(repo: Path) -> None:
    (repo / "skills/demo/evals/evals.json").write_text(SUITE_WITH_FILES)
    (repo / "skills/demo/evals/x.txt").write_text("x")
    (repo / "config").mkdir()
    (repo / "config/evalfix.toml").write_text('severity = {"files-legacy" = "off"}\n')
    (repo / ".evalfix.toml").symlink_to("config/evalfix.toml")
    result = check(repo)
    assert result.returncode == 0 and "files-legacy" not in result.stdout, result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("root", ["/", "..", "up", "up/repo/.."])
def test_a_project_file_cannot_move_the_root_out_of_the_repository(repo: Path, root: str) -> None:
    """``root = "/"`` would make every outside path "inside": its existence would show."""
    (repo / "up").symlink_to("..")
    (repo / ".evalfix.toml").write_text(f'root = "{root}"\n')
    existing = outside_paths_report(repo, "outside/x.json")
    missing = outside_paths_report(repo, "outside/y.json")
    assert existing == missing
    assert "path-outside-repository" in existing and "path-not-found" not in existing
    stderr = check(repo).stderr
    assert f"{repo / '.evalfix.toml'}: root: " in stderr and "outside the repository" in stderr


def test_a_project_file_may_narrow_the_root(repo: Path) -> None:
    (repo / "skills/demo/evals/evals.json").write_text(
        '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "p", "files": ["../../../top.txt"]}]}'
    )
    (repo / "top.txt").write_text("x")
    assert "path-outside-repository" not in check(repo).stdout
    (repo / ".evalfix.toml").write_text('root = "skills"\n')
    result = check(repo)
    assert "path-outside-repository" in result.stdout and result.stderr == ""


# -- --fix reads as --check does -----------------------------------------------------------------


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/dev/stdin"])
def test_fix_does_not_block_on_a_special_file(repo: Path, special: str) -> None:
    suite = repo / "skills/demo/evals/evals.json"
    if special == "fifo":
        os.mkfifo(suite)
    else:
        suite.symlink_to(special)
    result = check(repo, "--fix")
    assert result.returncode == 1, result.stderr
    expected = (
        "a named pipe (FIFO), not a regular file" if special == "fifo" else "resolves outside the repository"
    )
    assert f"skills/demo/evals/evals.json: {expected}" in result.stderr


def test_a_special_project_file_does_not_block(repo: Path) -> None:
    (repo / "skills/demo/evals/evals.json").write_text(SUITE_WITH_FILES)
    (repo / "skills/demo/evals/x.txt").write_text("x")
    os.mkfifo(repo / ".evalfix.toml")  # not a regular file: no project file here
    (repo / "pyproject.toml").symlink_to("/dev/zero")
    result = check(repo)
    assert result.returncode == 0 and "files-legacy" in result.stdout
    assert f"{repo / 'pyproject.toml'}: a symbolic link leading outside the repository" in result.stderr


def test_a_hostile_glob_in_the_project_file_does_not_hang(repo: Path) -> None:
    """A ``files`` glob is matched against every file of the repository. As a regular expression,
    ``*a*a…*ab.json`` backtracked exponentially on a long name of ``a``s that does not match it;
    a reversed range ``[z-a]`` was a traceback."""
    long_name = "a" * 60 + ".json"
    (repo / "skills/demo/evals" / long_name).write_text('{"cases": [{"id": "x"}]}')
    (repo / "skills/demo/evals/evals.json").write_text(SUITE_WITH_FILES)
    hostile = "*a" * 30 + "b.json"
    (repo / ".evalfix.toml").write_text(
        f'[files]\n"{hostile}" = "evals"\n"[z-a].json" = "none"\n"skills/*/evals/[a-c]*.json" = "none"\n'
    )
    result = check(repo, "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    assert "files.[z-a].json: not a valid glob: the range z-a in [z-a] is reversed" in result.stderr
    checked = findings(result)
    assert f"skills/demo/evals/{long_name}" not in checked  # the last mapping took it
    assert "files-legacy" in [code for code, _ in checked["skills/demo/evals/evals.json"]]


@pytest.mark.parametrize("output", ["text", "github"])
def test_a_fixtures_control_characters_stay_inside_their_finding(repo: Path, output: str) -> None:
    """Messages quote the fixture's values: a LF in one started a new output line (which a GitHub
    Actions log reads as a workflow command when it starts with ``::``), and ESC, CSI (U+009B) or
    a right-to-left override reached the terminal as they are."""
    tag = "Bad\n::error file=README.md::injected\r\x1b[2K\x9b31m\u202etag"
    fixture = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "cases": [{"id": "a", "input": "i", "coverage_tags": [tag], "source_refs": ["skills/demo/SKILL.md"]}],
    }
    (repo / "skills/demo/evals/cases.json").write_text(json.dumps(fixture))
    result = check(repo, "--format", output)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[1] == "1 error, 0 warnings in 1 file", lines
    shown = (
        "Bad%0A::error file=README.md::injected%0D"
        if output == "github"
        else "Bad\\n::error file=README.md::injected\\r"
    )
    assert lines[0].endswith(f"invalid coverage tag: {shown}\\u001b[2K\\u009b31m\\u202etag"), lines[0]


@pytest.mark.parametrize("flags", [[], ["--fix"]])
def test_a_project_files_control_characters_stay_inside_their_warning(repo: Path, flags: list[str]) -> None:
    """Configuration warnings on stderr quote the project file's keys and values: an ESC, a BEL,
    a CSI or a LF in an unknown key reached the terminal (or started a line of the CI log) as it
    is. They are written as escapes, as the findings are."""
    (repo / "skills/demo/evals/evals.json").write_text(SUITE_WITH_FILES)
    (repo / "skills/demo/evals/x.txt").write_text("x")
    (repo / ".evalfix.toml").write_text(
        '"\\u001b]0;title\\u0007" = 1\nseverity = {"x\\n::error::injected\\u009b31m" = "off"}\n'
    )
    result = check(repo, *flags)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning: configuration" in line]
    assert warnings == [
        f"evalfix-ls: warning: configuration: {repo / '.evalfix.toml'}: \\u001b]0;title\\u0007: "
        "unknown setting (ignored)",
        f"evalfix-ls: warning: configuration: {repo / '.evalfix.toml'}: "
        "severity.x\\n::error::injected\\u009b31m: not a finding code of evalfix-ls; ignored",
    ], result.stderr
    assert not any(ch in result.stderr for ch in "\x1b\x07\x9b"), result.stderr
    # A PATH as given is quoted in the usage error too.
    missing = check(repo, *flags, "gone\x1b[2K.json")
    assert missing.returncode == 2 and "gone\\u001b[2K.json" in missing.stderr, missing.stderr
    assert "\x1b" not in missing.stderr


@pytest.mark.parametrize("project_file", [".evalfix.toml", "pyproject.toml"])
def test_a_project_file_nested_too_deep_is_a_warning(repo: Path, project_file: str) -> None:
    """Python's TOML reader recurses once per nesting level: a project file nested deeper than
    the interpreter's limit was a RecursionError traceback instead of a configuration warning."""
    (repo / "skills/demo/evals/evals.json").write_text(SUITE_WITH_FILES)
    (repo / "skills/demo/evals/x.txt").write_text("x")
    table = "[tool.evalfix]\n" if project_file == "pyproject.toml" else ""
    (repo / project_file).write_text(f"{table}files = {'[' * 50_000}{']' * 50_000}\n")
    result = check(repo)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 0 and "files-legacy" in result.stdout
    # A pyproject.toml that cannot be read is someone else's file: passed over, as when it is invalid.
    warned = f"{repo / project_file}: cannot read: nested too deeply to read" in result.stderr
    assert warned == (project_file == ".evalfix.toml"), result.stderr


def test_a_directory_chain_deeper_than_python_recurses_is_walked(repo: Path) -> None:
    """Python 3.11's ``os.walk`` recurses once per directory level: a repository with a chain of
    1,200 nested directories stopped ``--check`` with a ``RecursionError`` traceback."""
    top = repo / "skills/demo/evals/d"
    deep = top
    for _ in range(1_200):
        deep.mkdir()
        deep = deep / "d"
    fixture = deep.parent / "cases.json"
    fixture.write_text('{"cases": [{"id": "x"}]}')
    try:
        result = check(repo, "--format", "json")
        assert "Traceback" not in result.stderr, result.stderr[-2000:]
        [(path, codes)] = [(p, [c for c, _ in found]) for p, found in findings(result).items()]
        assert path.endswith("/d/cases.json") and "missing_input" in codes
    finally:  # pytest's clean-up of old temporary folders recurses too: leave no chain behind
        fixture.unlink()
        for level in [deep.parent, *deep.parent.parents]:
            level.rmdir()
            if level == top:
                break
