"""The per-case verdict of evals-json.md §14: a case neither the spec nor the loader accepts.

The spec-allowed loader issues (``sources-string-form``, ``mount-mode-flatten``, the typed
``metadata`` keys, ``regex-newer-syntax``) are warnings because the *spec* accepts the case. When the
same case also holds a form the spec rejects and the loader accepts (an object source,
``flatten-contents``, a ``sandbox`` / ``sandboxMocks`` violation, a source path outside ``evals/``),
no tool accepts it: each of those loader issues becomes an error, same code, one finding each (so
the parity count holds), with a message naming the form that makes it one.
"""

from __future__ import annotations

from dataclasses import replace

from ...parser.tree import join_pointer
from .report import ERR, SPEC_ALLOWED_LOADER_ISSUES, Scope

# Each spec-rejected form, and why the spec rejects it, for the message.
_FORMS = {
    "sources-object-form": ("an object source", "its `sources` are strings"),
    "mount-mode-flatten-contents": (
        "`mountMode: 'flatten-contents'`",
        "its modes are 'preserve-path' and 'flatten'",
    ),
    "sandbox-invalid": ("a `sandbox` value", "it allows only 'none' and 'just-bash'"),
    "sandbox-mock-invalid": (
        "a malformed `sandboxMocks` entry",
        "a mock is {command, stdout?, stderr?, exitCode?, files?: {path, content}[]}",
    ),
    "source-outside-evals": ("a source path outside evals/", "its sources are paths inside evals/"),
}


def apply_case_verdict(scope: Scope, first: int) -> None:
    """Raise the spec-allowed loader issues among ``scope.findings[first:]`` (one case's findings) to
    errors when the case also holds a form the spec rejects."""
    if not scope.spec_rejections:
        return
    code, tokens = scope.spec_rejections[0]
    at = join_pointer("", *tokens).lstrip("/") or "the case"
    what, why = _FORMS[code]
    reason = (
        f" This case also has {what} (at {at}), which the spec rejects ({why}): neither the spec nor "
        "arc-skill-eval accepts the case, so this is an error."
    )
    because = scope.pointer(tokens)
    findings = scope.findings
    for position in range(first, len(findings)):
        finding = findings[position]
        if finding.code in SPEC_ALLOWED_LOADER_ISSUES:
            findings[position] = replace(
                finding,
                severity=ERR,
                message=finding.message + reason,
                data={**(finding.data or {}), "neither_accepts": because},
            )
