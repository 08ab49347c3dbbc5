"""What each finding code means and how to fix it: the rule metadata that SARIF's ``rules``
(``--format sarif``) carries. ``when`` is the README's rules table, word for word (a test keeps
the two equal); ``fix`` says what to change in the fixture. Each contract documents its own codes
(``evals/rule_docs.py``, ``workflow/rule_docs.py``)."""

from __future__ import annotations

from ..findings import RuleDoc
from .evals.rule_docs import EVALS_RULE_DOCS
from .workflow.rule_docs import WORKFLOW_RULE_DOCS

__all__ = ["RULE_DOCS", "RuleDoc"]

RULE_DOCS: dict[str, RuleDoc] = {**EVALS_RULE_DOCS, **WORKFLOW_RULE_DOCS}
