"""Findings that survive a syntax error (the editor's ``recover``), and ``--check``'s verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import CANONICAL_SCHEMA, EVALS
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.findings import Severity
from evalfix_ls.workspace.view import FileSystemView

SYNTAX = {"json-invalid", "json-syntax", "invalid_json", "json_syntax"}


def suite(*cases: dict) -> str:
    return json.dumps({"skill_name": "demo", "evals": list(cases)}, indent=2, ensure_ascii=False)


CASES = (
    {"id": "Case One", "prompt": "写一个文件 😀", "extra": 1},  # id-style, key-ignored
    {"id": "two", "prompt": "second", "assertions": ["the reply is polite"]},
    {"id": "three", "prompt": "", "files": "x"},  # prompt-required, files-not-array
)


def rows(findings, text: str) -> list[tuple[str, str]]:  # noqa: ANN001
    return [(f.code, text[f.start : f.end]) for f in findings]


def semantic(findings) -> list:  # noqa: ANN001
    return [f for f in findings if f.code not in SYNTAX]


def test_intact_cases_keep_their_findings_at_their_positions() -> None:
    text = suite(*CASES)
    clean = analyze(text, kind=EVALS)
    at = text.index('"the reply is polite"')
    broken = text[:at] + '"unfinished,\n        ' + text[at:]  # an unterminated string in case two
    result = analyze(broken, kind=EVALS, recover=True)
    delta = len(broken) - len(text)
    expected = [
        (f.code, f.start + (delta if f.start > at else 0), f.end + (delta if f.start > at else 0))
        for f in clean.findings
        if not (text.index('"two"') - 20 < f.start < text.index('"three"') - 20)
    ]
    assert [(f.code, f.start, f.end) for f in semantic(result.findings)] == expected
    assert {"id-style", "key-ignored", "prompt-required", "files-not-array"} <= {
        f.code for f in result.findings
    }
    errors = [f for f in result.findings if f.severity == Severity.ERROR and f.code in SYNTAX]
    assert len(errors) == 1 and errors[0].code == "json-invalid"
    assert errors[0].start == broken.index('"unfinished')


def test_check_reports_only_syntax_findings_for_a_file_that_does_not_parse() -> None:
    text = suite(*CASES)
    at = text.index('"the reply is polite"')
    broken = text[:at] + '"unfinished,\n        ' + text[at:]
    result = analyze(broken, kind=EVALS)  # --check: as the references see the file
    assert {f.code for f in result.findings} <= SYNTAX
    assert [f.severity for f in result.findings].count(Severity.ERROR) == 1


def test_nothing_is_reported_about_the_broken_case_or_from_a_guess_about_it() -> None:
    # The broken case carries the same id as case 0 and as case 2; its own text is a guess.
    cases = ({"id": "same", "prompt": "a"}, {"id": "same", "prompt": "b"}, {"id": "same", "prompt": "c"})
    text = suite(*cases)
    at = text.index('"b"') + 1
    broken = text[:at] + "\n" + text[at:]  # a line break inside a string: case 1 is broken
    result = analyze(broken, kind=EVALS, recover=True)
    ids = [i for i in range(len(broken)) if broken.startswith('"same"', i)]
    start, end = ids[1], ids[2]  # case 1, from its id to case 2's id
    inside = [f for f in semantic(result.findings) if start <= f.start < end]
    assert inside == []  # no duplicate-id for the broken case, no placeholder findings
    # case 2 duplicates case 0 (both intact): still reported, related to case 0
    duplicates = [f for f in result.findings if f.code == "duplicate-id"]
    assert len(duplicates) == 1 and duplicates[0].start == end
    assert duplicates[0].related[0].start == broken.index('"same"')


def test_a_new_case_typed_between_cases_leaves_the_next_case_its_findings() -> None:
    text = suite(*CASES)
    clean_codes = sorted(f.code for f in analyze(text, kind=EVALS).findings)
    at = text.index("},", text.index('"Case One"')) + 2  # after case one, as an editor's Enter
    typed = '\n    {"id": "new", "prompt": "x"},'
    for count in range(1, len(typed)):
        broken = text[:at] + typed[:count] + text[at:]
        result = analyze(broken, kind=EVALS, recover=True)
        outside = [f for f in semantic(result.findings) if not at <= f.start < at + count]
        assert sorted(f.code for f in outside) == clean_codes, typed[:count]


def parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def workflow_text(*cases: dict) -> str:
    payload = {
        "schema_version": CANONICAL_SCHEMA,
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md"],
        "source_ref_authority": "source",
        "cases": list(cases),
    }
    return json.dumps(payload, indent=2)


DONE = {"id": "done", "input": "Do it.", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
NO_OUTCOME = {"id": "no-outcome", "input": "Plan it.", "coverage_tags": ["trigger"]}


def workflow_file(root: Path) -> Path:
    (root / "skills/demo/evals").mkdir(parents=True)
    (root / "skills/demo/SKILL.md").write_text("---\nname: demo\n---\n", encoding="utf-8")
    return root / "skills/demo/evals/cases.json"


def test_workflow_sibling_keeps_missing_expected_outcome_while_a_case_is_typed(tmp_path: Path) -> None:
    path = workflow_file(tmp_path)
    text = workflow_text(NO_OUTCOME, DONE)
    at = text.index("},", text.index('"no-outcome"')) + 2  # after the sibling case
    typed = '\n    {"id": "new", "input": "x", '
    for count in range(1, len(typed) + 1):
        broken = text[:at] + typed[:count] + text[at:]
        result = analyze(broken, path=path, repo_root=tmp_path, recover=True)
        missing = [f for f in result.findings if f.code == "missing_expected_outcome"]
        assert [broken[f.start : f.start + 1] for f in missing] == ["{"], typed[:count]
        assert missing[0].start == broken.index("{", broken.index('"cases"'))
        invalid = [f.code for f in result.findings if f.severity == Severity.ERROR].count("invalid_json")
        assert invalid == (0 if parses(broken) else 1)


def test_workflow_index_keeps_the_last_parsed_ids_of_a_broken_buffer(tmp_path: Path) -> None:
    (tmp_path / "skills/demo/evals").mkdir(parents=True)
    rel = "skills/demo/evals/a.json"
    index = WorkflowIndex(tmp_path, FileSystemView())
    case = {"id": "shared", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "y"}
    text = workflow_text(case)
    index.update(rel, text)
    assert index.earlier_site("skills/demo/evals/b.json", "demo:shared") is not None
    index.update(rel, text[:-3])  # the buffer no longer parses: the ids of the last parse stay
    assert index.earlier_site("skills/demo/evals/b.json", "demo:shared") is not None
    index.update(rel, workflow_text())  # it parses again, without the case
    assert index.earlier_site("skills/demo/evals/b.json", "demo:shared") is None


def test_the_placeholder_of_a_broken_workflow_case_is_nobody_s_duplicate(tmp_path: Path) -> None:
    # The broken case stands in as an empty case, whose id the normalizer synthesizes from its
    # position ("case-1"). An intact case with that very id must not become its "duplicate": that
    # would be a finding invented from the placeholder.
    path = tmp_path / "skills/demo/evals/cases.json"
    broken_case = {"id": "typing", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "ok"}
    same_as_synthesized = {
        "id": "case-1",
        "input": "Plan it.",
        "coverage_tags": ["trigger"],
        "expected_outcome": "ok",
    }
    text = workflow_text(broken_case, same_as_synthesized)
    at = text.index('"typing"') + 3
    broken = text[:at] + "\n" + text[at:]  # a line break inside the id string
    result = analyze(broken, path=path, repo_root=tmp_path, recover=True)
    codes = [f.code for f in result.findings]
    assert "invalid_json" in codes and "duplicate_case_id" not in codes
    clean = analyze(text.replace('"typing"', '"case-1"'), path=path, repo_root=tmp_path)
    assert "duplicate_case_id" in [f.code for f in clean.findings]  # the rule does fire on real duplicates


def test_a_quote_typed_before_an_assertion_object_leaves_the_later_cases_intact() -> None:
    # '"' before an assertion object's '{' hides that brace in a string; the object's '}' is then
    # a stray closer, and so (one line further) is the case's. Neither may close the document.
    cases = (
        {"id": "first", "prompt": "a", "assertions": [{"type": "file-exists", "path": "x.md"}]},
        {"id": "three", "prompt": "", "files": "x"},  # prompt-required, files-not-array
    )
    text = suite(*cases)
    at = text.index('{\n          "type"')
    broken = text[:at] + '"' + text[at:]
    result = analyze(broken, kind=EVALS, recover=True)
    assert {"prompt-required", "files-not-array"} <= {f.code for f in result.findings}
    assert [f.severity for f in result.findings if f.code in SYNTAX].count(Severity.ERROR) == 1


def shifted_outside(clean, at: int, typed: int) -> list[tuple[str, int, int]]:  # noqa: ANN001
    """The clean text's findings outside ``at``, where they are after ``typed`` characters there."""
    return [
        (f.code, f.start + (typed if f.start >= at else 0), f.end + (typed if f.start >= at else 0))
        for f in clean.findings
    ]


