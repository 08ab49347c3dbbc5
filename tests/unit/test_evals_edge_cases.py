"""evals-json.md §17, item by item: the edge cases a language server must get right."""

from __future__ import annotations

import json

import pytest
from evals_support import assertions, case, codes, errors, findings_of, one, suite, summary

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.contracts.fix_data import Missing, OneOf
from evalfix_ls.workspace.files import decode_bytes


# 1. Missing vs null
@pytest.mark.parametrize(
    ("member", "value", "code", "pointer"),
    [
        ("description", "null", "description-type", "/evals/0/description"),
        ("expected_output", "null", "expected-output-type", "/evals/0/expected_output"),
        ("files", "null", "files-not-array", "/evals/0/files"),
        ("assertions", "null", "assertions-not-array", "/evals/0/assertions"),
        ("metadata", "null", "metadata-not-object", "/evals/0/metadata"),
        ("setup", "null", "setup-not-object", "/evals/0/setup"),
    ],
)
def test_1_null_is_present_missing_is_fine(member: str, value: str, code: str, pointer: str) -> None:
    assert errors(one(f'"{member}": {value}')) == [(code, pointer, 0)]
    assert errors(one()) == []


def test_1_null_in_nested_optional_members() -> None:
    assert errors('{"version": null, "skill_name": "s", "evals": []}') == [("version-type", "/version", None)]
    regex = '{"type": "regex-match", "pattern": "a", "flags": null, "target": null}'
    assert errors(assertions(regex)) == [
        ("regex-flags-type", "/evals/0/assertions/0/flags", 0),
        ("regex-target-invalid", "/evals/0/assertions/0/target", 0),
    ]
    to = '"setup": {"kind": "seeded", "sources": [{"from": "a", "to": null}]}'
    assert errors(one(to)) == [("setup-source-to-type", "/evals/0/setup/sources/0/to", 0)]
    intent = (
        '{"id": "o", "kind": "output", "method": "exact", "expected": "", "mustPass": null, "severity": null}'
    )
    assert errors(assertions(intent)) == [
        ("intent-must-pass-type", "/evals/0/assertions/0/mustPass", 0),
        ("intent-severity-invalid", "/evals/0/assertions/0/severity", 0),
    ]
    meta = [(f.code, f.pointer) for f in findings_of(one('"metadata": {"tags": null, "difficulty": null}'))]
    assert meta == [
        ("metadata-tags-type", "/evals/0/metadata/tags"),
        ("metadata-difficulty-invalid", "/evals/0/metadata/difficulty"),
    ]
    assert ("sandbox-invalid", "/evals/0/sandbox", 0, "warning") in summary(
        findings_of(one('"sandbox": null'))
    )


# 2. Missing required member
def test_2_missing_required_members_anchor_at_the_parent() -> None:
    text = suite('{"id": 1}')
    [finding] = findings_of(text)
    assert (finding.code, finding.pointer, finding.case) == ("prompt-required", "/evals/0", 0)
    assert "`prompt`" in finding.message and Missing.read(finding.data) == Missing("prompt")
    case_start = text.index('{"id": 1}')
    assert (finding.start, finding.end) == (case_start, case_start + 1)

    [top] = [f for f in findings_of('{"evals": []}') if f.code == "skill-name-required"]
    assert (top.pointer, top.start, top.end, top.case) == ("", 0, 1, None)

    fixture = findings_of(one('"setup": {"kind": "fixture"}'))
    assert summary(fixture) == [("setup-fixture-not-object", "/evals/0/setup", 0, "error")]


# 3. The presence of `type` decides the family
def test_3_type_member_decides_the_family() -> None:
    text = assertions('{"type": null, "id": "x", "kind": "output", "method": "judge"}')
    assert errors(text) == [("script-type-invalid", "/evals/0/assertions/0/type", 0)]
    assert codes(assertions('{"type": "file-exists", "path": "a", "kind": "nonsense"}')) == []


# 4. Objects without `type` are intent assertions
@pytest.mark.parametrize(
    ("item", "claim"),
    [
        ('{"text": "The reply greets Ada"}', "The reply greets Ada"),
        ('{"name": "greets", "description": "The reply greets Ada"}', "The reply greets Ada"),
    ],
)
def test_4_skill_creator_objects_are_intent_assertions_without_kind(item: str, claim: str) -> None:
    [finding] = findings_of(assertions(item))
    assert (finding.code, finding.pointer, finding.case) == (
        "intent-kind-invalid",
        "/evals/0/assertions/0",
        0,
    )
    assert finding.data["string_assertion"] == claim
    assert "plain string" in finding.message


