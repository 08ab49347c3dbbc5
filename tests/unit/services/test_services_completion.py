"""Completion items from the schemas: keys, values, enums, snippets (``|`` is the cursor)."""

from __future__ import annotations

import json
from pathlib import Path

from cursor_marker import document, split_cursor
from fixture_paths import make_walking

from evalfix_ls.contracts.detection import WORKFLOW
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.services.completion import complete
from evalfix_ls.services.suggestion import PROPERTY, SNIPPET
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.workspace.view import FileSystemView


def items(marked: str, kind: str = "evals", *, snippets: bool = True):
    text, offset = split_cursor(marked)
    found = complete(document(text, kind), offset, snippets=snippets)
    return text, {item.label: item for item in found}


def test_setup_kinds_with_their_descriptions() -> None:
    text, found = items('{"evals": [{"setup": {"kind": "em|"}}]}')
    assert list(found)[:3] == ["empty", "seeded", "fixture"]
    empty = found["empty"]
    assert text[empty.start : empty.end] == '"em"' and empty.insert == '"empty"'
    assert "empty temporary workspace" in empty.documentation


def test_keys_valid_at_the_path_and_never_present_ones() -> None:
    _, found = items('{"evals": [{"id": "x", |}]}')
    keys = {label for label, item in found.items() if item.kind == PROPERTY}
    assert "id" not in keys and {"prompt", "setup", "assertions", "sandboxMocks"} <= keys
    assert found["prompt"].sort < found["description"].sort  # required first


def test_key_insertion_carries_a_typed_placeholder() -> None:
    _, found = items('{"evals": [{"id": "x", |}]}')
    assert found["assertions"].insert == '"assertions": [$1]'
    assert found["sandbox"].insert == '"sandbox": "${1|none,just-bash|}"'
    _, plain = items('{"evals": [{"id": "x", |}]}', snippets=False)
    assert plain["assertions"].insert == '"assertions": []' and not plain["assertions"].snippet
    assert plain["sandbox"].insert == '"sandbox": "none"'


def test_only_the_name_when_a_colon_follows() -> None:
    _, found = items('{"evals": [{"id": "x", "pro|": "p"}]}')
    assert found["prompt"].insert == '"prompt"'


def test_a_comma_follows_when_a_member_comes_next() -> None:
    _, found = items('{"evals": [{|\n "id": "x"}]}', snippets=False)
    assert found["prompt"].insert == '"prompt": "",'


def test_methods_of_the_intent_kind_in_the_same_object() -> None:
    _, found = items('{"evals": [{"assertions": [{"kind": "output", "method": "|"}]}]}')
    assert set(found) >= {"judge", "regex", "exact"} and "file-contains" not in found


def test_regex_target_offers_the_literal_and_the_file_form() -> None:
    _, found = items('{"evals": [{"assertions": [{"type": "regex-match", "pattern": "x", "target": |}]}]}')
    assert found["assistant-text"].insert == '"assistant-text"'
    assert found["file"].kind == SNIPPET and '"file": "$1"' in found["file"].insert


def test_assertion_snippets_in_an_empty_array_plain_for_plain_clients() -> None:
    _, found = items('{"evals": [{"assertions": [|]}]}', snippets=False)
    assert "$" not in found["regex-match (file)"].insert
    assert '"flags": "i"' in found["regex-match (file)"].insert
    _, setups = items('{"evals": [{"setup": |}]}', snippets=False)
    assert '"kind": "repo"' in setups["fixture"].insert  # a choice becomes its first value


def test_spec_only_mount_mode_ranked_after_the_loaders_forms() -> None:
    _, found = items('{"evals": [{"setup": {"kind": "seeded", "mountMode": "|"}}]}')
    assert found["flatten-contents"].sort < found["flatten"].sort
    assert "rejects" in found["flatten"].documentation


def test_booleans() -> None:
    _, found = items('{"evals": [{"setup": {"kind": "fixture", "fixture": {"initGit": |}}}]}')
    assert found["true"].insert == "true" and found["false"].insert == "false"


def test_workflow_case_snippets_and_authority() -> None:
    _, found = items('{"cases": [|]}', WORKFLOW)
    assert {"trigger case", "boundary case"} <= set(found)
    assert '"boundary_note"' in found["boundary case"].insert
    _, authority = items('{"cases": [{"source_ref_authority": "|"}]}', WORKFLOW)
    assert list(authority) == ["source", "historical", "advisory"]