@pytest.mark.parametrize("before", ["first", "second"])
def test_a_value_left_open_in_a_new_case_does_not_take_the_next_cases(before: str) -> None:
    # After the '[' of '"assertions": [' the next cases are valid items of that array (JSON.parse
    # sees the first error at the end of the text), after '"id":' the next case is its value; the
    # layout says they follow the new case.
    text = suite(*CASES)
    clean = analyze(text, kind=EVALS)
    at = text.index("[", text.index('"evals"')) + 1
    if before == "second":
        at = text.index("},", text.index('"Case One"')) + 2
    typed = (
        '\n    {"id": "new", "prompt": "x", "assertions": ["a", {"type": "file-exists", "path": [\n"x"]}]},'
    )
    open_array_states = 0
    for count in range(1, len(typed)):
        broken = text[:at] + typed[:count] + text[at:]
        result = analyze(broken, kind=EVALS, recover=True)
        outside = [
            (f.code, f.start, f.end) for f in semantic(result.findings) if not at <= f.start < at + count
        ]
        assert outside == shifted_outside(clean, at, count), typed[:count]
        open_array_states += typed[:count].rstrip(" \n").endswith(("[", ","))
    assert open_array_states >= 4  # '[', '["a",', '"path": [' and its line break were typed


def test_an_open_array_in_a_new_workflow_case_keeps_the_sibling_finding(tmp_path: Path) -> None:
    path = workflow_file(tmp_path)
    text = workflow_text(DONE, NO_OUTCOME)  # the sibling comes after the case being typed
    at = text.index("},", text.index('"done"')) + 2
    broken = text[:at] + '\n    {"id": "new", "input": "x", "coverage_tags": [' + text[at:]
    result = analyze(broken, path=path, repo_root=tmp_path, recover=True)
    missing = [f.start for f in result.findings if f.code == "missing_expected_outcome"]
    assert missing == [broken.index("{", broken.index('"no-outcome"') - 30)]


