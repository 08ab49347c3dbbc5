"""The fix engine: each quick fix applied to a document and the result re-validated (the finding
gone, no new error, every byte outside the fix unchanged), safe/unsafe labels, layout kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fix_support import EVALS_PATH, WORKFLOW_PATH, apply_and_revalidate, finding, make_repo, view

from evalfix_ls.services.fixes import fixes_for


def evals_doc(case: str, top: str = "") -> str:
    """A one-case suite (CJK and emoji before the planted problem), written on one line per case."""
    return '{\n  "skill_name": "demo",' + top + '\n  "evals": [\n    ' + case + "\n  ]\n}\n"


def workflow_doc(case: str, top: str = "") -> str:
    return (
        '{\n  "schema_version": "spec-first.workflow-eval-fixtures.v1",\n  "skill": "demo",\n'
        '  "source_refs": ["skills/demo/SKILL.md"],' + top + '\n  "cases": [\n    ' + case + "\n  ]\n}\n"
    )


P = '"prompt": "整理 CHANGELOG 🧹"'
W = '"id": "w1", "input": "计划导出功能 📦"'

# (code, document, fix title, old text, new text, safe)
EVALS_CASES = [
    (
        "setup-kind-invalid",
        evals_doc('{"id": "a", ' + P + ', "setup": {"kind": "Empty"}}'),
        'Change to "empty"',
        '"Empty"',
        '"empty"',
        True,
    ),
    (
        "setup-kind-invalid",
        evals_doc('{"id": "a", ' + P + ', "setup": {"kind": "emty"}}'),
        'Change to "empty"',
        '"emty"',
        '"empty"',
        False,
    ),
    (
        "setup-mount-mode-invalid",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "setup": {"kind": "seeded", "sources": [{"from": "files/sample-repo"}], '
            + '"mountMode": "Preserve-Path"}}'
        ),
        'Change to "preserve-path"',
        '"Preserve-Path"',
        '"preserve-path"',
        True,
    ),
    (
        "mount-mode-flatten",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "setup": {"kind": "seeded", "sources": [{"from": "files/sample-repo"}], '
            + '"mountMode": "flatten"}}'
        ),
        'Change to "flatten-contents"',
        '"flatten"',
        '"flatten-contents"',
        True,
    ),
    (
        "setup-fixture-kind-invalid",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "setup": {"kind": "fixture", "fixture": {"kind": "Repo", "source": "fixtures/x"}}}'
        ),
        'Change to "repo"',
        '"Repo"',
        '"repo"',
        True,
    ),
    (
        "script-type-invalid",
        evals_doc('{"id": "a", ' + P + ', "assertions": [{"type": "File-Exists", "path": "x.md"}]}'),
        'Change to "file-exists"',
        '"File-Exists"',
        '"file-exists"',
        True,
    ),
    (
        "intent-kind-invalid",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "assertions": [{"id": "j", "kind": "Output", "method": "judge", "prompt": "ok"}]}'
        ),
        'Change to "output"',
        '"Output"',
        '"output"',
        True,
    ),
    (
        "intent-method-invalid",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "assertions": [{"id": "j", "kind": "workspace", "method": "file-exist", "path": "x.md"}]}'
        ),
        'Change to "file-exists"',
        '"file-exist"',
        '"file-exists"',
        False,
    ),
    (
        "sandbox-invalid",
        evals_doc('{"id": "a", ' + P + ', "sandbox": "None"}'),
        'Change to "none"',
        '"None"',
        '"none"',
        True,
    ),
    (
        "sandbox-mocks-unused",
        evals_doc('{"id": "a", ' + P + ', "sandbox": "none", "sandboxMocks": [{"command": "git"}]}'),
        'Set "sandbox": "just-bash"',
        '"none"',
        '"just-bash"',
        False,
    ),
    (
        "sandbox-mocks-unused",
        evals_doc('{"id": "a", ' + P + ', "sandboxMocks": [{"command": "git"}]}'),
        'Set "sandbox": "just-bash"',
        '[{"command": "git"}]}',
        '[{"command": "git"}], "sandbox": "just-bash"}',
        False,
    ),
    (
        "metadata-difficulty-invalid",
        evals_doc('{"id": "a", ' + P + ', "metadata": {"difficulty": "Hard"}}'),
        'Change to "hard"',
        '"Hard"',
        '"hard"',
        True,
    ),
    (
        "sources-string-form",
        evals_doc('{"id": "a", ' + P + ', "setup": {"kind": "seeded", "sources": ["files/sample-repo"]}}'),
        'Change to {"from": "files/sample-repo"}',
        '["files/sample-repo"]',
        '[{"from": "files/sample-repo"}]',
        True,
    ),
    (
        "files-legacy",
        evals_doc('{"id": "a", ' + P + ', "files": ["files/sample-repo"]}'),
        "Replace legacy files with the equivalent setup",
        '"files": ["files/sample-repo"]',
        '"setup": {"kind": "seeded", "sources": [{"from": "files/sample-repo", "to": "files/sample-repo"}]}',
        True,
    ),
    (
        "files-skill-root-relative",
        evals_doc('{"id": "a", ' + P + ', "files": ["evals/files/sample-repo"]}'),
        'Change to "files/sample-repo"',
        '"evals/files/sample-repo"',
        '"files/sample-repo"',
        False,
    ),
    (
        "regex-target-invalid",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "assertions": [{"type": "regex-match", "pattern": "v1", "target": "CHANGELOG.md"}]}'
        ),
        'Change to {"file": "CHANGELOG.md"}',
        '"CHANGELOG.md"',
        '{"file": "CHANGELOG.md"}',
        True,
    ),
    (
        "regex-target-invalid",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "assertions": [{"type": "regex-match", "pattern": "v1", "target": "assistant"}]}'
        ),
        'Change to "assistant-text"',
        '"assistant"',
        '"assistant-text"',
        False,
    ),
    (
        "regex-flags-invalid",
        evals_doc(
            '{"id": "a", ' + P + ', "assertions": [{"type": "regex-match", "pattern": "v1", "flags": "iqi"}]}'
        ),
        'Change to "i"',
        '"iqi"',
        '"i"',
        False,
    ),
    (
        "files-item-type",
        evals_doc('{"id": "a", ' + P + ', "files": [{"path": "files/sample-repo", "purpose": "样例 🧪"}]}'),
        'Change to "files/sample-repo"',
        '{"path": "files/sample-repo", "purpose": "样例 🧪"}',
        '"files/sample-repo"',
        False,
    ),
    (
        "intent-kind-invalid",
        evals_doc('{"id": "a", ' + P + ', "assertions": [{"text": "列出 v1 🧾"}]}'),
        "Write the claim as a plain string assertion",
        '{"text": "列出 v1 🧾"}',
        '"列出 v1 🧾"',
        False,
    ),
    (
        "prompt-required",
        evals_doc('{"id": "a", "description": "整理 🧹"}'),
        'Set "prompt" to a placeholder',
        '"整理 🧹"}',
        '"整理 🧹", "prompt": "TODO: write the prompt"}',
        False,
    ),
    (
        "prompt-blank",
        evals_doc('{"id": "a", "prompt": "  \\t "}'),
        'Set "prompt" to a placeholder',
        '"  \\t "',
        '"TODO: write the prompt"',
        False,
    ),
    ("id-required", evals_doc("{" + P + "}"), 'Set "id" to "case-1"', '🧹"}', '🧹", "id": "case-1"}', False),
    (
        "intent-id-required",
        evals_doc(
            '{"id": "a", ' + P + ', "assertions": [{"kind": "output", "method": "judge", "prompt": "ok"}]}'
        ),
        'Set "id" to "output-1"',
        '"ok"}',
        '"ok", "id": "output-1"}',
        False,
    ),
    (
        "intent-path-required",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "assertions": [{"id": "w", "kind": "workspace", "method": "file-exists"}]}'
        ),
        'Set "path" to a placeholder',
        '"file-exists"}',
        '"file-exists", "path": "TODO: path/to/file"}',
        False,
    ),
    (
        "intent-kind-invalid",
        evals_doc('{"id": "a", ' + P + ', "assertions": [{"id": "j", "method": "judge", "prompt": "ok"}]}'),
        'Add "kind": "output"',
        '"ok"}',
        '"ok", "kind": "output"}',
        False,
    ),
    (
        "duplicate-id",
        evals_doc('{"id": "twice", ' + P + '},\n    {"id": "twice", "prompt": "二度目 🔁"}'),
        'Rename this case to "twice-2"',
        '"twice", "prompt": "二度目',
        '"twice-2", "prompt": "二度目',
        True,
    ),
    (
        "duplicate-id",
        evals_doc(
            '{"id": "twice", ' + P + ', "description": "twice"},\n    {"id": "twice", "prompt": "二度目 🔁"}'
        ),
        'Rename this case to "twice-2"',
        '"twice", "prompt": "二度目',
        '"twice-2", "prompt": "二度目',
        False,
    ),
    (
        "version-type",
        evals_doc('{"id": "a", ' + P + "}", ' "version": 2,'),
        'Change to "2"',
        '"version": 2',
        '"version": "2"',
        True,
    ),
    (
        "metadata-tags-type",
        evals_doc('{"id": "a", ' + P + ', "metadata": {"tags": "release"}}'),
        'Change to ["release"]',
        '"release"',
        '["release"]',
        True,
    ),
    (
        "intent-must-pass-type",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "assertions": [{"id": "j", "kind": "output", "method": "judge", "prompt": "ok", '
            + '"mustPass": "yes"}]}'
        ),
        "Change to true",
        '"yes"',
        "true",
        False,
    ),
    (
        "duplicate-key",
        evals_doc('{"id": "a", "prompt": "一", "prompt": "二 🔁"}'),
        'Remove the discarded "prompt" member',
        '"prompt": "一", ',
        "",
        True,
    ),
    (
        "description-type",
        evals_doc('{"id": "a", ' + P + ', "description": 3.5}'),
        'Change to "3.5"',
        "3.5",
        '"3.5"',
        True,
    ),
    (
        "description-type",
        evals_doc('{"id": "a", ' + P + ', "description": null}'),
        'Remove "description"',
        ', "description": null',
        "",
        False,
    ),
    (
        "setup-source-to-type",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "setup": {"kind": "seeded", "sources": [{"from": "files/sample-repo", "to": 1e21}]}}'
        ),
        'Change to "1e+21"',
        "1e21",
        '"1e+21"',
        True,
    ),
    (
        "intent-expected-required",
        evals_doc('{"id": "a", ' + P + ', "assertions": [{"id": "x", "kind": "output", "method": "exact"}]}'),
        'Set "expected" to a placeholder',
        '"exact"}',
        '"exact", "expected": "TODO: the expected value"}',
        False,
    ),
    (
        "path-not-found",
        evals_doc(
            '{"id": "a", '
            + P
            + ', "setup": {"kind": "seeded", "sources": [{"from": "evals/files/sample-repo"}]}}'
        ),
        'Change to "files/sample-repo"',
        '"evals/files/sample-repo"',
        '"files/sample-repo"',
        False,
    ),
]

WORKFLOW_CASES = [
    (
        "invalid_coverage_tag",
        workflow_doc("{" + W + ', "coverage_tags": ["Trigger"], "expected_outcome": "Plans."}'),
        'Change to "trigger"',
        '"Trigger"',
        '"trigger"',
        True,
    ),
    (
        "coverage_tag_near_miss",
        workflow_doc("{" + W + ', "coverage_tags": ["trigger", "boundry"], "expected_outcome": "Plans."}'),
        'Change to "boundary"',
        '"boundry"',
        '"boundary"',
        False,
    ),
    (
        "invalid_source_ref_authority",
        workflow_doc("{" + W + ', "coverage_tags": ["failure"], "source_ref_authority": "Source"}'),
        'Change to "source"',
        '"Source"',
        '"source"',
        True,
    ),
    (
        "missing_input",
        workflow_doc('{"id": "w1", "coverage_tags": ["failure"]}'),
        'Set "input" to a placeholder',
        '["failure"]}',
        '["failure"], "input": "TODO: the user\'s request"}',
        False,
    ),
    (
        "missing_input",
        workflow_doc('{"id": "w1", "input": "\\u3000", "coverage_tags": ["failure"]}'),
        'Set "input" to a placeholder',
        '"\\u3000"',
        '"TODO: the user\'s request"',
        False,
    ),
    (
        "missing_expected_outcome",
        workflow_doc("{" + W + ', "coverage_tags": ["trigger"]}'),
        'Set "expected_outcome" to a placeholder',
        '["trigger"]}',
        '["trigger"], "expected_outcome": "TODO: the expected outcome"}',
        False,
    ),
    (
        "missing_expected_outcome",
        workflow_doc(
            "{" + W + ', "coverage_tags": ["trigger"], "expected_outcome": null, "expected": "Plans."}'
        ),
        'Remove the empty "expected_outcome" so the next outcome alias counts',
        '"expected_outcome": null, ',
        "",
        False,
    ),
    (
        "missing_boundary_evidence",
        workflow_doc("{" + W + ', "coverage_tags": ["boundary"]}'),
        'Set "boundary_note" to a placeholder',
        '["boundary"]}',
        '["boundary"], "boundary_note": "TODO: why this request is out of scope"}',
        False,
    ),
    (
        "missing_coverage_tags",
        workflow_doc("{" + W + ', "coverage_tags": [3]}'),
        'Tag the case "failure"',
        "[3]",
        '["failure"]',
        False,
    ),
    (
        "source_ref_not_source_authority",
        workflow_doc("{" + W + ', "coverage_tags": ["failure"], "source_refs": ["docs/plans/p.md"]}'),
        'Set the case\'s source_ref_authority to "historical"',
        '["docs/plans/p.md"]}',
        '["docs/plans/p.md"], "source_ref_authority": "historical"}',
        False,
    ),
    (
        "source_ref_not_source_authority",
        workflow_doc("{" + W + ', "coverage_tags": ["failure"], "source_refs": ["docs/plans/p.md"]}'),
        "Remove this source ref",
        '["docs/plans/p.md"]',
        "[]",
        False,
    ),
    (
        "invalid_source_ref",
        workflow_doc(
            "{"
            + W
            + ', "coverage_tags": ["failure"], "source_refs": ["skills/demo/SKILL.md", "https://example.com/x"]}'
        ),
        "Remove this source ref",
        ', "https://example.com/x"',
        "",
        False,
    ),
    (
        "duplicate_case_id",
        workflow_doc(
            "{" + W + ', "coverage_tags": ["failure"]},\n    {' + W + ', "coverage_tags": ["failure"]}'
        ),
        'Rename this case to "w1-2"',
        '"w1", "input": "计划导出功能 📦", "coverage_tags": ["failure"]}\n',
        '"w1-2", "input": "计划导出功能 📦", "coverage_tags": ["failure"]}\n',
        True,
    ),
    (
        "list_item_dropped",
        workflow_doc("{" + W + ', "coverage_tags": ["failure", 5]}'),
        "Remove the ignored element",
        ", 5]",
        "]",
        True,
    ),
    (
        "legacy_alias_in_canonical",
        workflow_doc('{"id": "w1", "user_intent": "计划 📦", "coverage_tags": ["failure"]}'),
        'Rename "user_intent" to "input"',
        '"user_intent"',
        '"input"',
        True,
    ),
    (
        "legacy_alias_in_canonical",
        workflow_doc('{"name": "Plan Export 📦", "input": "计划", "coverage_tags": ["failure"]}'),
        'Add "id": "plan-export" (the slug of name)',
        '["failure"]}',
        '["failure"], "id": "plan-export"}',
        True,
    ),
    (
        "missing_id",
        workflow_doc('{"name": "中文名称", "input": "计划", "coverage_tags": ["failure"]}'),
        'Set "id" to "case-1"',
        '["failure"]}',
        '["failure"], "id": "case-1"}',
        False,
    ),
    (
        "authority_defaulted",
        workflow_doc("{" + W + ', "coverage_tags": ["failure"], "source_ref_authority": ""}'),
        "Remove the empty source_ref_authority",
        ', "source_ref_authority": ""',
        "",
        True,
    ),
    (
        "duplicate_json_key",
        workflow_doc("{" + W + ', "coverage_tags": ["failure"], "coverage_tags": ["failure"]}'),
        'Remove the discarded "coverage_tags" member',
        '"coverage_tags": ["failure"], ',
        "",
        True,
    ),
    (
        "missing_input",
        workflow_doc('{"id": "w1", "input": 42, "coverage_tags": ["failure"]}'),
        'Change to "42"',
        "42",
        '"42"',
        False,
    ),
    (
        "source_ref_not_source_authority",
        workflow_doc(
            "{"
            + W
            + ', "coverage_tags": ["failure"]},\n    '
            + '{"id": "w2", "input": "二", "coverage_tags": ["failure"]}',
        ).replace('["skills/demo/SKILL.md"]', '["skills/demo/SKILL.md", "docs/plans/p.md"]'),
        'Set the case\'s source_ref_authority to "historical"',
        '["failure"]}',
        '["failure"], "source_ref_authority": "historical"}',
        False,
    ),
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.mark.parametrize(
    ("code", "text", "title", "old", "new", "safe"), EVALS_CASES, ids=[c[0] for c in EVALS_CASES]
)
def test_evals_fix_applied_and_revalidated(
    repo: Path, code: str, text: str, title: str, old: str, new: str, safe: bool
) -> None:
    assert text.count(old) >= 1
    fix, fixed = apply_and_revalidate(repo, EVALS_PATH, text, code, title)
    assert fixed == text.replace(old, new, 1)
    assert fix.safe is safe


@pytest.mark.parametrize(
    ("code", "text", "title", "old", "new", "safe"), WORKFLOW_CASES, ids=[c[0] for c in WORKFLOW_CASES]
)
def test_workflow_fix_applied_and_revalidated(
    repo: Path, code: str, text: str, title: str, old: str, new: str, safe: bool
) -> None:
    fix, fixed = apply_and_revalidate(repo, WORKFLOW_PATH, text, code, title)
    expected = (
        text[::-1].replace(old[::-1], new[::-1], 1)[::-1]
        if code == "duplicate_case_id"
        else text.replace(old, new, 1)
    )
    assert fixed == expected
    assert fix.safe is safe


def test_mixed_sources_made_uniform_in_one_fix(repo: Path) -> None:
    text = evals_doc(
        '{"id": "a", '
        + P
        + ', "setup": {"kind": "seeded", "sources": ["files/sample-repo", '
        + '{"from": "files/sample-repo", "to": "b"}, "files/sample-repo/README.md"]}}'
    )
    _, fixed = apply_and_revalidate(
        repo, EVALS_PATH, text, "sources-string-form", 'Write every string source as {"from": …}'
    )
    sources = json.loads(fixed)["evals"][0]["setup"]["sources"]
    assert all(isinstance(source, dict) for source in sources) and len(sources) == 3
    assert "sources-string-form" not in {f.code for f in view(repo, EVALS_PATH, fixed).analysis.findings}


def test_inserted_member_follows_crlf_and_indentation(repo: Path) -> None:
    """A member inserted into a multi-line object: its own line, the siblings' indentation, the
    document's CRLF; escapes and key order elsewhere untouched."""
    text = (
        '{\r\n\t"skill_name": "demo",\r\n\t"evals": [\r\n\t\t{\r\n\t\t\t"id": "caf\\u00e9",\r\n'
        '\t\t\t"description": "整理 🧹"\r\n\t\t}\r\n\t]\r\n}\r\n'
    )
    _, fixed = apply_and_revalidate(
        repo, EVALS_PATH, text, "prompt-required", 'Set "prompt" to a placeholder'
    )
    assert fixed == text.replace(
        '"整理 🧹"\r\n', '"整理 🧹",\r\n\t\t\t"prompt": "TODO: write the prompt"\r\n'
    )
    assert fixed.encode("utf-8").count(b"\r\n") == text.encode("utf-8").count(b"\r\n") + 1
    assert b"\n" not in fixed.encode("utf-8").replace(b"\r\n", b"")


