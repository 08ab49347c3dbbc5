"""`evalfix-ls --check`: file selection, output formats, exit codes, unreadable input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalfix_ls.cli import main
from evalfix_ls.workspace import files

SUITE_OK = '{"skill_name": "demo", "evals": [{"id": "a", "prompt": "Say hi 😀"}]}\n'
# A missing comma on line 3 after CJK and emoji: column counts in UTF-16 units.
SUITE_BROKEN = '{\n  "skill_name": "demo",\n  "evals": [{"id": "a", "prompt": "请 😀" "x": 1}]\n}\n'


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "skills/demo/SKILL.md", "---\nname: demo\n---\n")
    write(tmp_path / "skills/demo/evals/evals.json", SUITE_OK)
    write(tmp_path / "skills/bad/SKILL.md", "---\nname: bad\n---\n")
    write(tmp_path / "skills/bad/evals/evals.json", SUITE_BROKEN)
    write(tmp_path / "node_modules/pkg/evals/evals.json", SUITE_BROKEN)  # skipped by the walk
    write(tmp_path / ".hidden/evals/evals.json", SUITE_BROKEN)  # dot-directories are skipped
    write(tmp_path / "docs/notes.json", "{}")  # not a fixture
    return tmp_path


def run(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(args)
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_and_exit_code(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--check"], repo, capsys)
    assert code == 1
    lines = out.strip().splitlines()
    # line 3, column of the `"x"` token in UTF-16 units, 1-based
    line3 = SUITE_BROKEN.splitlines()[2]
    col = len(line3[: line3.index('"x"')].encode("utf-16-le")) // 2 + 1
    assert lines[0].startswith(f"skills/bad/evals/evals.json:3:{col}: error[json-invalid] Invalid JSON")
    assert lines[-1] == "1 error, 0 warnings in 2 files"
    assert "node_modules" not in out and ".hidden" not in out


def test_json_output_shape(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--check", "--format", "json"], repo, capsys)
    assert code == 1
    data = json.loads(out)
    assert set(data) >= {"version", "root", "files", "summary"}
    assert data["root"] == repo.as_posix()
    assert [f["path"] for f in data["files"]] == [
        "skills/bad/evals/evals.json",
        "skills/demo/evals/evals.json",
    ]
    bad, good = data["files"]
    assert bad["kind"] == good["kind"] == "evals"
    assert good["findings"] == []
    [finding] = bad["findings"]
    assert set(finding) == {"code", "severity", "message", "pointer", "case", "range"}
    assert finding["code"] == "json-invalid" and finding["severity"] == "error"
    assert finding["case"] is None and finding["pointer"] == ""
    line3 = SUITE_BROKEN.splitlines()[2]
    character = len(line3[: line3.index('"x"')].encode("utf-16-le")) // 2
    assert finding["range"]["start"] == {"line": 2, "character": character}
    assert data["summary"] == {"files": 2, "errors": 1, "warnings": 0, "information": 0, "hints": 0}


def test_explicit_unknown_file_is_listed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--check", "--format", "json", "docs/notes.json"], repo, capsys)
    assert code == 0
    data = json.loads(out)
    [listed] = data["files"]
    assert listed["path"] == "docs/notes.json" and listed["kind"] == "unknown" and listed["findings"] == []
    assert "no tool reads it as a fixture" in listed["reason"]  # why it is not checked


def test_named_file_in_skipped_directory_is_checked(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--check", ".hidden/evals/evals.json"], repo, capsys)
    assert code == 1
    assert out.startswith(".hidden/evals/evals.json:3:")


def test_a_file_named_twice_is_checked_once(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same file through a ``..`` and through the walk was checked and counted twice."""
    named = ["skills/bad/evals/../evals/evals.json", "skills", "./skills/bad/evals/evals.json"]
    code, out, _ = run(["--check", "--format", "json", *named], repo, capsys)
    paths = [file["path"] for file in json.loads(out)["files"]]
    assert code == 1 and sorted(paths) == [
        "skills/bad/evals/evals.json",
        "skills/demo/evals/evals.json",
    ]


def test_missing_path_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["--check", "nope.json"], repo, capsys)
    assert code == 2
    assert "nope.json" in err


def test_bad_option_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(["--check", "--format", "xml"], repo, capsys)
    assert code == 2


def test_strict_fails_on_warnings(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo / "skills/demo/evals/evals.json", '{"skill_name": "demo", "skill_name": "demo", "evals": []}')
    code, out, _ = run(["--check", "skills/demo"], repo, capsys)
    assert code == 0 and "warning[duplicate-key]" in out
    code, _, _ = run(["--check", "--strict", "skills/demo"], repo, capsys)
    assert code == 1


def test_root_option_sets_relative_paths(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["--check", "--format", "json", "--root", str(repo / "skills"), "skills/demo"], repo, capsys
    )
    assert code == 0
    assert json.loads(out)["files"][0]["path"] == "demo/evals/evals.json"


def test_bom_and_bad_bytes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = repo / "skills/demo/evals/evals.json"
    write(target, b"\xef\xbb\xbf" + SUITE_OK.encode())
    code, out, _ = run(["--check", "skills/demo"], repo, capsys)
    assert code == 1 and "skills/demo/evals/evals.json:1:1: error[json-invalid]" in out
    # Latin-1 byte inside a string: Node replaces it with U+FFFD and parses fine.
    write(target, SUITE_OK.replace("Say hi", "caf\xe9").encode("utf-8").replace(b"\xc3\xa9", b"\xe9"))
    code, out, _ = run(["--check", "--format", "json", "skills/demo"], repo, capsys)
    assert code == 0
    [finding] = json.loads(out)["files"][0]["findings"]
    assert finding["code"] == "encoding-replaced" and finding["severity"] == "information"


