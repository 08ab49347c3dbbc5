"""Answers of thousands of items written as JSON text directly.

The symbols of a 10 MB suite are 5,000 objects holding 20,000 positions: building them as
``lsprotocol`` objects, unstructuring those with ``cattrs`` and dumping the result cost about
110 ms, three quarters of the request. Written here from the service's plain results (ranges
converted in one pass by ``FeatureContext.range_texts``), the same JSON costs a fraction of that.
The text must equal what pygls writes for the same answer once parsed (tests/lsp/test_json_text.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from json.encoder import encode_basestring_ascii  # what json.dumps calls for a str, minus its checks


def string(value: str) -> str:
    """A JSON string literal."""
    return encode_basestring_ascii(value)


def members(pairs: Iterable[tuple[str, str | None]]) -> str:
    """A JSON object from ``(name, JSON text)`` pairs; a pair whose text is None is left out (as
    pygls leaves out an unset optional field)."""
    return "{" + ", ".join(f'"{name}": {text}' for name, text in pairs if text is not None) + "}"


def array(items: Iterable[str]) -> str:
    """A JSON array of JSON texts."""
    return "[" + ", ".join(items) + "]"
