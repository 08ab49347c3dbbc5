"""Related locations (a duplicate id's first occurrence in another file) carry positions computed
from that file's text. Both front ends read it only when it resolves inside the repository
(workspace/confine.py): the positions of a file outside it would describe the runner's files in
published output. The file is replaced by a link leading outside after the analysis named it, so
the index (which never reads through such a link) still names it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from workflow_support import base, make_repo

from evalfix_ls.batch.format_sarif import to_sarif
from evalfix_ls.batch.run import check_paths
from evalfix_ls.findings import Related
from evalfix_ls.lsp.diagnostics.worker import related_resolver
from evalfix_ls.text.line_index import Encoding

FIRST = "skills/demo/evals/a.json"  # sorts first: the first occurrence of the duplicated id
OUTSIDE_LINES = 500  # the outside file: many short lines, so any offset in it maps to a later line


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    # a.json holds the id on line 10; b.json, on one line, the same id: a duplicate.
    root = make_repo(
        tmp_path / "repo", {FIRST: json.dumps(base(), indent=2), "skills/demo/evals/b.json": base()}
    )
    (tmp_path / "outside.txt").write_text("x\n" * OUTSIDE_LINES)
    return root


def link_first_outside(repo: Path) -> None:
    (repo / FIRST).unlink()
    (repo / FIRST).symlink_to(repo.parent / "outside.txt")


def duplicate_result(sarif: dict) -> dict:
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "duplicate_case_id"]
    return result


def test_sarif_reads_a_related_file_only_inside_the_repository(repo: Path) -> None:
    report = check_paths([repo / "skills/demo/evals/b.json"], root=repo, cwd=repo)
    [related] = duplicate_result(to_sarif(report, "0"))["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == FIRST
    assert related["physicalLocation"]["region"]["startLine"] == 10  # read from the repository's file

    link_first_outside(repo)
    result = duplicate_result(to_sarif(report, "0"))
    assert "relatedLocations" not in result  # nothing computed from the outside file's lines
    assert FIRST in result["message"]["text"]  # the message still names the first occurrence


def test_the_server_resolves_a_related_file_only_inside_the_repository(repo: Path) -> None:
    related = Related("first occurrence", 199, 213, FIRST)
    (repo / "skills/demo/evals/inside.json").symlink_to("a.json")  # a link inside: followed
    resolve = related_resolver(lambda _path: None, repo)
    found = resolve(repo / "skills/demo/evals/inside.json")
    assert found is not None
    uri, index = found
    assert uri == (repo / "skills/demo/evals/inside.json").as_uri()
    assert index.position(related.start, Encoding.UTF16)[0] == 9  # line 10 of a.json

    link_first_outside(repo)
    assert related_resolver(lambda _path: None, repo)(repo / FIRST) is None
    assert related_resolver(lambda _path: None, None)(repo / FIRST) is None  # no repository: no reading


def test_the_server_reads_line_indexes_for_locations_only_inside_the_repository(repo: Path) -> None:
    # Workspace symbols and case-id locations take their positions from this line index.
    from evalfix_ls.lsp.server import EvalfixServer

    server = EvalfixServer()
    try:
        server.workspace_index.set_folders([repo])
        index = server._line_index_of(repo / FIRST)
        assert index is not None and index.line_count > 10
        link_first_outside(repo)
        assert server._line_index_of(repo / FIRST) is None  # the outside file is not read
    finally:
        server.executor.shutdown(wait=False)


def test_one_context_reads_a_closed_file_once_for_all_its_locations(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace-symbol or references answer with many places in one closed file reads and
    indexes that file once (each place asked for its line index again)."""
    from evalfix_ls.lsp import server as server_module

    reads: list[Path] = []
    real = server_module.uri_and_lines
    counted = lambda path, *rest: reads.append(path) or real(path, *rest)  # noqa: E731
    monkeypatch.setattr(server_module, "uri_and_lines", counted)
    server = server_module.EvalfixServer()
    try:
        server.workspace_index.set_folders([repo])
        line_index_of = server._line_indexes()
        indexes = [line_index_of(repo / FIRST) for _ in range(3)]
        assert indexes[0] is not None and all(index is indexes[0] for index in indexes)
        assert reads == [repo / FIRST]
    finally:
        server.executor.shutdown(wait=False)
