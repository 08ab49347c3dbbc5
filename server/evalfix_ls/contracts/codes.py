"""Every finding code evalfix-ls can emit, with its default severity: the registry that the
documentation, the configuration (severity overrides) and the tests check against."""

from __future__ import annotations

from ..findings import Severity
from .evals.report import CODES as _EVALS_RULE_CODES
from .workflow.codes import WORKFLOW_CODES

ERR, WARN, INFO, HINT = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

# Problems with the file itself, reported by the pipeline (analysis.py) for each contract.
_EVALS_FILE_CODES = {
    "file-unreadable": ERR,
    "file-outside-repository": ERR,
    "json-invalid": ERR,
    "json-syntax": WARN,
    "duplicate-key": WARN,
    "file-too-large": WARN,
    "encoding-replaced": INFO,
}

EVALS_CODES: dict[str, Severity] = {
    **_EVALS_FILE_CODES,
    **{code: severity for code, (severity, _loader) in _EVALS_RULE_CODES.items()},
}

__all__ = ["ALL_CODES", "EVALS_CODES", "WORKFLOW_CODES"]

ALL_CODES: dict[str, Severity] = {**EVALS_CODES, **WORKFLOW_CODES}
