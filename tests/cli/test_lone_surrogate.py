"""A lone surrogate escape (``"\\uDFAA"``, which ``JSON.parse`` accepts) in a finding's message must
not stop the report: every format, ``--diff`` and ``--fix`` write it as its escape and list every
file. Run as a real process: the UTF-8 standard output is what cannot encode the surrogate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The ignored member's name is quoted in a hint; the string source is rewritten by a safe fix.
LONE_KEY = '{"skill_name": "lone", "evals": [{"id": "a", "prompt": "p"}], "\\uDFAA": 0}\n'
LONE_SOURCE = (
    '{"skill_name": "fixme", "evals": [{"id": "a", "prompt": "p",'
    ' "setup": {"kind": "seeded", "sources": ["\\uDFAA"]}}]}\n'
)
BROKEN = '{"skill_name": "broken", "evals": [{"id": "a"}]}\n'  # an error in another file
CLEAN = '{"skill_name": "clean", "evals": [{"id": "a", "prompt": "p"}]}\n'
FILES = {
    "skills/a-lone/evals/evals.json": LONE_KEY,
    "skills/b-broken/evals/evals.json": BROKEN,
    "skills/c-clean/evals/evals.json": CLEAN,
    "skills/d-fixme/evals/evals.json": LONE_SOURCE,
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    for rel, text in FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        (path.parent.parent / "SKILL.md").write_text(f"---\nname: {path.parent.parent.name}\n---\n")
    return tmp_path


def check(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "evalfix_ls", "--check", *args],
        cwd=repo,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_line_formats_list_every_file(repo: Path, fmt: str) -> None:
    done = check(repo, "--format", fmt, "--jobs", "1")
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    out = done.stdout.decode("utf-8")  # strict: the output is valid UTF-8
    assert done.returncode == 1
    assert "`\\udfaa` is not part of the suite format" in out
    for rel in ("skills/a-lone/", "skills/b-broken/", "skills/d-fixme/"):
        assert rel in out
    assert out.rstrip().endswith("in 4 files")


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_document_formats_are_valid_json_holding_the_surrogate(repo: Path, fmt: str) -> None:
    done = check(repo, "--format", fmt, "--jobs", "1")
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert done.returncode == 1
    document = json.loads(done.stdout.decode("utf-8"))
    if fmt == "json":
        assert [f["path"] for f in document["files"]] == sorted(FILES)
        messages = [f["message"] for file in document["files"] for f in file["findings"]]
    else:
        results = document["runs"][0]["results"]
        messages = [r["message"]["text"] for r in results]
    assert any("`\udfaa` is not part of the suite format" in m for m in messages)  # decoded back


def test_diff_and_fix_write_the_escape(repo: Path) -> None:
    diff = check(repo, "--diff")
    assert b"Traceback" not in diff.stderr, diff.stderr.decode()
    assert diff.returncode == 1
    assert '"sources": [{"from": "\\udfaa"}]}}]}' in diff.stdout.decode("utf-8")  # the JSON escape

    fixed = check(repo, "--fix")
    assert b"Traceback" not in fixed.stderr, fixed.stderr.decode()
    assert fixed.returncode == 1  # the broken file's error stays
    target = repo / "skills/d-fixme/evals/evals.json"
    assert json.loads(target.read_text(encoding="utf-8"))["evals"][0]["setup"]["sources"] == [
        {"from": "\udfaa"}
    ]
    assert "skills/a-lone/evals/evals.json" in fixed.stdout.decode("utf-8")
