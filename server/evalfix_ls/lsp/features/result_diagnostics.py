"""Failed assertions of the last run as diagnostics (source ``evalfix-ls results``), joined to the
document's own in push and pull alike (``DiagnosticsManager.extra_items``).

They are not findings: no code of the contract, never in ``--check``. Severity comes from the
``evals.resultDiagnostics`` setting (information by default; ``off`` drops them). The message
carries the run and the evidence. A stale assertion gets none (its verdict no longer applies).
The join runs on a worker and reads the results index's kept answers: a keystroke's diagnostics
open no result file. The key (a checksum of their JSON) is part of the pull
``resultId``: a new run's results, or an edit that makes an assertion stale, reach a pull client
that asks again.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...findings import Severity
    from ...results.index import ResultsIndex
    from ...text.line_index import Encoding, LineIndex
    from ..diagnostics.worker import Result
    from ..session.host import Host

SOURCE = "evalfix-ls results"
CODE = "result-failed"


def extra_items(
    server: Host, index_of: Callable[[Path, Sequence[Path]], ResultsIndex]
) -> Callable[[str, Result], Awaitable[tuple[str, Sequence[str]]]]:
    async def items(uri: str, result: Result) -> tuple[str, Sequence[str]]:
        path = result.path
        snapshot = server.documents.get(uri)
        if path is None or result.analysis is None or result.kind != "evals" or not result.is_for(snapshot):
            return "", ()
        config = server.settings.config_for(path)
        severity = config.result_diagnostics
        if severity is None:
            return "off", ()
        repo_root = server.workspace_index.repo_root_for(path, config.root)
        index = index_of(repo_root, config.result_roots)
        assert snapshot is not None
        line_index, encoding = snapshot.line_index, server.encoding

        def compute() -> list[str]:
            from ...services.document import DocumentView
            from ...services.run_results import diagnostic_message, lookups, notes, suite_of

            assert result.analysis is not None
            document = DocumentView(result.text, result.analysis, path=path, repo_root=repo_root)
            suite = suite_of(document, index.has_runs)
            if suite is None:
                return []
            found = [n for n in notes(suite, lookups(suite, index.lookup)) if n.verdict.state == "failed"]
            return [
                _diagnostic(line_index, encoding, n.start, n.end, diagnostic_message(n), severity)
                for n in found
            ]

        found = await asyncio.get_running_loop().run_in_executor(server.executor, compute)
        # The items depend on the text too (an edit can make an assertion stale): the key is
        # their content, so an unchanged pull answer means unchanged result diagnostics.
        return f"{len(found)}.{zlib.crc32(''.join(found).encode()):08x}", found

    return items


def _diagnostic(
    index: LineIndex, encoding: Encoding, start: int, end: int, message: str, severity: Severity
) -> str:
    (start_line, start_char), (end_line, end_char) = index.positions([start, end], encoding)
    return json.dumps(
        {
            "range": {
                "start": {"line": start_line, "character": start_char},
                "end": {"line": end_line, "character": end_char},
            },
            "severity": int(severity),
            "code": CODE,
            "source": SOURCE,
            "message": message,
        }
    )