def test_no_fix_on_a_document_that_does_not_parse(repo: Path) -> None:
    text = evals_doc('{"id": "a", ' + P + ', "setup": {"kind": "Empty"}},')
    document = view(repo, EVALS_PATH, text)
    assert not document.parses
    assert all(fixes_for(document, f) == [] for f in document.analysis.findings)


def test_only_one_fix_is_preferred_and_far_values_are_not(repo: Path) -> None:
    text = evals_doc('{"id": "a", ' + P + ', "sandbox": "docker"}')
    document = view(repo, EVALS_PATH, text)
    fixes = fixes_for(document, finding(document, "sandbox-invalid"))
    assert [f.title for f in fixes] == ['Change to "none"', 'Change to "just-bash"']
    assert not any(f.preferred or f.safe for f in fixes)  # nothing is close: the user chooses


def test_edit_set_finds_the_same_conflicts_as_comparing_every_pair() -> None:
    import random

    from evalfix_ls.services.fixes.edits import EditSet, TextEdit, conflicts

    rng = random.Random(9)
    for _ in range(200):
        taken = EditSet()
        kept: list[TextEdit] = []
        for _ in range(30):
            start = rng.randrange(0, 60)
            edit = TextEdit(start, start + rng.choice((0, 0, 1, 3, 8)), "x")
            expected = any(conflicts(edit, other) for other in kept)
            assert taken.conflicts(edit) is expected
            if not expected:
                taken.add(edit)
                kept.append(edit)
