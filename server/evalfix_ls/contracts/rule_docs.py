"""What each finding code means and how to fix it: the rule metadata that SARIF's ``rules``
(``--format sarif``) carries. ``when`` is also the README's rules tables, which are generated from
here (``rule_table``; ``python -m evalfix_ls.contracts.rule_docs README.md`` rewrites them, and a
test keeps the README equal to the output); ``fix`` says what to change in the fixture. Each
contract documents its own codes (``evals/rule_docs.py``, ``workflow/rule_docs.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..findings import RuleDoc, Severity
from .codes import EVALS_CODES, WORKFLOW_CODES
from .evals.rule_docs import EVALS_RULE_DOCS
from .workflow.rule_docs import WORKFLOW_RULE_DOCS

__all__ = ["RULE_DOCS", "RuleDoc", "rule_table"]

RULE_DOCS: dict[str, RuleDoc] = {**EVALS_RULE_DOCS, **WORKFLOW_RULE_DOCS}

# The README's tables, each between its two marker lines.
TABLES = {
    "evals": (EVALS_RULE_DOCS, EVALS_CODES),
    "workflow": (WORKFLOW_RULE_DOCS, WORKFLOW_CODES),
}


def rule_table(docs: dict[str, RuleDoc], codes: dict[str, Severity]) -> str:
    """The Markdown table of one contract's codes: errors first, then warnings, information and
    hints, each in the order its ``rule_docs`` lists them."""
    rows = ["| code | severity | when |", "|---|---|---|"]
    for code in sorted(docs, key=lambda code: codes[code]):
        rows.append(f"| `{code}` | {codes[code].word} | {docs[code].when} |")
    return "\n".join(rows)


def with_rule_tables(readme: str) -> str:
    """``readme`` with the text between each pair of markers (``<!-- rules:evals:start -->`` …
    ``<!-- rules:evals:end -->``, as the fixable table's) replaced by the generated table."""
    for name, (docs, codes) in TABLES.items():
        opening, closing = f"<!-- rules:{name}:start -->\n", f"\n<!-- rules:{name}:end -->"
        start = readme.index(opening) + len(opening)
        end = readme.index(closing, start)
        readme = readme[:start] + rule_table(docs, codes) + readme[end:]
    return readme


def main(argv: list[str]) -> int:
    """``python -m evalfix_ls.contracts.rule_docs README.md``: rewrite the README's rule tables."""
    if len(argv) != 1:
        print("usage: python -m evalfix_ls.contracts.rule_docs README.md", file=sys.stderr)
        return 2
    path = Path(argv[0])
    text = path.read_text(encoding="utf-8")
    updated = with_rule_tables(text)
    if updated != text:
        path.write_text(updated, encoding="utf-8")
        print(f"{path}: rule tables updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
