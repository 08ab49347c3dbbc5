"""Document text and positions, with no parsing: the text of a version as pieces of the previous
one (``pieces``: an edit of a 10 MB document does not copy it), the line index that converts
code-point offsets to LSP positions in UTF-8, UTF-16 or UTF-32 (``line_index``), and the line
starts it is built on (``line_starts``). The server imports this floor to answer ``initialize``,
long before any parser.
"""
