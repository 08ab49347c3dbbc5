"""Navigation services in-process: outline caps, heading anchors, seeded sources, rename refusals,
inlay-hint ranges, fuzzy matching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cursor_marker import document, split_cursor
from fixture_paths import make_walking

from evalfix_ls.contracts.detection import WORKFLOW
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.services.case_ids import RenameRefused, prepare_rename, rename
from evalfix_ls.services.completion import complete
from evalfix_ls.services.inline_facts import inlay_hints
from evalfix_ls.services.links import definition, heading_line
from evalfix_ls.services.markdown_anchors import github_slug
from evalfix_ls.services.outline import document_symbols, selection_ranges
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.services.workspace_symbols import fuzzy_match
from evalfix_ls.workspace.view import FileSystemView


def suite(cases: list[dict]) -> str:
    return json.dumps({"skill_name": "demo", "evals": cases}, ensure_ascii=False, indent=1)


def test_outline_is_capped_and_says_so() -> None:
    cases = [{"id": f"c{i}", "prompt": "p", "assertions": ["a", "b"]} for i in range(2500)]
    outline = document_symbols(document(suite(cases)), limit=5000)
    count = sum(1 + len(case.children) for case in outline.symbols[0].children) + 1
    assert outline.truncated and count <= 5000
    small = document_symbols(document(suite(cases[:10])))
    assert not small.truncated and len(small.symbols[0].children) == 10


def test_case_without_id_is_named_by_index() -> None:
    outline = document_symbols(document(suite([{"prompt": "no id"}, {"id": "", "prompt": "empty"}])))
    assert [c.name for c in outline.symbols[0].children] == ["#0", "#1"]


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Usage", "usage"),
        ("Source refs & authority!", "source-refs--authority"),
        ("日本語 見出し", "日本語-見出し"),
    ],
)
def test_github_slug(heading: str, slug: str) -> None:
    assert github_slug(heading) == slug


def test_heading_line_counts_repeated_headings(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    guide = tmp_path / "guide.md"
    guide.write_text("# Guide\n## Usage\ntext\n## Usage\n")
    facts = WorkspaceFacts(tmp_path)
    assert heading_line(facts, guide, "usage") == 1
    assert heading_line(facts, guide, "usage-1") == 3
    assert heading_line(facts, guide, "nope") is None


CANONICAL = "spec-first.workflow-eval-fixtures.v1"  # a workflow fixture in any repository
GUIDE = "# Guide 指南\n\n## Install 安装\ntext\x0cmore\u2028text\n## Install 安装\n### Use `x` — now!\n"


def test_completion_inserts_the_anchor_that_definition_resolves(tmp_path: Path) -> None:
    """Every heading completion offers after ``#``, once inserted, is where go-to-definition goes
    (the repeated CJK heading included); lines counted as the client counts them (a form feed and
    U+2028 in a line do not start new ones)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")
    facts = WorkspaceFacts(tmp_path, FileSystemView(), WorkflowIndex(tmp_path, FileSystemView()))
    marked = '{"schema_version": "' + CANONICAL + '", "source_refs": ["docs/guide.md#|"], "cases": []}'
    text, offset = split_cursor(marked)
    offered = complete(document(text, root=tmp_path, rel_path="skills/demo/evals/a.json"), offset, facts)
    assert [item.label for item in offered] == [
        "Guide 指南",
        "Install 安装",
        "Install 安装",
        "Use `x` — now!",
    ]
    lines = []
    for item in offered:
        inserted = text[: item.start] + item.insert + text[item.end :]
        view = document(inserted, root=tmp_path, rel_path="skills/demo/evals/a.json")
        found = definition(view, facts, inserted.index("guide.md"))
        assert found is not None and found.target == tmp_path / "docs" / "guide.md"
        lines.append(found.line)
    assert lines == [0, 2, 4, 5]


@pytest.mark.parametrize(
    ("anchor", "line"),
    [("Install 安装", 2), ("install-安装", 2), ("INSTALL-安装-1", 4), ("use-x--now", 5), ("Guide-指南", 0)],
)
def test_an_anchor_resolves_written_as_the_heading_or_as_githubs(
    tmp_path: Path, anchor: str, line: int
) -> None:
    (tmp_path / ".git").mkdir()
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE, encoding="utf-8")
    assert heading_line(WorkspaceFacts(tmp_path), guide, anchor) == line


SEEDED_CASE = {
    "id": "a",
    "prompt": "p",
    "setup": {"kind": "seeded", "sources": [{"from": "files/repo"}], "mountMode": "flatten-contents"},
    "assertions": [{"type": "file-exists", "path": "src/ma|in.py"}],
}


def write_seeded(tmp_path: Path) -> Path:
    """The file SEEDED_CASE's setup copies to ``src/main.py``."""
    repo = tmp_path / "skills" / "demo" / "evals" / "files" / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "main.py").write_text("")
    return repo / "src" / "main.py"


def seeded_definition(tmp_path: Path, evals_value: object) -> tuple[Path, Path | None]:
    """(the seeded file, where go-to-definition on the marked path leads) with ``evals`` as given."""
    seeded = write_seeded(tmp_path)
    marked = json.dumps({"skill_name": "demo", "evals": evals_value}, indent=1)
    text, offset = split_cursor(marked)
    doc = document(text, root=tmp_path, rel_path="skills/demo/evals/evals.json")
    link = definition(doc, WorkspaceFacts(tmp_path), offset)
    return seeded, None if link is None else link.target


def test_definition_of_a_flattened_seeded_path(tmp_path: Path) -> None:
    seeded, target = seeded_definition(tmp_path, [SEEDED_CASE])
    assert target == seeded


