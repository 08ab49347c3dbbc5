"""Hover: schema docs on keys and enum values, workflow cases after inheritance, referenced files,
regular expressions (``|`` is the cursor)."""

from __future__ import annotations

import json
from pathlib import Path

from cursor_marker import document, split_cursor
from fixture_paths import make_walking

from evalfix_ls.contracts.detection import WORKFLOW
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.services.document_info import document_info
from evalfix_ls.services.hover import PREVIEW_LINES, hover
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.workspace.view import FileSystemView

FIXTURE = "skills/demo/evals/trigger.json"


def at(marked: str, kind: str = "evals", root: Path | None = None, rel: str | None = None):
    text, offset = split_cursor(marked)
    facts = WorkspaceFacts(root, FileSystemView(), WorkflowIndex(root, FileSystemView())) if root else None
    found = hover(document(text, kind, root=root, rel_path=rel), offset, facts)
    return text, found


def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    make_walking(tmp_path)
    (tmp_path / "skills/demo/evals").mkdir(parents=True)
    lines = "".join(f"line {i} 日本\n" for i in range(40))
    (tmp_path / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n" + lines, encoding="utf-8")
    return tmp_path


def test_a_key_shows_its_documentation_over_the_key() -> None:
    text, found = at('{"evals": [{"prompt": "日本 😀", "setup": {"ki|nd": "empty"}}]}')
    assert text[found.start : found.end] == '"kind"'
    assert "How the case workspace is prepared" in found.markdown


def test_an_enum_value_says_what_it_means() -> None:
    text, found = at('{"evals": [{"setup": {"kind": "seeded", "mountMode": "fla|tten"}}]}')
    assert text[found.start : found.end] == '"flatten"'
    assert found.markdown.startswith('`"flatten"`: ') and "rejects" in found.markdown


def test_a_regex_says_whether_javascript_accepts_it() -> None:
    _, bad = at('{"evals": [{"assertions": [{"type": "regex-match", "pattern": "(un|closed"}]}]}')
    assert "JavaScript rejects it" in bad.markdown
    _, good = at('{"evals": [{"assertions": [{"type": "regex-match", "pattern": "a+", "flags": "i|s"}]}]}')
    assert "JavaScript accepts" in good.markdown
    assert "`ignoreCase`" in good.markdown and "`dotAll`" in good.markdown


def test_a_workflow_case_after_inheritance(tmp_path: Path) -> None:
    root = repo(tmp_path)
    payload = {
        "coverage_tags": ["routing"],
        "source_refs": ["skills/demo/SKILL.md"],
        "cases": [{"id": "c1", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "ok"}],
    }
    marked = json.dumps(payload).replace('"id": "c1"', '"id": "c|1"')
    text, found = at(marked, WORKFLOW, root, FIXTURE)
    assert text[found.start : found.end] == '"c1"'
    assert "`routing` (inherited), `trigger`" in found.markdown
    assert "`skills/demo/SKILL.md` (inherited) — exists" in found.markdown
    assert "counts for `trigger`" in found.markdown


def test_a_case_that_counts_for_no_bucket_says_why(tmp_path: Path) -> None:
    root = repo(tmp_path)
    payload = {
        "cases": [{"id": "c1", "input": "x", "coverage_tags": ["trigger"], "source_refs": ["nope.md"]}]
    }
    marked = json.dumps(payload).replace('"id": "c1",', '"id": "c1", |')
    _, found = at(marked, WORKFLOW, root, FIXTURE)
    assert "counts for no bucket" in found.markdown and "`source_ref_missing`" in found.markdown
    assert "`nope.md` — missing" in found.markdown


def test_a_source_ref_shows_the_first_lines_of_its_file(tmp_path: Path) -> None:
    root = repo(tmp_path)
    _, found = at('{"source_refs": ["skills/demo/SKI|LL.md"], "cases": []}', WORKFLOW, root, FIXTURE)
    assert "exists" in found.markdown and "name: demo" in found.markdown
    assert found.markdown.count("line ") == PREVIEW_LINES - 3  # bounded
    _, missing = at('{"source_refs": ["skills/demo/NO|PE.md"], "cases": []}', WORKFLOW, root, FIXTURE)
    assert "does not exist" in missing.markdown


def test_nothing_outside_the_document() -> None:
    assert at('  |  {"evals": []}')[1] is None


def test_the_root_hover_quotes_a_declared_schema_as_code_whatever_it_holds(tmp_path: Path) -> None:
    """The reason names the file's own ``schema_version``: written in backticks, one inside the
    value closed the span and the rest was rendered (an image the editor fetches on hover). Each
    name and value of the reason is a code span that holds all of it; the plain reason of
    ``evalfix/documentInfo`` and ``--format json`` has no Markdown at all."""
    (tmp_path / ".git").mkdir()  # no normalizer: a skill-local shape is not checked
    hostile = "x`![t](https://evil.example/t.png)`\n# heading"
    text = json.dumps({"schema_version": hostile, "cases": []})
    found = hover(document(text, root=tmp_path, rel_path=FIXTURE), 0, None)
    assert found is not None
    assert found.markdown.startswith(
        "**evalfix: not checked** — skill-local shape (`schema_version` "
        "``x`![t](https://evil.example/t.png)` # heading``) under `skills/**/evals/` in a repository"
    ), found.markdown
    info = document_info(document(text, root=tmp_path, rel_path=FIXTURE))
    assert info.reason.startswith(
        f"skill-local shape (schema_version {json.dumps(hostile)}) under skills/**/"
    )
    assert "`" not in info.reason.replace(json.dumps(hostile), "")
