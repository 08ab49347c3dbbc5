"""The fix engine: from a finding's data and the document's tree, the text edits that fix it.

Both front ends call it — the language server's code actions (``lsp/features/code_actions.py``)
and ``evalfix-ls --check --fix`` (``batch/fix.py``) — so they always agree. No LSP types here:
edits are code-point offsets into the document text.

* ``fixes_for(document, finding)`` — every fix of one finding (``Fix``: title, edits, safe,
  preferred);
* ``fix_all(document, reanalyze)`` — the preferred fix of every finding, without conflicting
  edits, applied and re-analysed until nothing is left to fix (or ``MAX_ROUNDS``);
* ``edits`` — the text-edit primitives (minimal, layout-keeping);
* the fixers themselves: ``evals_fixers`` and ``workflow_fixers``, registered by finding code.
"""

from __future__ import annotations

from .engine import MAX_ROUNDS, FixAllResult, chosen_fix, fix_all, fixable_codes, fixes_for, reanalyzer
from .model import Fix

__all__ = [
    "MAX_ROUNDS",
    "Fix",
    "FixAllResult",
    "chosen_fix",
    "fix_all",
    "fixable_codes",
    "fixes_for",
    "reanalyzer",
]
