"""A language server run behind a tap that logs every LSP message with its time, bytes unchanged.

``python -m bench.tools.lsp_tee --log FILE -- COMMAND [ARGS…]`` (or ``python bench/tools/lsp_tee.py …``: it
uses only the standard library) spawns ``COMMAND`` and copies the editor's stdin to it and its
stdout to the editor, chunk by chunk as read, so the editor and the server see exactly the bytes
they would see without it. A copy of each stream is cut into Content-Length frames and every
message is appended to ``FILE`` as one JSON line: ``{"t": wall-clock seconds, "dir": "c2s" |
"s2c", "msg": the message}``. ``bench.tools.record_vscode`` sets this as the extension's server command
to record what a real VS Code sends.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

CHUNK = 65536


class FrameReader:
    """Cuts a byte stream fed in arbitrary chunks into LSP messages (header + JSON body)."""

    def __init__(self, emit: Callable[[Any], None]) -> None:
        self.buffer = bytearray()
        self.emit = emit

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end < 0:
                return
            length = _content_length(bytes(self.buffer[:header_end]))
            body_start = header_end + 4
            if len(self.buffer) < body_start + length:
                return
            body = bytes(self.buffer[body_start : body_start + length])
            del self.buffer[: body_start + length]
            try:
                self.emit(json.loads(body))
            except ValueError:
                self.emit({"unparsed": body[:200].decode("utf-8", "replace")})


def _content_length(header: bytes) -> int:
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


class MessageLog:
    def __init__(self, path: str) -> None:
        self.file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run
        self.lock = threading.Lock()

    def writer(self, direction: str) -> Callable[[Any], None]:
        def write(message: Any) -> None:
            line = json.dumps({"t": time.time(), "dir": direction, "msg": message}, ensure_ascii=False)
            with self.lock:
                self.file.write(line + "\n")
                self.file.flush()

        return write


def pump(source: BinaryIO, target: BinaryIO, frames: FrameReader) -> None:
    """Copy ``source`` to ``target`` as it comes (forwarded first, logged after), until EOF."""
    while True:
        data = os.read(source.fileno(), CHUNK)
        if not data:
            break
        try:
            target.write(data)
            target.flush()
        except (BrokenPipeError, ValueError):
            break
        frames.feed(data)
    with contextlib.suppress(BrokenPipeError, ValueError):
        target.close()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[0] != "--log" or argv[2] != "--":
        print("usage: python -m bench.tools.lsp_tee --log FILE -- COMMAND [ARGS…]", file=sys.stderr)
        return 2
    log = MessageLog(argv[1])
    child = subprocess.Popen(argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    upstream = threading.Thread(
        target=pump, args=(sys.stdin.buffer, child.stdin, FrameReader(log.writer("c2s"))), daemon=True
    )
    upstream.start()
    pump(child.stdout, sys.stdout.buffer, FrameReader(log.writer("s2c")))
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