def test_binary_and_utf16_files_are_findings_not_crashes(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = repo / "skills/demo/evals/evals.json"
    write(target, SUITE_OK.encode("utf-16"))
    code, out, _ = run(["--check", "skills/demo"], repo, capsys)
    assert code == 1 and "error[json-invalid]" in out
    write(target, bytes(range(256)) * 4)
    code, out, _ = run(["--check", "skills/demo"], repo, capsys)
    assert code == 1 and "error[json-invalid]" in out


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_file_gets_one_clear_error(
    repo: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    """Node reads a UTF-16 file as UTF-8, so JSON.parse fails at its byte order mark: one error
    that says what the file is, at the mark; every later character was another syntax finding
    ("unexpected character '\\x00'", a hundred of them)."""
    target = repo / "skills/demo/evals/evals.json"
    write(target, "\ufeff".encode(encoding) + SUITE_OK.encode(encoding))
    code, out, _ = run(["--check", "--format", "json", "skills/demo"], repo, capsys)
    found = [(f["code"], f["message"], f["range"]) for f in json.loads(out)["files"][0]["findings"]]
    first_two = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 2}}
    assert code == 1 and [(c, r) for c, _, r in found] == [
        ("encoding-replaced", {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}),
        ("json-invalid", first_two),
    ], found
    assert found[1][1] == (
        "Invalid JSON: the file is UTF-16 (it starts with a UTF-16 byte order mark): Node reads it as "
        "UTF-8, so JSON.parse fails; re-save it as UTF-8"
    )


@pytest.mark.parametrize("output", ["text", "github"])
def test_a_huge_value_is_shortened_in_the_lines_people_read(
    repo: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    """A workflow message quotes the fixture's value as the reference does: a 1 MB coverage tag
    made a 1 MB output line (and a GitHub annotation no one can read). The text and github lines
    keep the message's start and end and say how much was left out; ``--format json`` keeps the
    whole message."""
    tag = "T" * 1_000_000
    fixture = {
        "schema_version": "spec-first.workflow-eval-fixtures.v1",
        "skill": "demo",
        "cases": [
            {"id": "a", "input": "i", "coverage_tags": [tag + "😀"], "source_refs": ["skills/demo/SKILL.md"]}
        ],
    }
    write(repo / "skills/demo/evals/cases.json", json.dumps(fixture, ensure_ascii=False))
    code, out, _ = run(["--check", "--format", output, "skills/demo/evals/cases.json"], repo, capsys)
    [line, summary] = out.splitlines()
    assert code == 1 and summary == "1 error, 0 warnings in 1 file"
    assert "invalid_coverage_tag" in line and len(line) < 2_000, len(line)
    assert line.endswith("TTT😀") and "… (999,023 characters left out) …" in line, line[-300:]
    code, out, _ = run(["--check", "--format", "json", "skills/demo/evals/cases.json"], repo, capsys)
    [finding] = json.loads(out)["files"][0]["findings"]
    assert finding["message"] == f"invalid coverage tag: {tag}😀"


def test_dangling_symlink_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = repo / "skills/demo/evals/evals.json"
    target.unlink()
    target.symlink_to(repo / "missing-target.json")
    code, _, err = run(["--check", str(target)], repo, capsys)
    assert code == 2 and "no such file" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a file whatever its mode")
def test_unreadable_mode_is_a_finding(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = repo / "skills/demo/evals/evals.json"
    target.chmod(0)
    code, out, _ = run(["--check", "--format", "json", "skills/demo"], repo, capsys)
    assert code == 1
    assert json.loads(out)["files"][0]["findings"][0]["code"] == "file-unreadable"


def test_unreadable_file_read_error(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain_open = files.os.open

    def refuse(path: str, flags: int, *args: int) -> int:
        if str(path).endswith("evals.json"):
            raise PermissionError(13, "Permission denied")
        return plain_open(path, flags, *args)

    monkeypatch.setattr(files.os, "open", refuse)
    code, out, _ = run(["--check", "--format", "json", "skills/demo"], repo, capsys)
    assert code == 1
    [finding] = json.loads(out)["files"][0]["findings"]
    assert finding["code"] == "file-unreadable" and "Permission denied" in finding["message"]


def test_huge_file_is_not_analyzed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = repo / "skills/demo/evals/evals.json"
    with target.open("r+b") as handle:
        handle.truncate(51 * 1024 * 1024)  # sparse: no 51 MB written
    code, out, _ = run(["--check", "--format", "json", "skills/demo"], repo, capsys)
    assert code == 0
    [finding] = json.loads(out)["files"][0]["findings"]
    assert finding["code"] == "file-too-large" and finding["severity"] == "warning"


def test_console_script_runs_as_module(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evalfix_ls", "--check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["errors"] == 1
    assert proc.stderr == ""


def test_no_fixture_files_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "docs/readme.json", "{}")
    code, out, err = run(["--check", "docs"], tmp_path, capsys)
    assert code == 2
    assert "no fixture files found in docs" in err
    assert out.strip() == "0 errors, 0 warnings in 0 files"


def test_suite_outside_any_repository_is_an_eval_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write(tmp_path / "loose/evals/evals.json", '{"skill_name": "x", "evals": [{"id": "a"}]}')
    code, out, _ = run(["--check", "--format", "json", str(suite)], tmp_path, capsys)
    assert code == 1
    [entry] = json.loads(out)["files"]
    assert entry["kind"] == "evals"
    assert "prompt-required" in [f["code"] for f in entry["findings"]]