# 5. Invalid flags point at `flags`
def test_5_flags_and_pattern_errors() -> None:
    bad_flags = assertions('{"type":"regex-match","pattern":"a","flags":"x"}')
    assert errors(bad_flags) == [("regex-flags-invalid", "/evals/0/assertions/0/flags", 0)]
    only_with_flags = assertions('{"type":"regex-match","pattern":"\\\\-","flags":"u"}')
    assert errors(only_with_flags) == [("regex-invalid", "/evals/0/assertions/0/pattern", 0)]
    non_string_flags = assertions('{"type":"regex-match","pattern":"\\\\-","flags":1}')
    assert errors(non_string_flags) == [("regex-flags-type", "/evals/0/assertions/0/flags", 0)]
    both = assertions('{"type":"regex-match","pattern":"(","flags":1}')
    assert sorted(errors(both)) == [
        ("regex-flags-type", "/evals/0/assertions/0/flags", 0),
        ("regex-invalid", "/evals/0/assertions/0/pattern", 0),
    ]


# 6. Many errors in one case, and such a case is skipped for duplicates
def test_6_case_with_issues_is_not_registered() -> None:
    text = suite('{"id":1,"prompt":""}', '{"id":1,"prompt":"p"}')
    assert errors(text) == [("prompt-required", "/evals/0/prompt", 0)]
    assert ("duplicate-id-latent", "/evals/1/id", 1, "warning") in summary(findings_of(text))


def test_6_one_case_can_carry_many_errors() -> None:
    text = suite(
        '{"id": null, "description": 1, "prompt": "", "expected_output": [], "files": {}, "metadata": 1}'
    )
    assert [code for code, _, _ in errors(text)] == [
        "id-required",
        "description-type",
        "prompt-required",
        "expected-output-type",
        "files-not-array",
        "metadata-not-object",
    ]


# 7. Duplicate ids use JS number printing
@pytest.mark.parametrize(
    ("first", "second"),
    [("0", "-0"), ('"1e-7"', "1e-7"), ("1e400", '"Infinity"'), ("9007199254740993", "9007199254740992")],
)
def test_7_duplicates_by_js_string(first: str, second: str) -> None:
    text = suite(case(id_=first), case(id_=second))
    assert [e for e in errors(text) if e[0] == "duplicate-id"] == [("duplicate-id", "/evals/1/id", 1)]


@pytest.mark.parametrize(("first", "second"), [('"01"', "1"), ('"1.0"', "1")])
def test_7_not_duplicates(first: str, second: str) -> None:
    assert errors(suite(case(id_=first), case(id_=second))) == []


def test_7_related_information_names_the_first_occurrence() -> None:
    text = suite(case(id_='"a"'), case(id_='"a"'), case(id_='"a"'))
    dups = [f for f in findings_of(text) if f.code == "duplicate-id"]
    assert [f.pointer for f in dups] == ["/evals/1/id", "/evals/2/id"]
    first = text.index('"a"')
    assert all((r.start, r.end) == (first, first + 3) for f in dups for r in f.related)


# 8. Short-circuits
def test_8_short_circuits() -> None:
    assert errors(assertions('{"kind":"x"}')) == [("intent-kind-invalid", "/evals/0/assertions/0/kind", 0)]
    assert errors(one('"setup": {"kind":"Empty"}')) == [("setup-kind-invalid", "/evals/0/setup/kind", 0)]
    assert errors('["not", "an", "object"]') == [("root-not-object", "", None)]
    text = '{"version": 2, "skill_name": "", "evals": {"0": {"id": null}}}'
    assert errors(text) == [
        ("version-type", "/version", None),
        ("skill-name-required", "/skill_name", None),
        ("evals-not-array", "/evals", None),
    ]


# 9. Workspace method and path
def test_9_workspace_method_and_path() -> None:
    text = assertions('{"id":"w","kind":"workspace","method":"exists"}')
    assert errors(text) == [
        ("intent-path-required", "/evals/0/assertions/0", 0),
        ("intent-method-invalid", "/evals/0/assertions/0/method", 0),
    ]
    diff = assertions('{"id":"w","kind":"workspace","method":"snapshot-diff"}')
    assert errors(diff) == []
    assert ("assertion-never-passes", "/evals/0/assertions/0/method", 0, "warning") in summary(
        findings_of(diff)
    )


