"""LSP base-protocol framing (``Content-Length`` headers, then the body), robust to broken clients.

pygls' reader accepts only ``Content-Length: N\\r\\n`` spelled exactly so and trusts N: a
lower-case header, LF-only line ends, a wrong or missing length leave it waiting for a header
that never comes (alive but deaf), and ``Content-Length: 1000000000000`` is a ``MemoryError``.
``Framer`` is fed raw bytes and returns events; it never blocks and never holds more than one
bounded message:

* headers are read as HTTP says (names case-insensitive) and LF-only lines are accepted;
* a length that is missing, not a decimal number, or above ``MAX_BODY_BYTES`` rejects the
  message (the caller answers ``-32700``) and the framer resynchronises on the next
  ``Content-Length`` header, skipping (and reporting) what lies between;
* a body that is a JSON value followed by more bytes (the length was too long) gives
  back what follows the value, which is delivered alone;
* ``stalled()`` (nothing arrived for a while in the middle of a body) delivers the partial body
  when it already is a complete JSON value (the length was too long and nothing follows).
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass

from ...workspace.files import MAX_FILE_BYTES

# A message carries at most one document; JSON-escaping a JSON file's text (quotes, backslashes,
# line breaks) at most doubles it, so every file the analysis accepts still fits.
MAX_BODY_BYTES = 2 * MAX_FILE_BYTES + 1024 * 1024
MAX_HEADER_LINE = 8192  # a longer line without a line break is not a header

_HEADER_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*")
_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_KEEP_WHILE_SKIPPING = 32  # bytes kept at the end of skipped input: a header may start there


@dataclass(frozen=True, slots=True)
class Body:
    """A framed message body (not yet decoded)."""

    data: bytes
    warning: str | None = None  # the framing was wrong but the message could be recovered


@dataclass(frozen=True, slots=True)
class Rejected:
    """A message whose header cannot be trusted: answer it with a parse error."""

    reason: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """Bytes outside any message, thrown away while looking for the next header."""

    size: int


Event = Body | Rejected | Skipped


_DECODER = json.JSONDecoder()


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):  # nested too deeply: the protocol answers it as such
        return False
    return True


def _leading_json_end(data: bytes) -> int | None:
    """The byte offset where a JSON value at the start of ``data`` ends (None: there is none)."""
    text = data.decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip())
    try:
        _value, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return len(text[:end].encode("utf-8", "surrogateescape"))


class _Step(enum.Enum):
    """A step of the framer that delivers no event."""

    NEED_INPUT = "need input"  # the buffer holds no complete unit: wait for more bytes
    PROGRESS = "progress"  # input was consumed without an event (a header line, blank lines)


class Framer:
    def __init__(self, max_body: int = MAX_BODY_BYTES) -> None:
        self.max_body = max_body
        self._buffer = bytearray()
        self._length: int | None = None  # the body being read, or None while reading headers
        self._headers_seen = False  # a header line of the current message was read
        self._header_length: int | None = None
        self._skipping = False  # looking for the next header after a framing error
        self._skipped = 0

    # -- input -----------------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        self._buffer += data
        events: list[Event] = []
        while (step := self._step()) is not _Step.NEED_INPUT:
            if step is not _Step.PROGRESS:
                events.append(step)
        return events

    def stalled(self) -> list[Event]:
        """Nothing arrived for a while: a partial body that already starts with a whole JSON
        value was announced with a length that is too long; deliver it rather than wait."""
        if self._length is None or not self._buffer:
            return []
        end = _leading_json_end(bytes(self._buffer))
        if end is None:
            return []
        expected = self._length
        data = bytes(self._buffer[:end])
        del self._buffer[:end]
        self._reset()
        return [Body(data, f"Content-Length was {expected}, the message ended after {end} bytes")]

    def eof(self) -> str | None:
        """Why the input ended in the middle of something (None: between messages)."""
        if self._length is not None:
            return f"input ended inside a message ({len(self._buffer)} of {self._length} bytes)"
        if self._skipping or self._skipped:
            skipped = self._skipped + len(self._buffer)
            return f"input ended while looking for a message header ({skipped} bytes skipped)"
        if self._headers_seen or self._buffer.strip():
            return "input ended inside a message header"
        return None

    @property
    def reading_body(self) -> bool:
        return self._length is not None

    # -- state machine ---------------------------------------------------------------------------

    def _reset(self) -> None:
        self._length = None
        self._headers_seen = False
        self._header_length = None

    def _step(self) -> Event | _Step:
        if self._length is not None:
            return self._read_body()
        if self._skipping:
            return self._skip()
        return self._read_header_line()

    def _read_body(self) -> Event | _Step:
        assert self._length is not None
        if len(self._buffer) < self._length:
            return _Step.NEED_INPUT
        data = bytes(self._buffer[: self._length])
        del self._buffer[: self._length]
        self._reset()
        return self._recover_overlong(data)

    def _recover_overlong(self, data: bytes) -> Body:
        """A body that swallowed the start of the next message: give back what follows its JSON
        value (a body that is not JSON at all is delivered as it is, to be answered so)."""
        if _is_json(data):
            return Body(data)
        end = _leading_json_end(data)
        if end is None or not data[end:].strip():
            return Body(data)
        self._buffer[:0] = data[end:]
        return Body(data[:end], f"Content-Length was {len(data)}, the message ended after {end} bytes")

    def _skip(self) -> Event | _Step:
        match = _HEADER_START.search(self._buffer)
        if match is None:
            drop = max(0, len(self._buffer) - _KEEP_WHILE_SKIPPING)
            del self._buffer[:drop]
            self._skipped += drop
            return _Step.NEED_INPUT
        self._skipped += match.start()
        del self._buffer[: match.start()]
        self._skipping = False
        skipped, self._skipped = self._skipped, 0
        return Skipped(skipped) if skipped else _Step.PROGRESS

    def _start_skipping(self, drop: int = 0) -> None:
        self._reset()
        self._skipping = True
        self._skipped += drop
        del self._buffer[:drop]

    def _garbage(self, reason: str, drop: int = 1) -> Event | _Step:
        """Bytes that are no header: look for the next header (it may start after ``drop``)."""
        had_headers = self._headers_seen
        self._start_skipping(drop)
        return Rejected(reason) if had_headers else _Step.PROGRESS

    def _read_header_line(self) -> Event | _Step:
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > MAX_HEADER_LINE or self._buffer.startswith((b"{", b"[")):
                return self._garbage("the headers are not followed by a blank line")
            return _Step.NEED_INPUT
        line = bytes(self._buffer[:end]).rstrip(b"\r")
        if not line:
            del self._buffer[: end + 1]
            return self._end_of_headers()
        inner = _HEADER_START.search(line, 1)
        if inner is not None:  # the rest of a body whose length was too short, then a header
            return self._garbage("a header line is malformed", drop=inner.start())
        match = _HEADER_LINE.fullmatch(line)
        if match is None:
            return self._garbage("a header line is malformed")
        del self._buffer[: end + 1]
        self._headers_seen = True
        if match.group(1).lower() == b"content-length":
            return self._content_length(match.group(2))
        return _Step.PROGRESS

    def _content_length(self, value: bytes) -> Event | _Step:
        if not value.isdigit():
            self._start_skipping()
            return Rejected(f"Content-Length {value.decode('latin-1')!r} is not a byte count")
        length = int(value)
        if length > self.max_body:
            self._start_skipping()
            return Rejected(f"Content-Length {length} is above the limit of {self.max_body} bytes")
        self._header_length = length
        return _Step.PROGRESS

    def _end_of_headers(self) -> Event | _Step:
        if not self._headers_seen:
            return _Step.PROGRESS  # blank lines between messages
        if self._header_length is None:
            self._start_skipping()
            return Rejected("the message has no Content-Length header")
        self._length = self._header_length
        return _Step.PROGRESS
