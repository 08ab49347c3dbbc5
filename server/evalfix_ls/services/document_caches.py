"""Caches keyed by what documents contain (regex patterns, readiness tags, the case ids of suites),
emptied when the last document is closed (``forget_document_caches``).

They make typing fast while a document is open. Once nothing is open they only hold entries of
texts gone: small, but made during the analyses of those documents, in the pymalloc arenas the
analyses filled, so each entry kept a 1 MiB arena after close (an arena is given back only when
all of it is free).
"""

from __future__ import annotations

from ..contracts.workflow.hints import near_bucket
from ..js.regex import forget_verdicts
from .workspace_symbols import forget_suite_ids


def forget_document_caches() -> None:
    forget_verdicts()
    near_bucket.cache_clear()
    forget_suite_ids()
