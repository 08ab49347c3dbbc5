"""Protocol-free editing features over the analysis of one document version.

Each feature is a plain function of a ``DocumentView`` (text, tree, findings and contract results
of one version), an offset and a read-only ``WorkspaceFacts``, returning plain data with
code-point offsets — never LSP types. The language server (``lsp/``) converts offsets to positions
in the negotiated encoding; the batch mode (``batch/``) can call the same functions.

Shared helpers every feature uses:

* ``cursor.locate`` — the node, member and JSON path at an offset (also in a broken document:
  the tolerant parser's recovered tree);
* ``schema_nodes.schema_at`` — the schema fragments that apply at a JSON path (``$ref``,
  ``allOf``, ``if``/``then`` discriminated by ``kind``/``type``, ``anyOf``/``oneOf``, ``items``,
  ``additionalProperties``), from the bundled schemas (the one source of docs and enums);
* ``workspace_facts.WorkspaceFacts`` — fixture files per skill, case ids, coverage tags in use,
  paths that exist.
* ``cases`` — the case array, each case's id and text, and ``path_strings``: every string that
  names a file of the repository (links, file moves and rename read the same ones);
* ``parser.values`` (below every layer, shared with the rules and fixers) — typed reads of a tree
  that may be partial (``string_of``, ``items_of``, ``member_value``, …): a missing or mistyped
  value is "not there", never an exception.

Adding a feature: a module here whose entry point takes ``(document, offset, facts)`` (or just
``document``) and returns dataclasses; unit tests in ``tests/unit/services/`` with inline
documents where ``|`` marks the cursor; then a handler in ``lsp/features/``.
"""
