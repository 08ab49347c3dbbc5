"""The JSON parser family: tree model, fast path, tolerant parser, incremental re-parse, line index.

``parse`` is the entry point: the stdlib's C parser decides validity, valid text takes the fast path
(``fast``), anything else the recovering parser (``tolerant``). The tree model (``tree``) imports
neither.
"""

from __future__ import annotations

import json

from .fast import parse_valid, reject_constant
from .gcpause import gc_paused
from .tolerant import parse_tolerant
from .tree import ParseResult


def parse(text: str) -> ParseResult:
    """Parse ``text`` into a positioned tree, collecting every syntax error.

    Valid documents (the common case) take the fast path: the stdlib's C parser confirms validity,
    then one regex pass places every token. Anything it rejects (and deep nesting or huge integers,
    which it cannot handle) goes through the tolerant state machine, which recovers and reports.
    """
    with gc_paused():
        try:
            json.loads(text, parse_constant=reject_constant)
        except (ValueError, RecursionError):
            return parse_tolerant(text)
        return parse_valid(text)