def test_no_seeded_definition_outside_the_case_array(tmp_path: Path) -> None:
    # `evals` an object: its members are no cases, so their setups seed nothing.
    _seeded, target = seeded_definition(tmp_path, {"x": SEEDED_CASE})
    assert target is None


@pytest.mark.parametrize(("evals_value", "offered"), [([SEEDED_CASE], True), ({"x": SEEDED_CASE}, False)])
def test_seeded_files_completed_in_an_assertion_path_of_the_case_array_only(
    tmp_path: Path, evals_value: object, offered: bool
) -> None:
    # completion and go-to-definition agree on what an assertion path is (services/cases.py)
    write_seeded(tmp_path)
    marked = json.dumps({"skill_name": "demo", "evals": evals_value}).replace("src/ma|in.py", "src/|")
    text, offset = split_cursor(marked)
    doc = document(text, root=tmp_path, rel_path="skills/demo/evals/evals.json")
    labels = {item.label for item in complete(doc, offset, WorkspaceFacts(tmp_path))}
    assert ("src/main.py" in labels) is offered


@pytest.mark.parametrize("mode", ["flatten-contents", "flatten"])
def test_a_flattened_seeded_file_is_completed_where_it_lands(tmp_path: Path, mode: str) -> None:
    # "flatten", the spec's spelling (the loader warns), flattens for completion as for definition
    write_seeded(tmp_path)
    case = {
        **SEEDED_CASE,
        "setup": {"kind": "seeded", "sources": [{"from": "files/repo"}], "mountMode": mode},
    }
    marked = json.dumps({"skill_name": "demo", "evals": [case]}).replace("src/ma|in.py", "src/|")
    text, offset = split_cursor(marked)
    doc = document(text, root=tmp_path, rel_path="skills/demo/evals/evals.json")
    labels = {item.label for item in complete(doc, offset, WorkspaceFacts(tmp_path))}
    assert "src/main.py" in labels


def test_no_seeded_definition_for_a_path_that_is_no_assertions(tmp_path: Path) -> None:
    # A command mock's file is what the mocked command creates, not the copy of a seeded source,
    # though it has a `path` inside the case as an assertion has.
    case = {
        **SEEDED_CASE,
        "assertions": [],
        "sandbox": "just-bash",
        "sandboxMocks": [{"command": "npm", "files": [{"path": "src/ma|in.py", "content": ""}]}],
    }
    _seeded, target = seeded_definition(tmp_path, [case])
    assert target is None


def workflow_doc(tmp_path: Path, ids: list[str], marked_id: str) -> tuple:
    rel = "skills/demo/evals/cases.json"
    cases = [{"id": i, "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "ok"} for i in ids]
    text = json.dumps({"skill": "demo", "source_refs": ["SKILL.md"], "cases": cases})
    at = text.index(f'"{marked_id}"') + 1
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    make_walking(tmp_path)
    fs = FileSystemView()
    facts = WorkspaceFacts(tmp_path, fs, WorkflowIndex(tmp_path, fs))
    return document(text, root=tmp_path, rel_path=rel), facts, at


def test_rename_refusals_and_edit(tmp_path: Path) -> None:
    doc, facts, at = workflow_doc(tmp_path, ["dup", "dup", "solo"], "dup")
    with pytest.raises(RenameRefused, match="more than one case"):
        prepare_rename(doc, facts, at)
    solo = doc.text.index('"solo"') + 1
    with pytest.raises(RenameRefused, match="already used"):
        rename(doc, facts, solo, "dup")
    start, end, replacement = rename(doc, facts, solo, "新しい")
    assert doc.text[start:end] == '"solo"' and replacement == '"新しい"'
    with pytest.raises(RenameRefused, match="only a case id"):
        prepare_rename(doc, facts, doc.text.index('"input"') + 2)


def test_inlay_hints_only_in_the_requested_range() -> None:
    text = json.dumps(
        {
            "skill": "demo",
            "coverage_tags": ["trigger"],
            "source_refs": ["SKILL.md"],
            "cases": [
                {"id": "a", "input": "x", "expected_outcome": "ok"},
                {
                    "id": "b",
                    "input": "y",
                    "expected_outcome": "ok",
                    "coverage_tags": ["boundary"],
                    "boundary_note": "n",
                    "source_ref_authority": "historical",
                },
            ],
        }
    )
    doc = document(text, WORKFLOW)
    hints = inlay_hints(doc, 0, len(text))
    assert len(hints) == 2
    first, second = hints
    assert 'coverage_tags: ["trigger"]' in first.label and "source_refs" in first.label
    assert "coverage_tags" not in second.label and "authority" not in second.label  # b states both
    b_start = text.index('{"id": "b"')
    assert inlay_hints(doc, b_start, len(text)) == [second]


def test_selection_ranges_grow_outwards() -> None:
    text, offset = split_cursor('{"evals": [{"id": "x|y"}]}')
    spans = selection_ranges(document(text), offset)
    assert spans[0] == (text.index('"xy"'), text.index('"xy"') + 4)
    assert all(a[0] >= b[0] and a[1] <= b[1] for a, b in zip(spans, spans[1:], strict=False))
    assert spans[-1] == (0, len(text))


@pytest.mark.parametrize(
    ("query", "name", "hit"),
    [("", "x", True), ("SR", "shared", True), ("as", "shared", False), ("案", "案例-一", True)],
)
def test_fuzzy_match(query: str, name: str, hit: bool) -> None:
    assert fuzzy_match(query, name) is hit
