"""Every code has rule documentation (SARIF `rules`), and its `when` is the README's table text."""

from __future__ import annotations

import re
from pathlib import Path

from evalfix_ls.contracts.codes import ALL_CODES, EVALS_CODES, WORKFLOW_CODES
from evalfix_ls.contracts.evals.rule_docs import EVALS_RULE_DOCS
from evalfix_ls.contracts.rule_docs import RULE_DOCS
from evalfix_ls.contracts.workflow.rule_docs import WORKFLOW_RULE_DOCS

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `([a-z_-]+)` \| (error|warning|information|hint) \| (.*) \|$", re.M)


def test_every_code_is_documented_with_a_fix() -> None:
    assert set(RULE_DOCS) == set(ALL_CODES)
    for code, doc in RULE_DOCS.items():
        assert doc.when.strip() and doc.fix.strip(), code
        assert doc.fix.rstrip().endswith("."), code  # a sentence: SARIF help reads as prose


def test_each_contract_documents_its_own_codes() -> None:
    assert set(EVALS_RULE_DOCS) == set(EVALS_CODES)
    assert set(WORKFLOW_RULE_DOCS) == set(WORKFLOW_CODES)


def test_when_is_the_readme_table_text() -> None:
    rows = {
        code: when for code, _severity, when in ROW.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    }
    assert {code: doc.when for code, doc in RULE_DOCS.items()} == rows
