"""Answers and notifications written as JSON before they reach the protocol, and the one thread
that writes the large ones.

pygls turns every message into JSON on the event loop (``cattrs`` unstructuring, then
``json.dumps``). For the large ones that held every other request: the symbols of a 10 MB suite
are thousands of nested objects, its ``workspace/diagnostic`` answer 12,555 diagnostics (170-290
ms of the loop's CPU per answer, up to a second under load). So a feature's answer is written on
its request worker (``EncodedResult``, ``encoded``), a diagnostic report or notification on the
encoding thread (``encoder_pool``, ``diagnostics/encoded.py``), and the protocol writes whatever is
``PreEncoded`` as it is.

``PreEncoded`` is a protocol, not a base class: the JSON-RPC layer sees only ``to_json``, so it
imports no type of the families above it (the diagnostic reports are lsprotocol subclasses). It is
not checked with ``isinstance``: a runtime-checkable protocol records every type it is asked about
in its ABC caches, for good, and met for the first time during a large analysis such entries held
one of its pymalloc arenas after close (``tests/lsp/test_memory.py``); ``pre_encoded_json`` looks
for the method instead.
"""

from __future__ import annotations

import asyncio
import functools
import json
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cattrs import Converter

_encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalfix-encode")


def encoder_pool() -> tuple[ThreadPoolExecutor, int]:
    """The encoding worker and how many threads it has (started with the server's others)."""
    return (_encoder, 1)


class PreEncoded(Protocol):
    """A message part already written as JSON: ``EvalfixProtocol.write_data`` writes ``to_json()``
    in its place instead of encoding it again."""

    def to_json(self) -> str: ...


def pre_encoded_json(value: object) -> str | None:
    """``value.to_json()`` when ``value`` is ``PreEncoded`` (no LSP type has a ``to_json``), else
    None."""
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else None


class EncodedResult:
    """A request's answer already written as JSON; ``EvalfixProtocol`` sends it as it is."""

    __slots__ = ("json",)

    def __init__(self, text: str) -> None:
        self.json = text

    def to_json(self) -> str:
        return self.json


class EncodedParts(EncodedResult):
    """An answer already written as JSON in UTF-8 pieces, framed and written without joining
    them (``transport.Chunks``): a ``workspace/diagnostic`` answer over 12,000 files is 39 MB,
    and the one string it was joined into, wrapped, encoded and framed, made four copies of it
    at the server's peak."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[bytes]) -> None:
        super().__init__("")
        self.parts = parts

    def to_json(self) -> str:
        return b"".join(self.parts).decode("utf-8")


class InOrderResult(EncodedResult):
    """An answer that must not overtake the notifications queued before it (a small answer
    otherwise goes first, ``transport.StreamWriter``): the end of a ``workspace/diagnostic`` whose
    reports went out as partial results, which a client drops once the answer is in."""

    __slots__ = ()


def encoded(value: object) -> EncodedResult:
    """``value`` (LSP types, lists, plain data) as pygls would write it; an answer the handler
    already wrote as JSON (``EncodedResult``) as it is."""
    if isinstance(value, EncodedResult):
        return value
    return EncodedResult(json.dumps(lsp_converter().unstructure(value)))


async def encoded_off_loop(value: object) -> EncodedResult:
    """``encoded(value)`` on the encoding worker: an answer a handler on the loop built as LSP
    types (``workspace/diagnostic``: at 10 MB, 12,555 diagnostics that pygls unstructured on the
    loop, 170-290 ms of CPU, up to a second under load, per answer, while every other request
    waited)."""
    return await asyncio.get_running_loop().run_in_executor(_encoder, encoded, value)


@functools.cache
def lsp_converter() -> Converter:
    """lsprotocol's converter: LSP types to plain JSON data, fields named and omitted as pygls
    writes them (pygls' own converter extends it only for its message envelopes)."""
    from lsprotocol.converters import get_converter

    from .converter_caches import keep_dispatch_caches

    return keep_dispatch_caches(get_converter())
