"""Duplicate ids across files (workflow-fixtures.md §7) and the WorkflowIndex API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_paths import make_walking
from workflow_support import base, errors, make_repo, with_case, write

from evalfix_ls.batch.format_json import to_json
from evalfix_ls.batch.run import check_paths
from evalfix_ls.contracts.detection import Walk
from evalfix_ls.contracts.workflow.index import WorkflowIndex, batch_order_key, discover
from evalfix_ls.workspace.view import FileSystemView


def case(case_id: str, **extra: object) -> dict:
    return dict(base()["cases"][0], id=case_id, **extra)


def fixture(*ids: str, **top: object) -> dict:
    return base(**top) | {"cases": [case(i) for i in ids]}


def json_errors(report: dict) -> dict[str, list[tuple[str, str, int | None]]]:
    return {
        f["path"]: [(x["code"], x["pointer"], x["case"]) for x in f["findings"] if x["severity"] == "error"]
        for f in report["files"]
    }


@pytest.mark.parametrize(
    ("new_name", "flagged"),
    [
        ("aa-extra.json", "examples.json"),
        ("zz-extra.json", "zz-extra.json"),
        ("examples-2.json", "examples.json"),
    ],
)
def test_later_file_in_batch_order_gets_the_error(tmp_path: Path, new_name: str, flagged: str) -> None:
    repo = make_repo(tmp_path / "repo", {"skills/demo/evals/examples.json": fixture("a", "b")})
    write(repo, f"skills/demo/evals/{new_name}", fixture("b"))
    report = to_json(check_paths([repo], root=repo), "test")
    found = json_errors(report)
    for path, errs in found.items():
        if path.endswith(flagged):
            expected_case = 1 if flagged == "examples.json" else 0
            assert errs == [("duplicate_case_id", f"/cases/{expected_case}/id", expected_case)]
        else:
            assert errs == []


def test_single_file_check_still_loads_its_siblings(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"skills/demo/evals/a.json": fixture("x"), "skills/demo/evals/b.json": fixture("x")},
    )
    report = check_paths([repo / "skills/demo/evals/b.json"])
    (file,) = report.files
    (dup,) = [f for f in file.analysis.findings if f.code == "duplicate_case_id"]
    assert dup.data["previous_source_file"] == "skills/demo/evals/a.json"
    assert "previous_source_file: skills/demo/evals/a.json" in dup.message
    assert dup.related[0].path == "skills/demo/evals/a.json"
    text = (repo / "skills/demo/evals/a.json").read_text()
    assert text[dup.related[0].start : dup.related[0].end] == '"x"'
    # the earlier file is clean even when checked alone
    assert not [
        f
        for f in check_paths([repo / "skills/demo/evals/a.json"]).files[0].analysis.findings
        if f.code == "duplicate_case_id"
    ]


def test_declared_skill_decides_the_key(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "skills/demo/evals/a.json": fixture("x"),
            # same id, another directory, but declaring skill demo: collides
            "skills/other/evals/b.json": fixture("x", skill="demo"),
            # same id under another declared skill: no collision
            "skills/other/evals/c.json": fixture("x", skill="other"),
        },
    )
    found = json_errors(to_json(check_paths([repo], root=repo), "t"))
    assert found["skills/other/evals/b.json"] == [("duplicate_case_id", "/cases/0/id", 0)]
    assert found["skills/other/evals/c.json"] == []


def test_synthesized_ids_collide_across_files(tmp_path: Path) -> None:
    id_less = base(skill=None) | {"cases": [with_case({"id": None})["cases"][0]]}
    repo = make_repo(
        tmp_path / "repo",
        {"skills/demo/evals/a.json": id_less, "skills/demo/evals/b.json": id_less},
    )
    found = json_errors(to_json(check_paths([repo], root=repo), "t"))
    assert found["skills/demo/evals/b.json"] == [("duplicate_case_id", "/cases/0", 0)]


def test_cases_with_other_errors_take_part(tmp_path: Path) -> None:
    bad = fixture("x", skill="  ")
    repo = make_repo(tmp_path / "repo", {"skills/demo/evals/a.json": bad, "skills/demo/evals/b.json": bad})
    found = json_errors(to_json(check_paths([repo], root=repo), "t"))
    assert found["skills/demo/evals/b.json"] == [
        ("missing_skill", "/skill", 0),
        ("duplicate_case_id", "/cases/0/id", 0),
    ]


def test_unreadable_and_unparsable_files_contribute_no_ids(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "skills/demo/evals/a.json": '{"skill": "demo", "cases": [{"id": "x"},]}',
            "skills/demo/evals/b.json": base() | {"cases": [case("x"), None]},
            "skills/demo/evals/c.json": fixture("x"),
        },
    )
    found = json_errors(to_json(check_paths([repo], root=repo), "t"))
    assert found["skills/demo/evals/c.json"] == []


def test_files_outside_the_walk_do_not_register(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "skills/demo/evals/a.JSON": fixture("x"),
            "skills/demo/evals.json": fixture("x"),
            "fixtures/evals/a.json": fixture("x"),
            "skills/demo/evals/b.json": fixture("x"),
        },
    )
    os.symlink(repo / "skills/demo/evals/b.json", repo / "skills/demo/evals/0-link.json")
    assert discover(repo) == ["skills/demo/evals/b.json"]
    found = json_errors(to_json(check_paths([repo / "skills/demo/evals/b.json"], root=repo), "t"))
    assert found == {"skills/demo/evals/b.json": []}


def test_nested_and_odd_locations_are_discovered(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "skills/demo/evals/sub/deeper/x.json": {},
            "skills/demo/docs/evals/y.json": {},
            "skills/evals/z.json": {},
            "skills/.hidden/evals/h.json": {},
            "skills/demo/evals/trigger-cases.json": {},
        },
    )
    assert discover(repo) == [
        "skills/.hidden/evals/h.json",
        "skills/demo/docs/evals/y.json",
        "skills/demo/evals/sub/deeper/x.json",
        "skills/demo/evals/trigger-cases.json",
        "skills/evals/z.json",
    ]


def test_batch_order_is_utf16() -> None:
    # U+FF5E sorts after U+1F600 in code points, before it in UTF-16 code units (a surrogate pair).
    paths = ["skills/a/evals/\U0001f600.json", "skills/a/evals/\uff5e.json"]
    assert sorted(paths, key=batch_order_key) == [
        "skills/a/evals/\U0001f600.json",
        "skills/a/evals/\uff5e.json",
    ]
    assert sorted(paths) == ["skills/a/evals/\uff5e.json", "skills/a/evals/\U0001f600.json"]
    assert sorted(["skills/x/evals/examples.json", "skills/x/evals/examples-2.json"], key=batch_order_key)[
        0
    ].endswith("examples-2.json")


def test_index_api_with_buffers(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"skills/demo/evals/a.json": fixture("x", "y"), "skills/demo/evals/c.json": fixture("y")},
    )
    index = WorkflowIndex(repo, FileSystemView())
    assert index.files() == ["skills/demo/evals/a.json", "skills/demo/evals/c.json"]
    assert index.earlier_ids("skills/demo/evals/c.json") == {
        "demo:x": ("skills/demo/evals/a.json", 0),
        "demo:y": ("skills/demo/evals/a.json", 1),
    }
    assert index.earlier_ids("skills/demo/evals/a.json") == {}
    assert index.dependents("skills/demo/evals/a.json") == ["skills/demo/evals/c.json"]

    # an unsaved buffer of a new file that sorts first takes over "y"
    index.update("skills/demo/evals/0.json", '{"skill": "demo", "cases": [{"id": "y"}]}')
    assert index.files()[0] == "skills/demo/evals/0.json"
    assert index.earlier_ids("skills/demo/evals/a.json") == {"demo:y": ("skills/demo/evals/0.json", 0)}
    # an edit that removes "y" from a.json: c.json's finding changes, so it depends on a.json
    index.update("skills/demo/evals/a.json", '{"skill": "demo", "cases": [{"id": "x"}]}')
    assert index.dependents("skills/demo/evals/a.json") == ["skills/demo/evals/c.json"]
    # a buffer typed through a syntax error keeps the ids of its last text that parsed (issue 15) …
    index.update("skills/demo/evals/0.json", '{"skill": "demo", "cases": [{"id": "y"}')
    assert index.earlier_ids("skills/demo/evals/c.json") == {
        "demo:x": ("skills/demo/evals/a.json", 0),
        "demo:y": ("skills/demo/evals/0.json", 0),
    }
    # … and a buffer that never parsed contributes nothing
    index.update("skills/demo/evals/00.json", '{"skill": "demo", "cases": [{"id": "z"}')
    assert "demo:z" not in index.earlier_ids("skills/demo/evals/c.json")
    index.remove("skills/demo/evals/00.json")
    index.remove("skills/demo/evals/0.json")
    assert "skills/demo/evals/0.json" not in index.files()
    index.reload("skills/demo/evals/a.json")  # back to the disk text: x and y again
    assert set(index.earlier_ids("skills/demo/evals/c.json")) == {"demo:x", "demo:y"}
    # paths that are not fixtures are ignored
    index.update("docs/x.json", '{"cases": [{"id": "x"}]}')
    assert "docs/x.json" not in index.files()


def test_index_reuses_unchanged_texts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"skills/demo/evals/a.json": fixture("x")})
    index = WorkflowIndex(repo, FileSystemView())
    first = index.normalized("skills/demo/evals/a.json")
    index.load_from_disk()
    assert index.normalized("skills/demo/evals/a.json") is first
    index.update("skills/demo/evals/a.json", (repo / "skills/demo/evals/a.json").read_text())
    assert index.normalized("skills/demo/evals/a.json") is first


def test_buffer_is_used_instead_of_disk(tmp_path: Path) -> None:
    from evalfix_ls.analysis import analyze

    repo = make_repo(
        tmp_path / "repo",
        {"skills/demo/evals/a.json": fixture("x"), "skills/demo/evals/b.json": fixture("z")},
    )
    index = WorkflowIndex(repo, FileSystemView())
    index.update("skills/demo/evals/a.json", '{"skill": "demo", "cases": [{"id": "z"}]}')
    b = repo / "skills/demo/evals/b.json"
    analysis = analyze(b.read_text(), path=b, repo_root=repo, fs=FileSystemView(), workspace=index)
    assert errors(analysis) == [("duplicate_case_id", "/cases/0/id", 0)]
    analysis = analyze(b.read_text(), path=b, repo_root=repo, fs=FileSystemView(), workspace=None)
    assert errors(analysis) == []


def test_a_skills_folder_linked_outside_the_repository_is_not_listed(tmp_path: Path) -> None:
    outside = make_repo(tmp_path / "outside", {"skills/secret/evals/cases.json": fixture("x")})
    repo = make_repo(tmp_path / "repo", {}, existing=(), walking=False)
    (repo / "skills").symlink_to(outside / "skills")
    assert discover(repo) == []
    index = WorkflowIndex(repo, FileSystemView(), Walk(True))
    index.load_from_disk()
    index.reload("skills/secret/evals/cases.json")  # an editor's close or save event for it
    assert index.files() == []
    (repo / "skills").unlink()
    (repo / "skills").symlink_to("packages")  # a link inside the repository is followed
    make_repo(repo, {"packages/demo/evals/cases.json": fixture("x")}, existing=(), walking=False)
    assert discover(repo) == ["skills/demo/evals/cases.json"]


def test_the_index_follows_the_forced_walk(tmp_path: Path) -> None:
    """Without the normalizer only canonical files take part in duplicate ids and readiness; a
    forced walk (the server passes its settings before each analysis) adds the legacy ones."""
    legacy = {key: value for key, value in fixture("same").items() if key != "schema_version"}
    repo = make_repo(
        tmp_path,
        {"skills/demo/evals/a.json": legacy, "skills/demo/evals/b.json": fixture("same")},
        walking=False,
    )
    index = WorkflowIndex(repo, FileSystemView())
    key = next(iter(index.earlier_ids("skills/demo/evals/z.json")))
    assert index.files() == ["skills/demo/evals/b.json"]
    assert index.earlier_site("skills/demo/evals/b.json", key) is None
    index.force_walk(Walk(True, ".evalfix.toml:1"))
    assert index.files() == ["skills/demo/evals/a.json", "skills/demo/evals/b.json"]
    assert index.earlier_site("skills/demo/evals/b.json", key) is not None
    index.force_walk(None)
    assert index.files() == ["skills/demo/evals/b.json"]
    assert index.earlier_site("skills/demo/evals/b.json", key) is None


def test_the_index_follows_the_normalizer_appearing(tmp_path: Path) -> None:
    legacy = {key: value for key, value in fixture("same").items() if key != "schema_version"}
    repo = make_repo(
        tmp_path,
        {"skills/demo/evals/a.json": legacy, "skills/demo/evals/b.json": fixture("same")},
        walking=False,
    )
    fs = FileSystemView()
    index = WorkflowIndex(repo, fs)
    assert index.earlier_ids("skills/demo/evals/b.json") == {}
    make_walking(repo)
    fs.invalidate()  # the server's file events do this
    assert list(index.earlier_ids("skills/demo/evals/b.json").values()) == [("skills/demo/evals/a.json", 0)]


def test_a_file_that_cannot_hold_cases_is_indexed_without_a_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An arc suite (``evals``, no ``cases``) below skills/**/evals/ is not parsed to learn that
    it has no ids (issue 30: most files of a monorepo of skills); a member name spelled with
    escapes still is, and still counts."""
    import evalfix_ls.contracts.workflow.index as index_module

    repo = make_walking(make_repo(tmp_path / "repo"))
    write(repo, "skills/a/evals/evals.json", {"skill_name": "a", "evals": [{"id": "x", "prompt": "p"}]})
    write(repo, "skills/a/evals/one.json", fixture("dup"))
    escaped = '{"skill": "demo", "\\u0063ases": [{"id": "dup", "input": "i"}]}'
    (repo / "skills/a/evals/two.json").write_text(escaped, encoding="utf-8")
    parsed: list[str] = []
    real_parse = index_module.parse
    monkeypatch.setattr(index_module, "parse", lambda text: parsed.append(text[:12]) or real_parse(text))
    index = WorkflowIndex(repo, FileSystemView())
    index.load_from_disk()
    assert len(parsed) == 2  # one.json and the escaped two.json; not evals.json
    assert index.normalized("skills/a/evals/evals.json") is None
    assert index.earlier_site("skills/a/evals/two.json", "demo:dup") is not None


