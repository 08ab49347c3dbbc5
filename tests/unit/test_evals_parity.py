"""Loader parity (specs/README.md, "Parity promise"): for each file, the multiset of error findings,
compared as (code, case, count), equals the loader's issues minus the ones the spec allows; those
(and only those) appear as loader-issue warnings."""

from __future__ import annotations

from collections import Counter

import evals_oracle as oracle
import pytest
from evals_support import findings_of, suite

from evalfix_ls.contracts.evals.report import CODES

EVERYTHING_WRONG = suite(
    '{"id": [], "prompt": 1, '
    '"setup": {"kind": "seeded", "sources": [1, {"to": 2}, "files/a"], "mountMode": "x"}, '
    '"files": [1, 2, "ok"], '
    '"assertions": ["", 3, {"type": "json-valid"}, {"kind": "workspace"}], "metadata": []}',
    '{"id": "x", "prompt": "p"}',
    '{"id": "x", "prompt": "q"}',
    '{"id": "x", "prompt": "r", "metadata": {"difficulty": "EASY", "environment": {"workspace": {}}}}',
    '{"id": "x", "prompt": "s", "sandbox": "docker", "sandboxMocks": [{}]}',
)
REGEXES = suite(
    '{"id": "r", "prompt": "p", "assertions": ['
    '{"type": "regex-match", "pattern": "(", "flags": 1}, '
    '{"type": "regex-match", "pattern": "a", "flags": "gg", "target": "x"}, '
    '{"type": "regex-match", "pattern": "(?i:a)"}, '
    '{"id": "o", "kind": "output", "method": "regex", "pattern": ""}, '
    '{"id": "w", "kind": "workspace", "method": "file-contains", "path": "a", "pattern": "[", "flags": "u"}]}'
)

CASES = {
    "everything-wrong": (
        EVERYTHING_WRONG,
        {
            ("id-required", 0): 1,
            ("prompt-required", 0): 1,
            ("setup-source-not-object", 0): 1,
            ("setup-source-from-required", 0): 1,
            ("setup-source-to-type", 0): 1,
            ("setup-mount-mode-invalid", 0): 1,
            ("files-item-type", 0): 2,
            ("assertion-empty", 0): 1,
            ("assertion-not-string-or-object", 0): 1,
            ("script-path-required", 0): 1,
            ("intent-id-required", 0): 1,
            ("intent-method-invalid", 0): 1,
            ("intent-path-required", 0): 1,
            ("metadata-not-object", 0): 1,
            # the string source shares case 0 with an object source: neither accepts it (§14)
            ("sources-string-form", 0): 1,
            ("duplicate-id", 2): 1,
            # case 4 repeats the id too; its sandbox warnings are not loader issues
            ("duplicate-id", 4): 1,
        },
        {
            ("metadata-difficulty-invalid", 3): 1,
            ("metadata-environment-invalid", 3): 2,
        },
    ),
    "regexes": (
        REGEXES,
        {
            ("regex-invalid", 0): 2,
            ("regex-flags-type", 0): 1,
            ("regex-flags-invalid", 0): 1,
            ("regex-target-invalid", 0): 1,
            ("regex-pattern-required", 0): 1,
        },
        {("regex-newer-syntax", 0): 1},
    ),
    "trigger-evals": ('[{"query": "q", "should_trigger": true}]', {("root-not-object", None): 1}, {}),
    "top-level": (
        '{"version": 1, "skill_name": null, "evals": "none"}',
        {("version-type", None): 1, ("skill-name-required", None): 1, ("evals-not-array", None): 1},
        {},
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_error_multiset_per_case(name: str) -> None:
    text, expected_errors, expected_warnings = CASES[name]
    found = findings_of(text)
    errors = Counter((f.code, f.case) for f in found if f.severity.word == "error")
    assert errors == Counter(expected_errors)
    loader_warnings = Counter(
        (f.code, f.case) for f in found if f.severity.word == "warning" and CODES[f.code][1]
    )
    assert loader_warnings == Counter(expected_warnings)


@pytest.mark.parametrize("name", CASES)
def test_oracle_agrees_with_the_hand_counts(name: str) -> None:
    text, expected_errors, expected_warnings = CASES[name]
    assert Counter(oracle.loader_issues(text)) == Counter(expected_errors) + Counter(expected_warnings)


def test_latent_duplicate_is_a_warning_not_an_error() -> None:
    found = findings_of(EVERYTHING_WRONG)
    latent = [(f.pointer, f.case, f.data["first"]) for f in found if f.code == "duplicate-id-latent"]
    # case 3 is not clean (metadata warnings are loader issues): its repeat is latent, not reported
    assert latent == [("/evals/3/id", 3, 1)]
    dups = [(f.pointer, f.data["first"]) for f in found if f.code == "duplicate-id"]
    assert dups == [("/evals/2/id", 1), ("/evals/4/id", 1)]