# 10. Spec-only shapes are not errors
@pytest.mark.parametrize(
    ("extra", "code", "pointer"),
    [
        (
            '"setup": {"kind": "seeded", "sources": ["files/a"]}',
            "sources-string-form",
            "/evals/0/setup/sources/0",
        ),
        (
            '"setup": {"kind": "seeded", "sources": [], "mountMode": "flatten"}',
            "mount-mode-flatten",
            "/evals/0/setup/mountMode",
        ),
        ('"sandbox": "docker"', "sandbox-invalid", "/evals/0/sandbox"),
        (
            '"sandbox": "just-bash", "sandboxMocks": [{"stdout": "x"}]',
            "sandbox-mock-invalid",
            "/evals/0/sandboxMocks/0",
        ),
    ],
)
def test_10_spec_only_shapes_are_warnings(extra: str, code: str, pointer: str) -> None:
    text = one(extra)
    assert errors(text) == []
    assert (code, pointer, 0, "warning") in summary(findings_of(text))


# 11. Loader-only shapes are not errors either
def test_11_loader_only_shapes_are_hints_at_most() -> None:
    text = suite(
        case(
            '"setup": {"kind": "seeded", "sources": [{"from": "files/a", "to": "."}], '
            '"mountMode": "flatten-contents"}'
        ),
        case(
            '"assertions": [{"type": "json-valid", "path": "a.json"}, '
            '{"id": "o", "kind": "output", "method": "judge", "prompt": "p"}]',
            id_='"d"',
        ),
    )
    assert {f.severity.word for f in findings_of(text)} <= {"hint"}


# 12. Metadata is open but partly typed
def test_12_metadata() -> None:
    assert summary(findings_of(one('"metadata": {"difficulty": "extreme"}'))) == [
        ("metadata-difficulty-invalid", "/evals/0/metadata/difficulty", 0, "warning")
    ]
    assert errors(one('"metadata": null')) == [("metadata-not-object", "/evals/0/metadata", 0)]
    assert summary(findings_of(one('"metadata": {"environment": {}}'))) == [
        ("metadata-environment-invalid", "/evals/0/metadata/environment", 0, "warning")
    ]


# 13. Empty things that pass
@pytest.mark.parametrize(
    "text",
    [
        '{"skill_name": "s", "evals": []}',
        one('"assertions": []'),
        one('"files": []'),
        one('"setup": {"kind": "seeded", "sources": []}'),
        suite(case(id_='""')),
        one('"expected_output": ""'),
        one('"setup": {"kind": "seeded", "sources": [{"from": "a", "to": ""}]}'),
        assertions('{"type": "regex-match", "pattern": "a", "target": {"file": ""}}'),
        assertions('{"id": "o", "kind": "output", "method": "exact", "expected": ""}'),
        suite(case(prompt='"   "')),
        assertions('"   "'),
    ],
)
def test_13_empty_things_pass(text: str) -> None:
    assert errors(text) == []


# 14. Strings that look right but are not
@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            assertions('{"type": "regex-match", "pattern": "a", "target": "greeting.txt"}'),
            "regex-target-invalid",
        ),
        (
            assertions('{"type": "regex-match", "pattern": "a", "target": "assistant"}'),
            "regex-target-invalid",
        ),
        (
            one('"setup": {"kind": "seeded", "sources": [], "mountMode": "FLATTEN"}'),
            "setup-mount-mode-invalid",
        ),
        (one('"setup": {"kind": "Empty"}'), "setup-kind-invalid"),
        (
            assertions(
                '{"id": "o", "kind": "output", "method": "exact", "expected": "", "severity": "warning"}'
            ),
            "intent-severity-invalid",
        ),
        (assertions('{"type": "File-Exists", "path": "a"}'), "script-type-invalid"),
    ],
)
def test_14_near_miss_strings_are_errors_with_a_suggestion(text: str, code: str) -> None:
    [finding] = [f for f in findings_of(text) if f.severity.word == "error"]
    assert finding.code == code
    assert finding.data and ("replacement" in finding.data or OneOf.read(finding.data) is not None)


def test_14_difficulty_case_slip_is_a_warning() -> None:
    [finding] = findings_of(one('"metadata": {"difficulty": "Easy"}'))
    assert (finding.code, finding.severity.word, finding.data["replacement"]) == (
        "metadata-difficulty-invalid",
        "warning",
        "easy",
    )


