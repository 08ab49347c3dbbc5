"""Reading fixture files the way the reference tools do — and only the files it is safe to read.

Node's ``readFile(path, "utf-8")`` never fails on bad bytes: each invalid sequence becomes U+FFFD and a
BOM is kept (so ``JSON.parse`` then rejects it). We decode the same way and remember where the first
replacement happened, so the finding can point at it.

Unlike Node, we read only regular files, and only inside the repository root when one is given:
a named pipe would block (``--check`` until it is killed, the server's workers for good), a link to
``/dev/zero`` would never end, ``/dev/stdin`` is the server's own LSP input, and a link to a file
outside the repository would put the runner's files into published output. Anything else is not
opened, and the ``FileText`` says what it is.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .confine import resolve_within

MAX_FILE_BYTES = 50 * 1024 * 1024  # larger files are not analysed (one warning instead)
_CHUNK = 1 << 20

_FILE_TYPES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True, slots=True)
class FileText:
    """The decoded text of a file, or why there is none."""

    text: str
    replaced_at: int | None = None  # offset of the first U+FFFD produced by decoding
    too_large: bool = False
    error: str | None = None  # OS error text when the file could not be read
    not_regular: str | None = None  # what the path is instead of a regular file ("a named pipe (FIFO)")
    outside: bool = False  # the path resolves outside the repository root: not read

    @property
    def unavailable(self) -> bool:
        """True when there is no text to analyse."""
        return self.too_large or self.outside or self.error is not None or self.not_regular is not None


class NotRegularFile(Exception):
    """The path exists but is not a regular file; ``what`` says what it is."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class TooLarge(Exception):
    """The file holds more than the limit."""


def file_stamp(path: Path) -> tuple[int, int]:
    """(modification time in ns, size) of ``path``, links followed; ``(0, -1)`` when it cannot
    be stat'ed: what caches of a file's content compare to know it is unchanged."""
    try:
        info = os.stat(path)
    except OSError:
        return (0, -1)
    return (info.st_mtime_ns, info.st_size)


def file_type(mode: int) -> str:
    return next((what for test, what in _FILE_TYPES if test(mode)), "not a regular file")


def read_regular(path: str | Path, limit: int, *, head: bool = False) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (with ``head``, the first
    ``limit`` bytes of a larger file; else a larger file raises ``TooLarge``).

    Checked before opening (so a FIFO is never opened), opened non-blocking (so one swapped in
    meanwhile cannot block either) and checked again on the open descriptor; never more than
    ``limit`` + 1 bytes are read. Raises ``NotRegularFile``, ``TooLarge`` or ``OSError``."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(file_type(mode))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(file_type(info.st_mode))
        if info.st_size > limit and not head:
            raise TooLarge()
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        if not head:
            raise TooLarge()
        return b"".join(chunks)[:limit]
    return b"".join(chunks)


def decode_bytes(data: bytes) -> FileText:
    try:
        text = data.decode("utf-8")
        replaced_at = None
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        replaced_at = len(data[: exc.start].decode("utf-8", errors="replace"))
    return FileText(text, replaced_at)


def read_file(path: Path, root: Path | None = None) -> FileText:
    """Read ``path`` like Node's ``readFile(…, "utf-8")``; never raises, never blocks.

    With a repository ``root``, a path that resolves outside it (through ``..`` or a symbolic
    link) is not read at all."""
    target: str | Path = path
    if root is not None:
        resolved = resolve_within(path, root)
        if resolved is None:
            return FileText("", outside=True)
        target = resolved
    try:
        data = read_regular(target, MAX_FILE_BYTES)
    except NotRegularFile as exc:
        return FileText("", not_regular=exc.what)
    except TooLarge:
        return FileText("", too_large=True)
    except (OSError, ValueError) as exc:
        return FileText("", error=getattr(exc, "strerror", None) or str(exc))
    return decode_bytes(data)