def test_a_hand_formatted_array_inside_a_broken_case_stays_in_it() -> None:
    # The case is left open (its '}' not typed yet) and its assertions are indented flat, but the
    # array closes in line with where it opened: it swallowed nothing, and its strings are not cases.
    text = suite(*CASES)
    at = text.index("},", text.index('"Case One"')) + 2
    flat = '\n    {"id": "new", "prompt": "x", "assertions": [\n    "a",\n    "b"\n    ],'
    broken = text[:at] + flat + text[at:]
    result = analyze(broken, kind=EVALS, recover=True)
    inside = [f.code for f in semantic(result.findings) if at <= f.start < at + len(flat)]
    assert inside == []
    clean_codes = sorted(f.code for f in analyze(text, kind=EVALS).findings)
    assert sorted(f.code for f in semantic(result.findings)) == clean_codes


def defaults_after_cases() -> str:
    payload = {
        "schema_version": CANONICAL_SCHEMA,
        "cases": [DONE, NO_OUTCOME],
        "skill": "demo",
        "source_refs": ["skills/demo/SKILL.md"],
        "source_ref_authority": "source",
    }
    return json.dumps(payload, indent=2)


def test_top_level_members_after_the_cases_stay_top_level_while_a_case_is_open(tmp_path: Path) -> None:
    # "cases" first, then skill, source_refs, source_ref_authority (the common workflow layout):
    # while the new case's '"coverage_tags": [' is open, those members are JSON members of the
    # new case. Left out of the view, the intact cases would lose the defaults they inherit.
    path = workflow_file(tmp_path)
    text = defaults_after_cases()
    clean = analyze(text, path=path, repo_root=tmp_path)
    at = text.index('"cases": [') + len('"cases": [')
    typed = '\n    {"id": "new", "input": "x", "coverage_tags": ['
    broken = text[:at] + typed + text[at:]
    result = analyze(broken, path=path, repo_root=tmp_path, recover=True)
    found = [(f.code, f.start, f.end) for f in result.findings if f.code not in SYNTAX]
    assert found == shifted_outside(clean, at, len(typed)) != []


def test_top_level_members_read_as_items_of_an_open_array_are_read_again(tmp_path: Path) -> None:
    # '"id": [[' at the end of the cases: the cases' ']' closes the inner array, and "skill": …
    # lands in the outer one as items (with errors). Read again on their own, they are members.
    path = workflow_file(tmp_path)
    text = defaults_after_cases()
    clean = analyze(text, path=path, repo_root=tmp_path)
    at = text.index("\n    }", text.index('"no-outcome"')) + 6
    typed = ',\n    {"id": [['
    result = analyze(text[:at] + typed + text[at:], path=path, repo_root=tmp_path, recover=True)
    found = [(f.code, f.start, f.end) for f in result.findings if f.code not in SYNTAX]
    assert found == shifted_outside(clean, at, len(typed)) != []
    # the same members with a syntax error of their own: the defaults cannot be known, and no
    # case is said to lack them
    broken_tail = text[:at] + typed + text[at:].replace('"demo",', '"demo"')
    result = analyze(broken_tail, path=path, repo_root=tmp_path, recover=True)
    assert [f.code for f in result.findings if f.code not in SYNTAX] == []
