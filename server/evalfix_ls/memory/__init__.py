"""Garbage collection and memory given back, in one place beside the parser (a floor below every
other package).

A 10 MB suite is about a million tree nodes kept alive between edits; a full collection walks
them all (0.5–1 s). So: the collector is paused while a tree is built or a request runs
(``gc_pause``: the mechanism), what a job leaves is frozen and collected only when the server is
idle and the frozen heap small, memory is trimmed back to the system (``collector``: the
server's policy), and per-document tables give their hash table back when the last document
leaves (``tables.pop_and_shrink``).

What pymalloc keeps in arenas a few live blocks hold goes back at the idle pass (``pool_trim``,
on ``pymalloc_table``'s layout read by ``arena_lists``, under ``exclusive``'s hold): empty pools'
pages, the top run of each arena uncarved, the other empty pools retired from pymalloc's counts
(``pool_retire``), and the pages of sparse used pools that hold no live block (``pool_thin``).
"""
