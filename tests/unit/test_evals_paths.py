"""File-system rules of the evals.json contract: existence relative to evals/, skill-root-relative
`files`, arc-skill-eval discovery, SKILL.md name (evals-json.md §2, §7, §8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from evals_support import findings_of, one, suite

SUITE_PATH = "skills/demo/evals/evals.json"


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "skills/demo/SKILL.md", "---\nname: demo\ndescription: d\n---\n# Demo\n")
    write(tmp_path / "skills/demo/evals/files/a.txt", "a")
    write(tmp_path / "skills/demo/evals/files/repo/README.md", "r")
    write(tmp_path / "skills/demo/files/root-only.txt", "x")  # relative to the skill root only
    return tmp_path


def check_at(repo: Path, text: str, rel: str = SUITE_PATH) -> list[tuple[str, str, str]]:
    path = write(repo / rel, text)
    return [(f.code, f.pointer, f.severity.word) for f in findings_of(text, path=path, repo_root=repo)]


def test_clean_suite_on_disk_has_no_findings(repo: Path) -> None:
    text = one(
        '"setup": {"kind": "seeded", "sources": [{"from": "files/repo", "to": "."}], '
        '"mountMode": "flatten-contents"}'
    )
    assert [c for c in check_at(repo, text) if c[2] != "hint"] == []


def test_missing_sources_and_files_are_reported(repo: Path) -> None:
    text = one(
        '"setup": {"kind": "seeded", "sources": [{"from": "files/a.txt"}, {"from": "files/nope"}, '
        '"files/gone/"]}, '
        '"files": ["files/repo/", "files/missing.txt", "files/x/../a.txt"]'
    )
    found = [c for c in check_at(repo, text) if c[0] == "path-not-found"]
    assert found == [
        ("path-not-found", "/evals/0/setup/sources/1/from", "warning"),
        ("path-not-found", "/evals/0/setup/sources/2", "warning"),
        ("path-not-found", "/evals/0/files/1", "warning"),
    ]


def test_files_relative_to_the_skill_root(repo: Path) -> None:
    text = one('"files": ["evals/files/a.txt", "files/root-only.txt", "evals/nowhere"]')
    found = check_at(repo, text)
    assert ("files-skill-root-relative", "/evals/0/files/0", "warning") in found
    # exists only relative to the skill root, but does not start with evals/: just missing
    assert ("path-not-found", "/evals/0/files/1", "warning") in found
    # starts with evals/ but exists nowhere: missing, not skill-root-relative
    assert ("path-not-found", "/evals/0/files/2", "warning") in found
    assert ("files-skill-root-relative", "/evals/0/files/2", "warning") not in found
    # and the first entry is not also reported as missing
    assert ("path-not-found", "/evals/0/files/0", "warning") not in found


def test_files_under_evals_that_really_exist_are_fine(repo: Path) -> None:
    write(repo / "skills/demo/evals/evals/files/x.txt")
    assert not [c for c in check_at(repo, one('"files": ["evals/files/x.txt"]')) if c[2] == "warning"]


def test_unsaved_buffer_skips_file_system_checks() -> None:
    text = one('"setup": {"kind": "seeded", "sources": [{"from": "files/nope"}]}, "files": ["evals/x"]')
    found = [(f.code, f.severity.word) for f in findings_of(text)]
    assert ("path-not-found", "warning") not in found
    assert ("not-discovered", "information") not in found
    assert ("files-skill-root-relative", "hint") in found


def test_absolute_source_paths_are_checked_inside_the_repository_only(repo: Path) -> None:
    present = write(repo / "outside.txt", "x")
    text = one(
        '"setup": {"kind": "seeded", "sources": [{"from": "' + present.as_posix() + '", "to": "o.txt"}, '
        '{"from": "/definitely/not/here", "to": "n"}]}'
    )
    found = check_at(repo, text)
    assert ("source-outside-evals", "/evals/0/setup/sources/0/from", "warning") in found
    assert ("path-not-found", "/evals/0/setup/sources/0/from", "warning") not in found
    # A host path outside the repository is never tested: it leaves the repository.
    assert ("path-outside-repository", "/evals/0/setup/sources/1/from", "warning") in found
    assert ("path-not-found", "/evals/0/setup/sources/1/from", "warning") not in found


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("skills/no-skill-md/evals/evals.json", "no SKILL.md"),
        (".claude/skills/demo2/evals/evals.json", "'.claude'"),
        ("node_modules/pkg/evals/evals.json", "'node_modules'"),
        ("skills/demo/nested/evals/evals.json", "inside the skill 'skills/demo'"),
    ],
)
def test_not_discovered(repo: Path, rel: str, reason: str) -> None:
    skill_dir = (repo / rel).parent.parent
    if "no-skill-md" not in rel:
        write(skill_dir / "SKILL.md", "---\nname: x\n---\n")
    write(repo / SUITE_PATH, one())  # makes skills/demo a discovered skill
    text = one()
    path = write(repo / rel, text)
    [finding] = [f for f in findings_of(text, path=path, repo_root=repo) if f.code == "not-discovered"]
    assert finding.pointer == "" and finding.severity.word == "information" and finding.case is None
    assert (finding.start, finding.end) == (0, 1)
    assert reason in finding.message


def test_skill_with_md_but_no_suite_does_not_hide_nested_skills(repo: Path) -> None:
    write(repo / "skills/outer/SKILL.md", "---\nname: outer\n---\n")
    (repo / "skills/outer/evals").mkdir(parents=True)  # evals/ without evals.json: the walk continues
    write(repo / "skills/outer/inner/SKILL.md", "---\nname: demo\n---\n")
    found = check_at(repo, one(), "skills/outer/inner/evals/evals.json")
    assert "not-discovered" not in {c[0] for c in found}


def test_discovered_suite_has_no_discovery_finding(repo: Path) -> None:
    assert "not-discovered" not in {c[0] for c in check_at(repo, one())}


@pytest.mark.parametrize(
    ("front_matter", "expected"),
    [
        ("---\nname: other\n---\n", [("skill-name-mismatch", "/skill_name", "information")]),
        ("---\nname: 'demo'\n---\n", []),
        ("---\ndescription: no name\n---\n", []),
        ("# no front matter\nname: other\n", []),
    ],
)
def test_skill_name_against_skill_md(
    repo: Path, front_matter: str, expected: list[tuple[str, str, str]]
) -> None:
    write(repo / "skills/demo/SKILL.md", front_matter)
    found = [c for c in check_at(repo, one()) if c[0] == "skill-name-mismatch"]
    assert found == expected


def test_trigger_eval_file_on_disk_still_gets_discovery_info(repo: Path) -> None:
    text = '[{"query": "hi", "should_trigger": true}]'
    found = check_at(repo, text, "skills/trig/evals/evals.json")
    assert [c[0] for c in found] == ["not-discovered", "root-not-object", "trigger-eval-format"]


def test_suite_checks_use_the_evals_directory_of_each_file(repo: Path) -> None:
    write(repo / "skills/other/SKILL.md", "---\nname: demo\n---\n")
    text = suite('{"id": "a", "prompt": "p", "files": ["files/a.txt"]}')
    found = check_at(repo, text, "skills/other/evals/evals.json")
    assert ("path-not-found", "/evals/0/files/0", "warning") in found
