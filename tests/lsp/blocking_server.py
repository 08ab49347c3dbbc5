"""The real server with a request that blocks on purpose, to test that feature requests run off
the event loop and stop when cancelled or outdated (no timing: the test decides when it ends).

* ``textDocument/documentSymbol`` of a text containing ``PLANTED_BLOCK`` waits on its worker,
  before converting anything, until ``evalfix/test/release`` (bounded, so a server that runs it on
  the event loop fails the test instead of hanging it);
* ``textDocument/hover`` in a text containing ``PLANTED_HOVER_BLOCK`` waits the same way (a point
  request being answered: document-wide handlers give way meanwhile, ``point_first.PointFirst``);
* the JSON of a ``workspace/diagnostic`` answer's reports is written
  (``diagnostics.workspace_pull.answer_parts``) only after the same release, so a test sees whether
  the loop stays free meanwhile;
* the rules of a text containing ``PLANTED_RULES_BLOCK`` wait the same way, after its parse (the
  features that read only the tree answer meanwhile: ``JobRunner.parsed_for_open``);
* loading the workflow index of a repository holding a file ``PLANTED_INDEX_BLOCK`` waits the
  same way (an open document's first findings come meanwhile, ``analyzer.run_job``);
* the walk of a workspace folder holding a file ``PLANTED_WALK_BLOCK`` waits the same way (a
  suite opened meanwhile is analysed and published: the workspace's work has a worker of its own);
* ``evalfix/test/blocked`` answers how many requests wait there, how each request worker ended
  (``ok`` or the exception's class name), how many symbols were converted and how many times a
  document-wide handler found a point request running at a checkpoint (``gave way``).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from evalfix_ls import analysis as analysis_module
from evalfix_ls.cli import main
from evalfix_ls.contracts.workflow import index as index_module
from evalfix_ls.lsp import server as server_module
from evalfix_ls.lsp.diagnostics import workspace_pull
from evalfix_ls.lsp.features import outline
from evalfix_ls.lsp.scheduling import point_first, request_runner
from evalfix_ls.lsp.session.workspace_index import WorkspaceIndex
from evalfix_ls.services import hover as hover_service
from evalfix_ls.services import outline as outline_service

BLOCK_AT_MOST = 20.0  # seconds; only reached when the server is broken

_release = threading.Event()
_state: dict[str, Any] = {
    "waiting": 0,
    "rules waiting": 0,
    "index waiting": 0,
    "walk waiting": 0,
    "walks done": 0,
    "outcomes": [],
    "converted": 0,
    "gave way": 0,
}
_symbols = outline_service.document_symbols  # imported by the handler when it runs
_hover = hover_service.hover
_give_way = point_first.PointFirst.give_way
_answer_parts = workspace_pull.answer_parts
_convert = outline._document_symbol
_paused = request_runner._paused
_rules = analysis_module._contract_findings
_load_from_disk = index_module.WorkflowIndex.load_from_disk
_discover = WorkspaceIndex.discover


def document_symbols(document: Any, *args: Any, **kwargs: Any) -> Any:
    if "PLANTED_BLOCK" in document.text:
        _state["waiting"] += 1
        _release.wait(BLOCK_AT_MOST)
        _state["waiting"] -= 1
    return _symbols(document, *args, **kwargs)


def hover(document: Any, *args: Any, **kwargs: Any) -> Any:
    if "PLANTED_HOVER_BLOCK" in str(document.text[:400]):
        _state["waiting"] += 1
        _release.wait(BLOCK_AT_MOST)
        _state["waiting"] -= 1
    return _hover(document, *args, **kwargs)


def contract_findings(kind: str, ctx: Any) -> Any:
    if "PLANTED_RULES_BLOCK" in ctx.text:
        _state["rules waiting"] += 1
        _release.wait(BLOCK_AT_MOST)
        _state["rules waiting"] -= 1
    return _rules(kind, ctx)


def load_from_disk(self: index_module.WorkflowIndex) -> None:
    if (self.repo_root / "PLANTED_INDEX_BLOCK").exists():
        _state["index waiting"] += 1
        _release.wait(BLOCK_AT_MOST)
        _state["index waiting"] -= 1
    _load_from_disk(self)


def discover(self: WorkspaceIndex, *args: Any) -> Any:
    if any((folder / "PLANTED_WALK_BLOCK").exists() for folder in self.folders):
        _state["walk waiting"] += 1
        _release.wait(BLOCK_AT_MOST)
        _state["walk waiting"] -= 1
    found = _discover(self, *args)
    _state["walks done"] += 1
    return found


def answer_parts(items: Any) -> list[bytes]:
    _state["waiting"] += 1
    _release.wait(BLOCK_AT_MOST)
    _state["waiting"] -= 1
    return _answer_parts(items)


def give_way(self: point_first.PointFirst) -> bool:
    if not self._none_running.is_set():
        _state["gave way"] += 1
    return _give_way(self)


def document_symbol(*args: Any) -> Any:
    converted = _convert(*args)
    _state["converted"] += 1
    return converted


def paused(fn: Any) -> Any:
    try:
        result = _paused(fn)
    except BaseException as exc:
        _state["outcomes"].append(type(exc).__name__)
        raise
    _state["outcomes"].append("ok")
    return result


outline_service.document_symbols = document_symbols
hover_service.hover = hover
workspace_pull.answer_parts = answer_parts
point_first.PointFirst.give_way = give_way  # type: ignore[method-assign]
point_first.PointFirst.GIVE_WAY_SECONDS = BLOCK_AT_MOST  # a test decides when the hover ends
outline._document_symbol = document_symbol
request_runner._paused = paused
analysis_module._contract_findings = contract_findings
index_module.WorkflowIndex.load_from_disk = load_from_disk  # type: ignore[method-assign]
WorkspaceIndex.discover = discover  # type: ignore[method-assign]
_create = server_module.create_server


def create_server() -> Any:
    server = _create()
    server.feature("evalfix/test/release")(lambda ls, params: _release.set())
    server.feature("evalfix/test/blocked")(lambda ls, params: _state)
    return server


server_module.create_server = create_server

if __name__ == "__main__":
    sys.exit(main([]))
