"""`--check --format github`: GitHub Actions workflow commands, escaped as the runner unescapes
them, exact on awkward messages and paths (commas, colons, newlines, percent signs, CJK)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalfix_ls.analysis import Analysis
from evalfix_ls.batch.format_github import escape_data, escape_property, to_github_lines
from evalfix_ls.batch.run import FileReport, Report
from evalfix_ls.cli import main
from evalfix_ls.findings import Finding, Severity


def test_escaping_of_data_and_properties() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext%3A a%2C b"
    assert escape_property("%3A") == "%253A"  # an escape sequence in the input stays literal


def test_awkward_message_and_path_exact(tmp_path: Path) -> None:
    text = '{"名前": "値😀", "k": 1}\n'
    start = text.index('"k"')
    finding = Finding(
        "key-ignored", Severity.HINT, '未知のキー, "k": 無視\n次の行 100%', "/k", start, start + 3
    )
    warning = Finding("json-syntax", Severity.WARNING, "a: b, c", "", 0, 1)
    analysis = Analysis("evals", text, None, [finding, warning])
    file = FileReport(tmp_path / "x", "skills/a,b:c/評価/evals.json", analysis, tmp_path)
    lines = list(to_github_lines(Report(tmp_path, [file])))
    # Before "k": `{"名前": "値😀", ` is 13 code points, 14 UTF-16 units (😀 takes two): column 15.
    assert lines == [
        "::warning file=skills/a%2Cb%3Ac/評価/evals.json,line=1,col=1,endLine=1,endColumn=2,"
        "title=json-syntax::a: b, c",
        "::notice file=skills/a%2Cb%3Ac/評価/evals.json,line=1,col=15,endLine=1,endColumn=18,"
        'title=key-ignored::未知のキー, "k": 無視%0A次の行 100%25',
        "0 errors, 1 warning in 1 file",
    ]


def test_check_prints_one_command_per_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    suite = tmp_path / "skills/d,1/evals/evals.json"
    suite.parent.mkdir(parents=True)
    (tmp_path / "skills/d,1/SKILL.md").write_text("---\nname: d\n---\n", encoding="utf-8")
    suite.write_text(
        '{"skill_name": "d", "evals": [{"id": "a", "prompt": "😀", "setup": 3}]}\n', encoding="utf-8"
    )
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        code = main(["--check", "--format", "github"])
    finally:
        os.chdir(old)
    out = capsys.readouterr().out.splitlines()
    # the value 3 of "setup", after the emoji (two UTF-16 units)
    col = (
        len('{"skill_name": "d", "evals": [{"id": "a", "prompt": "😀", "setup": '.encode("utf-16-le")) // 2
        + 1
    )
    assert code == 1
    assert out[0].startswith(
        f"::error file=skills/d%2C1/evals/evals.json,line=1,col={col},endLine=1,endColumn={col + 1},"
        "title=setup-not-object::"
    )
    assert out[-1] == "1 error, 0 warnings in 1 file"
    assert len(out) == 2