def test_schema_version_offers_the_canonical_id() -> None:
    _, found = items('{"schema_version": "|", "cases": []}', WORKFLOW)
    assert list(found) == ["spec-first.workflow-eval-fixtures.v1"]


def test_an_empty_workflow_file_offers_the_skeleton() -> None:
    _, found = items("|", WORKFLOW)
    (skeleton,) = found.values()
    assert '"schema_version": "spec-first.workflow-eval-fixtures.v1"' in skeleton.insert


def test_nothing_for_an_unknown_document() -> None:
    _, found = items('{"a": |}', "unknown")
    assert found == {}


def workspace(tmp_path: Path) -> WorkspaceFacts:
    (tmp_path / ".git").mkdir(parents=True)
    make_walking(tmp_path)
    closed = {
        "cases": [{"id": f"c{i}", "input": "x", "coverage_tags": ["trigger", "team-tag"]} for i in range(3)]
    }
    path = tmp_path / "skills/demo/evals/closed.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(closed), encoding="utf-8")
    (tmp_path / "docs/plans").mkdir(parents=True)
    (tmp_path / "docs/guide.md").write_text("# Guide\n## Install\n", encoding="utf-8")
    fs = FileSystemView()
    return WorkspaceFacts(tmp_path, fs, WorkflowIndex(tmp_path, fs))


def workflow_items(tmp_path: Path, marked: str) -> list:
    facts = workspace(tmp_path)
    text, offset = split_cursor(marked)
    view = document(text, root=tmp_path, rel_path="skills/demo/evals/open.json")
    return text, complete(view, offset, facts)


def test_tags_documented_then_used_never_repeated(tmp_path: Path) -> None:
    _, found = workflow_items(tmp_path, '{"cases": [{"id": "o", "coverage_tags": ["boundary", "|"]}]}')
    labels = [item.label for item in found]
    assert labels[:3] == ["trigger", "failure", "expected"] and "boundary" not in labels
    assert labels.index("team-tag") > labels.index("dispatch-boundary")
    assert len(labels) == len(set(labels))
    team = next(item for item in found if item.label == "team-tag")
    assert team.detail == "used in 3 cases" and "closed.json" in team.documentation
    _, again = workflow_items(tmp_path / "again", '{"cases": [{"coverage_tags": ["team-tag", "|"]}]}')
    assert "team-tag" not in {item.label for item in again}


def test_the_file_a_used_tag_comes_from_is_one_code_span(tmp_path: Path) -> None:
    """A file name with a backtick closed the span early: the rest rendered as Markdown."""
    facts = workspace(tmp_path)
    odd = tmp_path / "skills/demo/evals/odd`[x](https:e.example).json"
    odd.write_text(json.dumps({"cases": [{"id": "d", "coverage_tags": ["odd-tag"]}]}), encoding="utf-8")
    text, offset = split_cursor('{"cases": [{"id": "o", "coverage_tags": ["|"]}]}')
    view = document(text, root=tmp_path, rel_path="skills/demo/evals/open.json")
    (item,) = [item for item in complete(view, offset, facts) if item.label == "odd-tag"]
    assert (
        item.documentation
        == "Used in 1 case of this workspace, e.g. ``skills/demo/evals/odd`[x](https:e.example).json``."
    )


def test_paths_segment_by_segment_without_plan_folders(tmp_path: Path) -> None:
    text, found = workflow_items(tmp_path, '{"source_refs": ["docs/|"], "cases": []}')
    labels = {item.label for item in found}
    assert "guide.md" in labels and "plans/" not in labels
    guide = next(item for item in found if item.label == "guide.md")
    assert guide.start == guide.end == text.index("docs/") + 5  # only the segment, inside the quotes
    _, historical = workflow_items(
        tmp_path / "h", '{"source_ref_authority": "historical", "source_refs": ["docs/|"], "cases": []}'
    )
    assert "plans/" in {item.label for item in historical}
    _, anchors = workflow_items(tmp_path / "a", '{"source_refs": ["docs/guide.md#|"], "cases": []}')
    assert [item.label for item in anchors] == ["Guide", "Install"]
