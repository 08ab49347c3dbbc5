"""The state the event loop owns: open documents as immutable snapshots (``documents``), other
files' positions (``other_files``), the workspace index and its events, settings, what the client
supports (``client_features``), and ``Host``: the server as the diagnostics family and the
lifecycle type it (the wiring in ``lsp/server.py`` implements it).
"""
