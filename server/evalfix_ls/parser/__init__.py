"""The JSON parser family: tree model, fast path, tolerant parser, incremental re-parse
(``incremental/``), and the intact view findings read through syntax errors (``intact``).

``parse`` is the entry point: the stdlib's C parser decides validity, valid text takes the fast path
(``fast``), anything else the recovering parser (``tolerant``). The tree model (``tree``) imports
neither.

The parsers are imported by the first ``parse``, not with the package: the two parsers (regex
tables, the tolerant state machine) are not needed to answer ``initialize`` (issue 19, point 7).
Text and positions (``text/``) and the collector pause (``memory/gc_pause``) live on the floor
below: they involve no parsing, and the server needs them first.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..memory.gc_pause import gc_paused

if TYPE_CHECKING:
    from .tree import ParseResult


def parse(text: str) -> ParseResult:
    """Parse ``text`` into a positioned tree, collecting every syntax error.

    Valid documents (the common case) take the fast path: the stdlib's C parser confirms validity,
    then one regex pass places every token. Anything it rejects (and deep nesting or huge integers,
    which it cannot handle) goes through the tolerant state machine, which recovers and reports.
    """
    from .fast import parse_valid, reject_constant
    from .tolerant import parse_tolerant

    with gc_paused():
        try:
            json.loads(text, parse_constant=reject_constant)
        except (ValueError, RecursionError):
            return parse_tolerant(text)
        return parse_valid(text)
