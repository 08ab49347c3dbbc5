"""Every code has rule documentation (SARIF `rules`), and the README's rule tables are generated
from it."""

from __future__ import annotations

import re
from pathlib import Path

from evalfix_ls.contracts.codes import ALL_CODES, EVALS_CODES, WORKFLOW_CODES
from evalfix_ls.contracts.evals.rule_docs import EVALS_RULE_DOCS
from evalfix_ls.contracts.rule_docs import RULE_DOCS, main, with_rule_tables
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


def test_the_readme_rule_tables_are_the_generated_ones() -> None:
    """The README's tables are ``rule_table``'s output, row for row and in order (regenerate them
    with ``python -m evalfix_ls.contracts.rule_docs README.md``)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_rule_tables(readme) == readme
    rows = {code: (severity, when) for code, severity, when in ROW.findall(readme)}
    assert rows == {code: (ALL_CODES[code].word, doc.when) for code, doc in RULE_DOCS.items()}


def test_the_generator_rewrites_only_the_tables(tmp_path: Path) -> None:
    stale = (ROOT / "README.md").read_text(encoding="utf-8").replace("| `root-not-object` | error |", "| x |")
    path = tmp_path / "README.md"
    path.write_text(stale, encoding="utf-8")
    assert main([str(path)]) == 0
    assert path.read_text(encoding="utf-8") == (ROOT / "README.md").read_text(encoding="utf-8")
