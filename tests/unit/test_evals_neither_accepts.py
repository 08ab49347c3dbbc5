"""evals-json.md §14, "the verdict is per case": the spec-allowed loader issues are warnings only while
the spec accepts the whole case. With a spec-rejected form beside them (an object source,
`flatten-contents`, a `sandbox` / `sandboxMocks` violation, a source path outside evals/), neither tool
accepts the case and each of them is an error with the same code, one finding each. Every combination
has its mirror image: the same loader issue in a case the spec accepts stays a warning."""

from __future__ import annotations

from collections import Counter

import pytest
from evals_support import case, findings_of, suite

from evalfix_ls.contracts.evals.report import SPEC_ALLOWED_LOADER_ISSUES

STRING_SOURCES = '"setup": {"kind": "seeded", "sources": ["files/a"]'
TYPED_METADATA = '"metadata": {"difficulty": "Easy", "tags": "x", "intent": 1, "environment": {}}'
TYPED_METADATA_ISSUES = Counter(
    {
        "metadata-difficulty-invalid": 1,
        "metadata-tags-type": 1,
        "metadata-intent-type": 1,
        "metadata-environment-invalid": 1,
    }
)
NEWER_REGEX = '"assertions": [{"type": "regex-match", "pattern": "(?i:a)"}]'

# name → (case members, spec-allowed loader issues expected, the form named in the message or None
# when the spec accepts the case and they stay warnings)
COMBINATIONS: dict[str, tuple[str, Counter[str], str | None]] = {
    "mixed string and object sources": (
        '"setup": {"kind": "seeded", "sources": ["files/a", {"from": "files/b"}]}',
        Counter({"sources-string-form": 1}),
        "an object source (at setup/sources/1)",
    ),
    "string sources only": (STRING_SOURCES + "}", Counter({"sources-string-form": 1}), None),
    "object sources with flatten": (
        '"setup": {"kind": "seeded", "sources": [{"from": "files/a"}], "mountMode": "flatten"}',
        Counter({"mount-mode-flatten": 1}),
        "an object source (at setup/sources/0)",
    ),
    "string sources with flatten": (
        STRING_SOURCES + ', "mountMode": "flatten"}',
        Counter({"sources-string-form": 1, "mount-mode-flatten": 1}),
        None,
    ),
    "string sources with flatten-contents": (
        '"setup": {"kind": "seeded", "sources": ["files/a", "files/b"], "mountMode": "flatten-contents"}',
        Counter({"sources-string-form": 2}),
        "`mountMode: 'flatten-contents'` (at setup/mountMode)",
    ),
    "string sources with preserve-path": (
        STRING_SOURCES + ', "mountMode": "preserve-path"}',
        Counter({"sources-string-form": 1}),
        None,
    ),
    "string sources with sandbox docker": (
        STRING_SOURCES + '}, "sandbox": "docker"',
        Counter({"sources-string-form": 1}),
        "a `sandbox` value (at sandbox)",
    ),
    "string sources with sandbox just-bash": (
        STRING_SOURCES + '}, "sandbox": "just-bash"',
        Counter({"sources-string-form": 1}),
        None,
    ),
    "string sources with a mock without command": (
        STRING_SOURCES + '}, "sandbox": "just-bash", "sandboxMocks": [{"stdout": "x"}]',
        Counter({"sources-string-form": 1}),
        "a malformed `sandboxMocks` entry (at sandboxMocks/0)",
    ),
    "string sources with a valid mock": (
        STRING_SOURCES + '}, "sandbox": "just-bash", "sandboxMocks": [{"command": "npm"}]',
        Counter({"sources-string-form": 1}),
        None,
    ),
    "string source outside evals/": (
        '"setup": {"kind": "seeded", "sources": ["../shared/a"]}',
        Counter({"sources-string-form": 1}),
        "a source path outside evals/ (at setup/sources/0)",
    ),
    "typed metadata with an object source": (
        '"setup": {"kind": "seeded", "sources": [{"from": "files/a"}]}, ' + TYPED_METADATA,
        TYPED_METADATA_ISSUES,
        "an object source (at setup/sources/0)",
    ),
    "typed metadata with an empty setup": (
        '"setup": {"kind": "empty"}, ' + TYPED_METADATA,
        TYPED_METADATA_ISSUES,
        None,
    ),
    "typed metadata with sandbox null": (
        '"metadata": {"difficulty": "Easy"}, "sandbox": null',
        Counter({"metadata-difficulty-invalid": 1}),
        "a `sandbox` value (at sandbox)",
    ),
    "typed metadata with a legacy files entry outside evals/": (
        '"files": ["../shared/a"], "metadata": {"difficulty": "Easy"}',
        Counter({"metadata-difficulty-invalid": 1}),
        "a source path outside evals/ (at files/0)",
    ),
    "typed metadata with a legacy files entry inside evals/": (
        '"files": ["files/a"], "metadata": {"difficulty": "Easy"}',
        Counter({"metadata-difficulty-invalid": 1}),
        None,
    ),
    "newer regex syntax with flatten-contents": (
        NEWER_REGEX
        + ', "setup": {"kind": "seeded", "sources": [{"from": "a"}], "mountMode": "flatten-contents"}',
        Counter({"regex-newer-syntax": 1}),
        "`mountMode: 'flatten-contents'` (at setup/mountMode)",  # the first form the rules meet
    ),
    "newer regex syntax alone": (NEWER_REGEX, Counter({"regex-newer-syntax": 1}), None),
}


@pytest.mark.parametrize("name", COMBINATIONS)
def test_spec_allowed_loader_issues_follow_the_case_verdict(name: str) -> None:
    members, expected, form = COMBINATIONS[name]
    found = [f for f in findings_of(suite(case(members))) if f.code in SPEC_ALLOWED_LOADER_ISSUES]
    assert Counter(f.code for f in found) == expected  # still one finding per loader issue
    severity = "warning" if form is None else "error"
    assert {f.severity.word for f in found} == {severity}
    for finding in found:
        if form is None:
            assert "neither" not in finding.message
            continue
        assert f"This case also has {form}" in finding.message, finding.message
        assert "neither the spec nor arc-skill-eval accepts the case" in finding.message
        assert finding.data["neither_accepts"].startswith("/evals/0/")


def test_the_verdict_is_per_case() -> None:
    mixed = case('"setup": {"kind": "seeded", "sources": ["files/a", {"from": "files/b"}]}', id_='"m"')
    strings_only = case('"setup": {"kind": "seeded", "sources": ["files/a"]}', id_='"s"')
    found = [f for f in findings_of(suite(mixed, strings_only)) if f.code == "sources-string-form"]
    assert [(f.case, f.severity.word) for f in found] == [(0, "error"), (1, "warning")]


def test_the_loader_errors_and_spec_rejections_themselves_keep_their_severity() -> None:
    text = suite(
        case('"setup": {"kind": "seeded", "sources": [1, "files/a", {"from": "b"}]}, "sandbox": "x"')
    )
    severities = {f.code: f.severity.word for f in findings_of(text)}
    assert severities["setup-source-not-object"] == "error"
    assert severities["sources-string-form"] == "error"
    assert severities["sources-object-form"] == "hint"
    assert severities["sandbox-invalid"] == "warning"
