"""The language server: five families under a thin top, each importing only the ones below it
(``jsonrpc < scheduling < session < diagnostics < features < top``, checked by
``tests/unit/test_architecture.py::LSP_LAYERS``; ``memory/`` and ``text/`` are floors below all).

* ``jsonrpc/`` — bytes ↔ messages: framing, the stdin/stdout threads (``transport``), pygls'
  protocol with its gaps closed (``protocol``), answers written as JSON in advance
  (``encoded``: ``PreEncoded``, the encoding thread), the request trace, pygls' private names.
* ``scheduling/`` — which worker runs a request and when it stops: the two request lanes and
  their checkpoints (``request_runner``), point requests first (``point_first``), answers
  superseded by the same request on a newer text (``supersession``).
* ``session/`` — the state the event loop owns: open documents and their snapshots
  (``documents``), the workspace index, settings, what the client supports, workspace events,
  and ``Host``, the server as the families above type it.
* ``diagnostics/`` — findings to diagnostics and to the client: one result store serving push,
  pull and the workspace scan (``manager`` is its entry; ``worker`` runs an analysis).
* ``features/`` — one module per editing feature, handlers on an immutable ``FeatureContext``
  (with ``context``, ``quick_trees`` and ``json_text`` as their support).
* the top — ``server`` (wiring, ``create_server``, ``start``), ``lifecycle`` (initialize,
  initialized, shutdown), ``warm_up`` (what ``initialized`` prepares off the loop).

Threads: the event loop (every message handler, every store); stdin's reader and stdout's writer
(``jsonrpc/transport``); the encoding thread (``jsonrpc/encoded``); two analysis workers for
open documents (``server.ANALYSIS_WORKERS``) and one for the workspace's own work — the walk, the
workflow index load, closed files, the case ids' start-up pass (``server.BACKGROUND_WORKERS``);
two document-wide and two point request workers
(``scheduling/request_runner``); pygls' pool of four for its thread handlers; the idle collector
(``memory/collector``). ``EvalfixServer.worker_pools`` lists the pools, and
``collector.start_threads_and_freeze`` starts them all before the first document.

One ``didChange``, push client: ``transport.Connection.feed`` → ``framing.Framer`` →
``EvalfixProtocol.receive_body`` (``envelope.check``, the gates) → ``on_did_change`` on the
server → ``DocumentStore.change`` (a new ``Snapshot``) → ``DiagnosticsManager.document_changed``
(``edit_log``, the workspace index, the strategy) → ``push.PushScheduler`` (debounce) →
``jobs.JobRunner`` → ``worker.run_job`` on an analysis worker (``analysis.analyze``, the
incremental re-parse, ``case_blocks``/``convert``) → back on the loop, ``results.ResultCache`` →
``push`` publishes ``encoded`` JSON → ``EvalfixProtocol.write_data`` → ``transport.StreamWriter``.
A pull client's ``textDocument/diagnostic`` reaches the same ``JobRunner`` through ``pull``.

The server object is called ``ls`` in handlers registered with pygls (its habit) and ``server``
elsewhere; both are the one ``EvalfixServer``.
"""
