"""Configuration shared by the language server and ``evalfix-ls --check``.

Sources, from weakest to strongest (a later source overrides an earlier one key by key; ``files``
and ``severity`` entries are merged by glob / code):

1. built-in defaults;
2. the project file: the nearest ``.evalfix.toml`` (top-level keys) or ``pyproject.toml`` with a
   ``[tool.evalfix]`` table, searched from the starting directory upwards and not above the first
   directory that holds ``.git``;
3. (server only) the client's ``initializationOptions``;
4. (server only) the client's ``workspace/configuration`` section ``evalfix``.

Key names are matched ignoring case, ``_`` and ``-``: ``debounceMs``, ``debounce_ms`` and
``debounce-ms`` are the same key, so TOML and editor settings can each use their own style.
Invalid entries never abort: they are skipped and described in ``Config.problems``.

The modules: ``model`` (``Config``, what the layers merge into and how it applies to findings and
paths; its ``files`` globs are matched by ``workspace/glob_match.py``), ``parse`` (one settings
table or object, from TOML or from the client, checked into a ``Config``), ``project_files``
(finding and reading the project file) and ``project_config`` (a project file's ``Config``, cached
per directory). The client's settings are taken apart in ``lsp/session/settings.py``.
"""
