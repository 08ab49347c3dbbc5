"""The real server with planted failures, to test that a failing handler never kills it:

* ``textDocument/diagnostic`` for a URI containing ``boom`` raises (a request handler fails);
* ``didChange`` of such a URI raises (a notification handler fails);
* analysing a text containing ``PLANTED_ANALYSIS_FAILURE`` raises (the analysis itself fails).
"""

from __future__ import annotations

import sys
from typing import Any
from unittest.mock import patch

import evalfix_ls.analysis
from evalfix_ls.cli import main
from evalfix_ls.lsp.diagnostics.manager import DiagnosticsManager

_pull = DiagnosticsManager.pull_document
_changed = DiagnosticsManager.document_changed
_analyze = evalfix_ls.analysis.analyze


async def pull_document(self: DiagnosticsManager, params: Any) -> Any:
    if "boom" in params.text_document.uri:
        raise RuntimeError("planted request failure")
    return await _pull(self, params)


def document_changed(self: DiagnosticsManager, snapshot: Any) -> None:
    if "boom" in snapshot.uri:
        raise RuntimeError("planted notification failure")
    _changed(self, snapshot)


def analyze(text: str, **kwargs: Any) -> Any:
    if "PLANTED_ANALYSIS_FAILURE" in text:
        raise RuntimeError("planted analysis failure")
    return _analyze(text, **kwargs)


# A module's function is replaced by assignment (the type checker compares the two signatures); a
# class's method with patch.object, made for it (mypy refuses an assignment to a method).
evalfix_ls.analysis.analyze = analyze

if __name__ == "__main__":
    with (
        patch.object(DiagnosticsManager, "pull_document", pull_document),
        patch.object(DiagnosticsManager, "document_changed", document_changed),
    ):
        sys.exit(main([]))
