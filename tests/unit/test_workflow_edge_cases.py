"""Edge cases of workflow-fixtures.md §10 (JSON text) and §15 not pinned elsewhere: what
``JSON.parse`` rejects and accepts, deep nesting, undecodable bytes, huge numbers, unreadable and
oversized files, coercions that count per case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from workflow_support import DELETE, FIXTURE, base, errors, make_repo, with_case, write_and_analyze

from evalfix_ls.analysis import analyze
from evalfix_ls.batch.run import check_paths
from evalfix_ls.findings import Severity
from evalfix_ls.workspace import files as textio
from evalfix_ls.workspace.files import FileText, read_file


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.mark.parametrize(
    "text",
    [
        "{'cases': []}",
        "{cases: []}",
        '{"a": 0x1}',
        '{"a": 01}',
        '{"a": "\x01"}',
        '{"a": Infinity}',
        '{"a": -Infinity}',
        "{} {}",
        '{"cases": [],}',
        "/* c */ {}",
    ],
)
def test_json_parse_rejects(repo: Path, text: str) -> None:
    assert [code for code, _, _ in errors(write_and_analyze(repo, text))] == ["invalid_json"]


def test_utf16_file_is_invalid_json(repo: Path) -> None:
    path = repo / FIXTURE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(json.dumps(base()).encode("utf-16"))
    report = check_paths([path], root=repo)
    assert [f.code for f in report.files[0].analysis.findings if f.severity == Severity.ERROR] == [
        "invalid_json"
    ]


def test_invalid_utf8_inside_a_string_is_not_an_error(repo: Path) -> None:
    path = repo / FIXTURE
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(with_case({"input": "PLACEHOLDER"}))
    path.write_bytes(text.encode().replace(b"PLACEHOLDER", b"caf\xe9 \xff"))
    (report,) = check_paths([path], root=repo).files
    assert [f.code for f in report.analysis.findings] == ["encoding_replaced"]
    assert report.analysis.workflow.cases[0].input == "caf\ufffd \ufffd"


def test_deep_nesting(repo: Path) -> None:
    depth = 100_000
    template = json.dumps(with_case({"expected_outcome": "DEEP"}))
    text = template.replace('"DEEP"', "[" * depth + '"x"' + "]" * depth)
    assert errors(write_and_analyze(repo, text)) == []
    text = template.replace('"DEEP"', "[" * depth + "]" * depth)
    assert errors(write_and_analyze(repo, text)) == [
        ("missing_expected_outcome", "/cases/0/expected_outcome", 0)
    ]


def test_huge_numbers(repo: Path) -> None:
    text = json.dumps(with_case({"id": "PLACEHOLDER"})).replace('"PLACEHOLDER"', "1" + "0" * 400)
    analysis = write_and_analyze(repo, text)
    assert errors(analysis) == []
    assert analysis.workflow.cases[0].id == "case-1"
    text = json.dumps(base(skill="PLACEHOLDER")).replace('"PLACEHOLDER"', "1e400")
    analysis = write_and_analyze(repo, text)
    assert [f.message for f in analysis.findings if f.code == "missing_skill"] == [
        "case skill must be a non-empty string"
    ]
    assert analysis.workflow.cases[0].key == "Infinity:plan-request"


def test_unreadable_file(repo: Path) -> None:
    path = repo / FIXTURE
    analysis = analyze("", path=path, repo_root=repo, file_text=FileText("", error="Permission denied"))
    assert [(f.code, f.severity, f.pointer, f.start, f.case) for f in analysis.findings] == [
        ("fixture_unreadable", Severity.ERROR, "", 0, None)
    ]


def test_too_large_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = repo / FIXTURE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(base(source_refs=["/abs"])), encoding="utf-8")
    monkeypatch.setattr(textio, "MAX_FILE_BYTES", 10)
    file_text = read_file(path)
    analysis = analyze(file_text.text, path=path, repo_root=repo, file_text=file_text)
    assert [(f.code, f.severity) for f in analysis.findings] == [("file_too_large", Severity.WARNING)]


FAILING = [
    (
        "scalar tag makes a trigger case",
        with_case({"coverage_tags": "trigger", "expected_outcome": DELETE}),
        [("missing_expected_outcome", "/cases/0", 0)],
    ),
    (
        "numeric refs count as none",
        with_case({"source_refs": 5}, source_refs=None),
        [("missing_source_refs", "/cases/0/source_refs", 0)],
    ),
    (
        "skill problem on every case",
        {**base(skill=42), "cases": [{**base()["cases"][0], "id": f"c{i}"} for i in range(3)]},
        [("missing_skill", "/skill", i) for i in range(3)],
    ),
    (
        "Trigger is not a trigger case",
        with_case({"coverage_tags": ["Trigger", "failure"], "expected_outcome": DELETE}),
        [("invalid_coverage_tag", "/cases/0/coverage_tags/0", 0)],
    ),
    (
        "mixed-case http is a path",
        base(source_refs=["Http://x"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    (
        "file scheme is a path",
        base(source_refs=["file:///etc/passwd"]),
        [("source_ref_missing", "/source_refs/0", 0)],
    ),
    ("tilde is not expanded", base(source_refs=["~/x.md"]), [("source_ref_missing", "/source_refs/0", 0)]),
]


@pytest.mark.parametrize(("label", "payload", "expected"), FAILING, ids=[row[0] for row in FAILING])
def test_more_coercions(repo: Path, label: str, payload: object, expected: list) -> None:
    assert sorted(errors(write_and_analyze(repo, payload))) == sorted(expected), label


@pytest.mark.parametrize("top", [3, -0.5, True, "cases", [{"cases": [None]}]])
def test_odd_top_level_values_have_zero_cases(repo: Path, top: object) -> None:
    analysis = write_and_analyze(repo, json.dumps(top))
    assert analysis.findings == []
    assert analysis.workflow.cases == []
