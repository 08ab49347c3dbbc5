"""The real server plus one test-only request, ``evalfix/test/state``, answering what the server's
own per-document structures hold and how many analyses are still alive (each analysis carries a
weakly referenced marker, so an analysis that nothing uses any more but that is kept alive anyway
— e.g. frozen garbage — still counts).

An analysis of a text containing ``PLANTED_SLOW_ANALYSIS`` logs "slow analysis started" and takes
a second: long enough for a test to change the document meanwhile, without guessing at timing.
"""

from __future__ import annotations

import ctypes
import gc
import linecache
import logging
import os
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import fields
from typing import Any
from unittest.mock import patch

import pygls.uris as pygls_uris
from abc_caches import abc_cache_entries

import evalfix_ls.lsp.diagnostics.jobs as jobs
from evalfix_ls.analysis import Analysis
from evalfix_ls.cli import main
from evalfix_ls.contracts.evals import check as evals_check
from evalfix_ls.js import regex
from evalfix_ls.lsp import lifecycle
from evalfix_ls.lsp import server as server_module
from evalfix_ls.lsp.diagnostics.edit_log import EditLog
from evalfix_ls.lsp.diagnostics.encoded import KeptDiagnostics
from evalfix_ls.lsp.features import inline, outline
from evalfix_ls.lsp.jsonrpc import transport
from evalfix_ls.lsp.scheduling import request_runner
from evalfix_ls.lsp.session.documents import path_to_uri
from evalfix_ls.memory import collector, gc_pause, pool_trim
from evalfix_ls.parser.incremental import shift
from evalfix_ls.services import fixes, workspace_symbols
from evalfix_ls.text import pieces

_run_job = jobs.run_job
_alive: weakref.WeakSet[Any] = weakref.WeakSet()
_log = logging.getLogger("evalfix_ls.probe")


class _ProbedAnalysis(Analysis):
    """An analysis that can be watched by weak reference (``Analysis`` has slots, no weakref)."""

    __slots__ = ("__weakref__",)
    __hash__ = object.__hash__  # a WeakSet member (a dataclass with eq is unhashable)


_jobs_run = [0]
_texts_built = [0]  # whole texts built from the pieces of an edited version (``PieceText``)
_build = pieces._build


def build(pieces: Any) -> str:
    _texts_built[0] += 1
    return _build(pieces)


pieces._build = build
_fixes_asked = [0]  # fixes_for calls (what a finding's fixers are asked)
_fixes_for = fixes.fixes_for


def fixes_for(*args: Any, **kwargs: Any) -> Any:
    _fixes_asked[0] += 1
    return _fixes_for(*args, **kwargs)


fixes.fixes_for = fixes_for
_cases_checked = [0]  # eval cases checked afresh (not answered from the per-case cache)
_check_case = evals_check._check_case


def check_case(*args: Any, **kwargs: Any) -> Any:
    _cases_checked[0] += 1
    return _check_case(*args, **kwargs)


evals_check._check_case = check_case


_suites_read = [0]  # evals suites read from disk for their case ids (``workspace_symbols``)
_suite_ids_read = workspace_symbols._suite_ids_read


def suite_ids_read(*args: Any) -> Any:
    _suites_read[0] += 1
    return _suite_ids_read(*args)


workspace_symbols._suite_ids_read = suite_ids_read
_uris_made = [0]  # file URIs computed from paths (``pygls.uris.from_fs_path``)
_from_fs_path = pygls_uris.from_fs_path


def from_fs_path(*args: Any) -> Any:
    _uris_made[0] += 1
    return _from_fs_path(*args)


pygls_uris.from_fs_path = from_fs_path
_largest_write = [0]  # the largest piece of bytes the stdout writer wrote in one call
_write = transport.StreamWriter._write


def write(self: transport.StreamWriter, data: Any) -> None:
    pieces = data if isinstance(data, transport.Chunks) else (data,)
    _largest_write[0] = max(_largest_write[0], *map(len, pieces))
    _write(self, data)


transport.StreamWriter._write = write  # type: ignore[method-assign]
_closed_keys = [0]  # closed files' result keys looked up (``JobRunner.disk_key``)
_disk_key = jobs.JobRunner.disk_key