def test_dependents_of_many_files_is_the_union_of_each_ones(tmp_path: Path) -> None:
    """``dependents_of`` (one pass, for a sync's slice of changed files) answers what asking
    ``dependents`` for each changed file answered: the later files sharing an id."""
    files = {f"skills/demo/evals/{name}.json": fixture(*ids) for name, ids in _OVERLAPS.items()}
    repo = make_repo(tmp_path / "repo", files)
    index = WorkflowIndex(repo, FileSystemView())
    assert len(index.files()) == len(files)  # (loaded first: b.json's ids before the edit are known)
    index.update("skills/demo/evals/b.json", '{"skill": "demo", "cases": [{"id": "q"}]}')  # was "p", "x"
    changed = ["skills/demo/evals/b.json", "skills/demo/evals/d.json", "skills/demo/evals/a.json"]
    union = {rel for rel in changed for rel in index.dependents(rel)}
    assert union == {"skills/demo/evals/c.json", "skills/demo/evals/e.json", "skills/demo/evals/f.json"}
    assert index.dependents_of(changed) == union
    assert index.dependents_of(["skills/demo/evals/f.json"]) == set()  # last in batch order


_OVERLAPS = {"a": ("x",), "b": ("p", "x"), "c": ("p",), "d": ("y",), "e": ("y", "x"), "f": ("q",)}
