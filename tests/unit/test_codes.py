"""The code registry is complete: every code the analysis emits is registered with its default
severity, and the README documents every registered code."""

from __future__ import annotations

import re

from fixture_paths import ROOT

from evalfix_ls.batch.run import check_paths
from evalfix_ls.contracts.codes import ALL_CODES, EVALS_CODES, WORKFLOW_CODES
from evalfix_ls.contracts.detection import EVALS, WORKFLOW
from evalfix_ls.contracts.evals.report import SPEC_ALLOWED_LOADER_ISSUES
from evalfix_ls.findings import Severity

# Severities a rule may use instead of its default (documented in the spec tables).
ALTERNATE_SEVERITY = {("files-skill-root-relative", Severity.HINT)}


def readme_rule_table() -> dict[str, str]:
    """code → severity word, from every rule table of the README."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z0-9_-]+)` \| (error|warning|information|hint) \|", readme, re.M)
    table: dict[str, str] = {}
    for code, word in rows:
        assert code not in table, f"{code} documented twice"
        table[code] = word
    return table


def test_readme_documents_every_code_with_its_severity() -> None:
    assert readme_rule_table() == {code: severity.word for code, severity in ALL_CODES.items()}


def test_code_rows_use_the_registry_severity() -> None:
    """Each code's row in test_evals_codes (which checks what the rules emit) states the
    registry's severity, so emitted severity == registry for every code it covers."""
    from test_evals_codes import ROWS

    alternates = {(code, severity.word) for code, severity in ALTERNATE_SEVERITY}
    mismatched = [
        (r.code, r.severity)
        for r in ROWS
        if EVALS_CODES[r.code].word != r.severity and (r.code, r.severity) not in alternates
    ]
    assert mismatched == []


def test_contracts_use_their_own_code_style() -> None:
    assert all("_" not in code for code in EVALS_CODES)
    assert all("-" not in code for code in WORKFLOW_CODES)


def test_examples_emit_only_registered_codes_with_their_severity() -> None:
    report = check_paths([ROOT / "examples"], cwd=ROOT)
    seen = set()
    for file in report.files:
        registry = {EVALS: EVALS_CODES, WORKFLOW: WORKFLOW_CODES}[file.analysis.kind]
        for finding in file.analysis.findings:
            assert finding.code in registry, finding.code
            if finding.severity != registry[finding.code]:
                neither_accepts = finding.code in SPEC_ALLOWED_LOADER_ISSUES and "neither_accepts" in (
                    finding.data or {}
                )
                assert neither_accepts or (finding.code, finding.severity) in ALTERNATE_SEVERITY, finding
            seen.add(finding.code)
    assert len(seen) > 40  # the broken examples exercise most families