def disk_key(self: jobs.JobRunner, path: Any) -> Any:
    _closed_keys[0] += 1
    return _disk_key(self, path)


jobs.JobRunner.disk_key = disk_key  # type: ignore[method-assign]
_nodes_built = [0]  # moved containers whose children were built (``ShiftedNode._materialize``)
_materialize = shift.ShiftedNode._materialize


def materialize(node: shift.ShiftedNode) -> None:
    # (an edited array hands over its view of the moved items: nothing is built then)
    _nodes_built[0] += isinstance(node._source, shift.Node)
    _materialize(node)


_cases_written = [0]  # cases whose symbols were written as JSON (``outline.written_case``)
_written_case = outline.written_case


def written_case(*args: Any) -> Any:
    _cases_written[0] += 1
    return _written_case(*args)


outline.written_case = written_case
_lenses_written = [0]  # code lenses written as JSON (``inline.written_lens``)
_written_lens = inline.written_lens


def written_lens(*args: Any) -> Any:
    _lenses_written[0] += 1
    return _written_lens(*args)


inline.written_lens = written_lens
_lanes_started: list[str] = []  # the lane of each feature request, in the order they reach it
_run = request_runner.RequestRunner.run


async def run(
    self: request_runner.RequestRunner, token: Any, fn: Any, *, lane: str = request_runner.DOCUMENT
) -> Any:
    _lanes_started.append(lane)
    return await _run(self, token, fn, lane=lane)


_edit_reads = [0]  # walks of a document's edit log (EditLog.between)
_between = EditLog.between


def between(self: EditLog, uri: str, from_revision: int, to_revision: int) -> Any:
    _edit_reads[0] += 1
    return _between(self, uri, from_revision, to_revision)


_jobs_reparsing = [0]  # jobs handed an earlier result's tree to re-parse from


def run_job(job: Any, lookup: Any) -> Any:
    _jobs_run[0] += 1
    _jobs_reparsing[0] += job.prev_tree is not None
    text = job.snapshot.text if job.snapshot is not None else ""
    if "PLANTED_SLOW_ANALYSIS" in text:
        _log.info("slow analysis started")
        time.sleep(1.0)
    result = _run_job(job, lookup)
    if result.analysis is not None:
        analysis = result.analysis
        result.analysis = _ProbedAnalysis(*(getattr(analysis, f.name) for f in fields(Analysis)))
        _alive.add(result.analysis)
    return result


def frozen_state() -> dict[str, int]:
    with gc_pause.unpaused():  # not in the middle of an idle collection
        return {
            "frozen objects": gc.get_freeze_count(),
            "idle collections": collector.idle_collections(),
            "full collections": collector.full_collections(),
            "malloc heaps": malloc_heaps(),
        }


def malloc_heaps() -> int | None:
    """How many malloc arenas glibc keeps (the ``<heap>`` elements ``malloc_info`` writes); None
    without glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        malloc_info = libc.malloc_info
    except (OSError, AttributeError):
        return None
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "malloc-info.xml")
        stream = libc.fopen(path.encode(), b"w")
        malloc_info(0, stream)
        libc.fclose(stream)
        with open(path, encoding="utf-8") as info:
            return info.read().count("<heap nr=")


def table_bytes(ls: Any) -> int:
    """What the per-document tables hold above an empty dict's size (their hash tables)."""
    diagnostics = ls.diagnostics
    tables = [
        ls.documents._docs,
        ls.quick_trees._built,
        ls.quick_trees._memos,
        diagnostics.cache.open,
        diagnostics.cache.case_caches,
        diagnostics.cache._result_ids,
        diagnostics.runner.inflight,
        diagnostics.runner.parsed,
        diagnostics.edits._edits,
        diagnostics.edits._latest_revision,
        diagnostics.push.publisher._push,
    ]
    return sum(sys.getsizeof(table) - sys.getsizeof({}) for table in tables)


def _counts(memo: Any) -> dict[str, int]:
    return {"computed": memo.computed, "reused": memo.reused}


def _result_reads() -> int:
    """Run-result files the server opened (``results.reading``), 0 before any was."""
    reading = sys.modules.get("evalfix_ls.results.reading")
    return reading.reads_so_far() if reading is not None else 0


