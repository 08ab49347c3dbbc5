"""Diagnostics: one result store serving push, pull and the workspace scan, and the conversion of
findings to LSP diagnostics (``convert``, ``case_blocks``: no module outside this family converts
findings). ``manager`` is the entry the rest of the server calls and its docstring says how a
change flows; ``worker`` is the part that runs on an analysis worker, ``jobs`` the event loop's
side of it.
"""
