"""Configuration (config/): parsing, layering, project files, and what ``--check`` does with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalfix_ls.cli import main
from evalfix_ls.config.model import Config
from evalfix_ls.config.parse import parse_settings
from evalfix_ls.config.project_config import ProjectConfigs
from evalfix_ls.config.project_files import find_project_file
from evalfix_ls.contracts.detection import EVALS, UNKNOWN, WORKFLOW
from evalfix_ls.findings import Finding, Severity
from evalfix_ls.workspace.glob_match import PathGlob


def _finding(code: str, severity: Severity = Severity.WARNING) -> Finding:
    return Finding(code, severity, "m", "", 0, 1)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("fixtures/*.json", "fixtures/a.json", True),
        ("fixtures/*.json", "fixtures/sub/a.json", False),
        ("**/*.cases.json", "a/b/c.cases.json", True),
        ("**/*.cases.json", "c.cases.json", True),
        ("*.cases.json", "deep/down/c.cases.json", True),  # no slash: any directory
        ("qa/**", "qa/x/y.json", True),
        ("qa/**/t.json", "qa/t.json", True),
        ("./qa/?.json", "qa/a.json", True),
        ("qa/?.json", "qa/ab.json", False),
        ("[!a]*.json", "b.json", True),
        ("[!a]*.json", "a.json", False),
        ("a.json", "a_json", False),  # the dot is literal
        ("qa/**", "qa", False),  # a final ** is what lies below, not the folder
        ("a/**/**/b/*.json", "a/b/c.json", True),
        ("[]x]?.json", "]1.json", True),  # a ] first in a class is a member
        ("[a-c][!0-9].json", "b_.json", True),
        ("[a-c][!0-9].json", "b5.json", False),
        ("x[!a]y", "x/y", False),  # no part of a glob crosses a /
        ("*a" * 30 + "b", "a" * 200, False),  # a regular expression backtracked for ages on this
        ("*a" * 30 + "*", "a" * 60, True),
    ],
)
def test_globs(pattern: str, path: str, matches: bool) -> None:
    assert PathGlob(pattern).matches(path) == matches


def test_an_invalid_glob_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    config = parse_settings(
        {"files": {"[z-a].json": "none", "ok/*.json": "workflow"}}, base_dir=tmp_path, origin="t"
    )
    assert config.problems == ("t: files.[z-a].json: not a valid glob: the range z-a in [z-a] is reversed",)
    assert [mapping.pattern for mapping in config.files] == ["ok/*.json"]


def test_settings_keys_in_any_spelling(tmp_path: Path) -> None:
    for key in ("debounceMs", "debounce_ms", "debounce-ms", "DEBOUNCEMS"):
        assert parse_settings({key: 120}, base_dir=tmp_path, origin="t").debounce_ms == 120
    config = parse_settings(
        {
            "severity": {"duplicate-key": "error", "id-style": "off", "files-legacy": "info"},
            "files": {"qa/*.json": "workflow", "suites/**/*.json": "evals", "drafts/**": "none"},
            "root": "repo",
            "workspaceDiagnostics": False,
        },
        base_dir=tmp_path,
        origin="t",
    )
    assert config.problems == ()
    assert dict(config.severity) == {
        "duplicate-key": Severity.ERROR,
        "id-style": None,
        "files-legacy": Severity.INFORMATION,
    }
    assert config.root == tmp_path / "repo"
    assert config.workspace_diagnostics is False
    assert config.kind_for(tmp_path / "qa" / "x.json") == WORKFLOW
    assert config.kind_for(tmp_path / "suites" / "a" / "b.json") == EVALS
    assert config.kind_for(tmp_path / "drafts" / "x.json") == UNKNOWN
    assert config.kind_for(tmp_path / "other.json") is None
    assert config.kind_for(tmp_path.parent / "qa" / "x.json") is None  # outside the base


def test_invalid_settings_are_reported_not_fatal(tmp_path: Path) -> None:
    config = parse_settings(
        {
            "severity": {"id-style": "loud", "files-legacy": "hint"},
            "files": {"x/*.json": "yaml"},
            "debounceMs": -5,
            "workspaceDiagnostics": "yes",
            "colour": "blue",
        },
        base_dir=tmp_path,
        origin="here",
    )
    assert dict(config.severity) == {"files-legacy": Severity.HINT}
    assert config.files == ()
    assert config.debounce_ms == Config().debounce_ms
    assert len(config.problems) == 5
    assert all(problem.startswith("here: ") for problem in config.problems)
    assert parse_settings(["not", "a", "table"], base_dir=tmp_path, origin="o").problems


def test_layers_override_key_by_key(tmp_path: Path) -> None:
    project = parse_settings(
        {
            "severity": {"id-style": "error", "files-legacy": "hint"},
            "files": {"x/*.json": "evals"},
            "debounceMs": 10,
        },
        base_dir=tmp_path,
        origin="project",
    )
    editor = parse_settings(
        {"severity": {"files-legacy": "off"}, "files": {"x/*.json": "workflow", "y/*.json": "evals"}},
        base_dir=tmp_path,
        origin="editor",
    )
    merged = Config().merged(project).merged(editor)
    assert dict(merged.severity) == {"id-style": Severity.ERROR, "files-legacy": None}
    assert merged.kind_for(tmp_path / "x" / "1.json") == WORKFLOW  # the later layer's mapping
    assert merged.kind_for(tmp_path / "y" / "1.json") == EVALS
    assert merged.debounce_ms == 10  # the editor layer did not set it
    assert merged.sources == ("project", "editor")


def test_apply_overrides_and_drops() -> None:
    config = parse_settings(
        {"severity": {"id-style": "error", "files-legacy": "off"}}, base_dir=Path("/"), origin="t"
    )
    out = config.apply(
        [_finding("id-style"), _finding("files-legacy"), _finding("id_synthesized", Severity.HINT)]
    )
    assert [(f.code, f.severity) for f in out] == [
        ("id-style", Severity.ERROR),
        ("id_synthesized", Severity.HINT),
    ]


def test_unknown_codes_in_severity_are_reported_and_ignored(tmp_path: Path) -> None:
    config = parse_settings(
        {"severity": {"id-styel": "off", "no-such-code": "error", "id-style": "hint"}},
        base_dir=tmp_path,
        origin="o",
    )
    assert dict(config.severity) == {"id-style": Severity.HINT}
    assert config.problems == (
        "o: severity.id-styel: not a finding code of evalfix-ls (did you mean 'id-style'?); ignored",
        "o: severity.no-such-code: not a finding code of evalfix-ls; ignored",
    )


def test_check_warns_about_an_unknown_code_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _suite(repo / "s" / "evals" / "evals.json", '{"skill_name": "x", "evals": [], "evals": []}')
    (repo / ".evalfix.toml").write_text('severity = {"duplicate-keys" = "error"}\n')
    monkeypatch.chdir(repo)
    assert main(["--check"]) == 0  # the misspelt override changed nothing: still a warning
    err = capsys.readouterr().err
    assert "warning: configuration" in err and "duplicate-keys: not a finding code" in err


def test_project_file_discovery(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    deep = repo / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_file(deep) is None
    (tmp_path / ".evalfix.toml").write_text('severity = {id-style = "off"}\n')  # above the repository
    assert find_project_file(deep) is None
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.evalfix]
    assert find_project_file(deep) is None
    (repo / "pyproject.toml").write_text('tool = "evalfix"\n')  # a `tool` that is no table
    assert find_project_file(deep) is None
    (repo / "pyproject.toml").write_text(
        '[tool.evalfix]\ndebounce-ms = 5\n[tool.evalfix.severity]\nid-style = "hint"\n'
    )
    assert find_project_file(deep) == repo / "pyproject.toml"
    assert ProjectConfigs().for_directory(deep).severity["id-style"] == Severity.HINT
    (repo / "a" / ".evalfix.toml").write_text('severity = {id-style = "error"}\n')
    assert find_project_file(deep) == repo / "a" / ".evalfix.toml"
    assert ProjectConfigs().for_directory(deep).severity["id-style"] == Severity.ERROR
    (repo / "a" / ".evalfix.toml").write_text("severity = [")
    configs = ProjectConfigs()  # each instance reads a project file once: a new one for new text
    broken = configs.for_directory(deep)
    assert broken.problems and "cannot read" in broken.problems[0]
    assert configs.problems() == list(broken.problems)


def _suite(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_check_reads_the_project_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    # An arc-style suite whose only problem is a duplicated member name (a warning).
    duplicate = '{"skill_name": "x", "evals": [], "evals": []}'
    _suite(repo / "skill-x" / "evals" / "evals.json", duplicate)
    # A file no built-in rule discovers, mapped to the evals contract by a glob.
    _suite(repo / "qa" / "suite.json", duplicate)
    # A walked file excluded by configuration.
    _suite(repo / "drafts" / "evals" / "evals.json", "{ not json")
    monkeypatch.chdir(repo)

    assert main(["--check", "--format", "json"]) == 1  # drafts/ is broken
    before = json.loads(capsys.readouterr().out)
    assert {f["path"] for f in before["files"]} == {"skill-x/evals/evals.json", "drafts/evals/evals.json"}

    (repo / ".evalfix.toml").write_text(
        'files = {"qa/*.json" = "evals", "drafts/**" = "none"}\n'
        'severity = {"duplicate-key" = "error", "not-discovered" = "off"}\n'
        "unknown-key = 1\n"
    )
    assert main(["--check", "--format", "json"]) == 1  # duplicate-key is an error now
    captured = capsys.readouterr()
    after = json.loads(captured.out)
    by_path = {f["path"]: f for f in after["files"]}
    assert set(by_path) == {"skill-x/evals/evals.json", "qa/suite.json"}
    assert by_path["qa/suite.json"]["kind"] == EVALS
    severities = {(f["code"], f["severity"]) for f in by_path["qa/suite.json"]["findings"]}
    assert ("duplicate-key", "error") in severities
    assert all(code != "not-discovered" for code, _ in severities)
    assert "unknown-key" in captured.err and "warning: configuration" in captured.err

    (repo / ".evalfix.toml").write_text(
        'severity = {"duplicate-key" = "off"}\nfiles = {"drafts/**" = "none"}\n'
    )
    assert main(["--check"]) == 0


def test_project_configs_look_at_each_directory_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture files of many skills share their upper directories: each directory is looked
    at once (a monorepo's 10,000 skills asked the same levels 10,000 times), with the answer
    ``find_project_file`` gives for every one of them."""
    import evalfix_ls.config.project_files as project_files

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".evalfix.toml").write_text('severity = {id-style = "hint"}\n')
    (repo / "skills" / "b" / ".evalfix.toml").parent.mkdir(parents=True)
    (repo / "skills" / "b" / ".evalfix.toml").write_text('severity = {id-style = "error"}\n')
    directories = [repo / "skills" / name / "evals" for name in ("a", "b", "c")]
    expected = [find_project_file(d) for d in directories]
    assert expected[1] == repo / "skills" / "b" / ".evalfix.toml" and expected[0] == repo / ".evalfix.toml"
    looked: list[Path] = []  # every candidate file name asked about
    real = project_files._candidate

    def counting(path: Path) -> str | None:
        looked.append(path)
        return real(path)

    monkeypatch.setattr(project_files, "_candidate", counting)
    configs = ProjectConfigs()
    assert [configs.project_file(d) for d in directories] == expected
    assert len(looked) == len(set(looked)), "a directory looked at twice"