def state(ls: Any) -> dict[str, Any]:
    diagnostics = ls.diagnostics
    per_uri = {
        "documents": list(ls.documents._docs),
        "pygls documents": list(ls.protocol.workspace.text_documents),
        "results": list(diagnostics.cache.open),
        "late results": list(diagnostics.cache.late),
        "inflight": list(diagnostics.runner.inflight),
        "case caches": list(diagnostics.cache.case_caches),
        "edits": diagnostics.edits.tracked(),
        "push pipelines": list(diagnostics.push.publisher._push),
        "result ids": diagnostics.cache.ids_held(),
        "encoded reports": diagnostics.pull.handlers.encoded_uris(),
    }
    caches = {
        "repo roots": len(ls.workspace_index._repo_root_cache),
        "configs": len(ls.settings._configs),
        "repositories": len(ls.workspace_index._repos),
        "disk results": len(diagnostics.cache.disk),
        # kept closed results whose diagnostics are objects, not their JSON (``kept_form``)
        "disk results as objects": sum(
            not isinstance(kept.diagnostics, KeptDiagnostics)
            for kept in diagnostics.cache.disk._kept.values()
        ),
        "caseless": len(ls.workspace_index._caseless),
    }
    return {
        "per_uri": per_uri,
        "caches": caches,
        "tasks": len(diagnostics.tasks),
        "sync tasks held": len(diagnostics.sync._tasks),
        "request futures": [str(key) for key in ls.protocol.pending_requests()],
        "alive analyses": len(_alive),
        "jobs run": _jobs_run[0],
        "jobs re-parsing": _jobs_reparsing[0],
        "texts built": _texts_built[0],
        "edit reads": _edit_reads[0],
        "request lanes": list(_lanes_started),
        "nodes built": _nodes_built[0],
        "cases written": _cases_written[0],
        "lenses written": _lenses_written[0],
        "case memos": {
            uri: {"symbols": _counts(memos.symbols), "links": _counts(memos.links)}
            for uri, memos in ls.quick_trees._memos.items()
        },
        "fixes asked": _fixes_asked[0],
        "result files read": _result_reads(),
        "cases checked": _cases_checked[0],
        "suites read for symbols": _suites_read[0],
        "uris made": _uris_made[0],
        "largest write": _largest_write[0],
        "closed keys": _closed_keys[0],
        "uris remembered": path_to_uri.cache_info().currsize,
        **frozen_state(),
        "warmed up": _warmed_up[0],
        "threads": sorted(thread.name for thread in threading.enumerate()),
        # cattrs keeps the source of each (un)structure function it generates in linecache
        "converter functions": sum("cattrs generated" in name for name in list(linecache.cache)),
        "abc cache entries": abc_cache_entries(),
        "modules": sorted(sys.modules),
        "regex verdicts": regex.cached_verdicts(),
        "table bytes": table_bytes(ls),
        "collections at close": collector.close_collections(),
        "pool trims": pool_trim.trims()[0],
    }


def settled_state(ls: Any) -> dict[str, Any]:
    """``state`` read again when it failed while the workers changed what it reads ("dictionary
    changed size during iteration" was seen once under load; CI saw another error once, not
    logged then): each failure is logged with its traceback, and the last one is raised."""
    for attempt in range(10):
        try:
            return state(ls)
        except Exception:
            _log.exception("evalfix/test/state failed (attempt %d of 10)", attempt + 1)
            if attempt == 9:
                raise
            time.sleep(0.01)  # let the worker finish the change it was making
    raise AssertionError("unreachable")


_warmed_up = [False]
_warm_up = lifecycle.warm_up


def warm_up(*args: Any) -> None:
    _warm_up(*args)
    _warmed_up[0] = True


lifecycle.warm_up = warm_up


jobs.run_job = run_job
_create = server_module.create_server


def create_server() -> Any:
    server = _create()
    server.feature("evalfix/test/state")(lambda ls, params: settled_state(ls))
    return server


server_module.create_server = create_server

if __name__ == "__main__":
    # Methods are replaced with patch.object, made for it (mypy refuses an assignment to a method);
    # a module's function by assignment above (the type checker compares the two signatures).
    with (
        patch.object(request_runner.RequestRunner, "run", run),
        patch.object(EditLog, "between", between),
        patch.object(shift.ShiftedNode, "_materialize", materialize),
    ):
        sys.exit(main([]))