# 15. Inert members
def test_15_inert_members() -> None:
    assert summary(findings_of(one('"expectations": ["x"]'))) == [
        ("expectations-not-graded", "/evals/0/expectations", 0, "information")
    ]
    judge = assertions('{"id": "o", "kind": "output", "method": "judge", "claim": "c"}')
    assert {f.code for f in findings_of(judge)} == {"judge-claim-ignored", "judge-prompt-missing"}
    never = assertions('{"id": "b", "kind": "behavior", "method": "command-forbidden"}')
    assert codes(never) == ["assertion-never-passes"]
    flags = assertions('{"type": "regex-match", "pattern": "a", "flags": "gy"}')
    assert codes(flags) == ["regex-flag-g-ignored", "regex-flag-y-anchors"]
    escape = assertions('{"type": "file-exists", "path": "../x"}')
    assert codes(escape) == ["assertion-path-escapes"]
    skill_root = one('"files": ["evals/files/x"]')
    assert "files-skill-root-relative" in codes(skill_root)


# 16. Trigger-eval sets
def test_16_trigger_eval_sets() -> None:
    text = '[{"query": "make a pdf", "should_trigger": true}, {"query": "hi", "should_trigger": false}]'
    assert summary(findings_of(text)) == [
        ("root-not-object", "", None, "error"),
        ("trigger-eval-format", "", None, "information"),
    ]


# 17. Regex engine versions and JSON decoding
def test_17_regex_engine_versions() -> None:
    text = assertions('{"type": "regex-match", "pattern": "(?i:hello)"}')
    assert summary(findings_of(text)) == [
        ("regex-newer-syntax", "/evals/0/assertions/0/pattern", 0, "warning")
    ]


def test_17_json_decoding() -> None:
    assert codes("\ufeff" + one()) == ["json-invalid"]
    assert codes(one('"metadata": {"x": NaN}')) == ["json-invalid"]
    raw = one('"description": "caf\u00e9"').replace("\u00e9", "\x00").encode().replace(b"\x00", b"\xe9")
    file_text = decode_bytes(raw)
    analysis = analyze(file_text.text, kind=EVALS, file_text=file_text)
    assert [f.code for f in analysis.findings] == ["encoding-replaced"]
    deep = one('"metadata": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert codes(deep) == []
    big = suite(case(id_="1" * 5000), case(id_='"Infinity"'))
    assert [e[0] for e in errors(big)] == ["duplicate-id"]


# 18. Duplicate member names
def test_18_duplicate_member_names() -> None:
    text = suite('{"id":1,"prompt":"","prompt":"p"}')
    assert errors(text) == []
    found = summary(findings_of(text))
    assert found == [
        ("duplicate-key", "/evals/0/prompt", None, "warning"),
        ("duplicate-key", "/evals/0/prompt", None, "warning"),
    ]


def test_spec_examples_have_no_error_or_warning() -> None:
    """§1: the given spec's four example cases load cleanly (apart from file-system checks)."""
    spec_suite = {
        "skill_name": "hello-world",
        "evals": [
            {
                "id": "default-world",
                "prompt": "Create a greeting.",
                "assertions": [{"type": "file-exists", "path": "greeting.txt"}],
            },
            {
                "id": 2,
                "prompt": "Clean the repo.",
                "files": ["files/clean-repo"],
                "assertions": [
                    {"type": "regex-match", "pattern": "Hello", "target": {"file": "greeting.txt"}},
                    "The reply names the file",
                ],
            },
            {
                "id": "assistant-names-file",
                "prompt": "Greet Grace.",
                "assertions": [
                    {"type": "regex-match", "pattern": "greeting\\.txt", "target": "assistant-text"},
                    {"type": "regex-match", "pattern": "Hello, Grace", "target": {"file": "greeting.txt"}},
                ],
            },
            {
                "id": "sandboxed",
                "prompt": "Install and build.",
                "sandbox": "just-bash",
                "sandboxMocks": [{"command": "npm", "stdout": "added 1 package", "exitCode": 0}],
            },
        ],
    }
    found = findings_of(json.dumps(spec_suite))
    assert {f.severity.word for f in found} <= {"hint"}
    assert ("files-legacy", "/evals/1/files") in {(f.code, f.pointer) for f in found}
