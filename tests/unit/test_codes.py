"""The code registry is complete: every code the analysis emits is registered with its default
severity, and the README documents every registered code."""

from __future__ import annotations

import re

from fixture_paths import ROOT

from evalfix_ls.batch.run import check_paths
from evalfix_ls.contracts.codes import ALL_CODES, EVALS_CODES, WORKFLOW_CODES
from evalfix_ls.contracts.detection import EVALS, WORKFLOW
from evalfix_ls.findings import Severity

# Severities a rule may use instead of its default (documented in the spec tables).
ALTERNATE_SEVERITY = {("files-skill-root-relative", Severity.HINT)}


def test_readme_documents_every_code() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(
        re.findall(r"^\| `([a-z0-9_-]+)` \| (?:error|warning|information|hint) \|", readme, re.M)
    )
    assert documented == set(ALL_CODES)


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
                assert (finding.code, finding.severity) in ALTERNATE_SEVERITY, finding
            seen.add(finding.code)
    assert len(seen) > 40  # the broken examples exercise most families
