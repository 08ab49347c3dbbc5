"""Reading fixture files the way the reference tools do.

Node's ``readFile(path, "utf-8")`` never fails on bad bytes: each invalid sequence becomes U+FFFD and a
BOM is kept (so ``JSON.parse`` then rejects it). We decode the same way and remember where the first
replacement happened, so the finding can point at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 50 * 1024 * 1024  # larger files are not analysed (one warning instead)


@dataclass(frozen=True, slots=True)
class FileText:
    """The decoded text of a file, or why there is none."""

    text: str
    replaced_at: int | None = None  # offset of the first U+FFFD produced by decoding
    too_large: bool = False
    error: str | None = None  # OS error text when the file could not be read


def decode_bytes(data: bytes) -> FileText:
    try:
        text = data.decode("utf-8")
        replaced_at = None
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        replaced_at = len(data[: exc.start].decode("utf-8", errors="replace"))
    return FileText(text, replaced_at)


def read_file(path: Path) -> FileText:
    """Read ``path`` like Node's ``readFile(…, "utf-8")``; never raises."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return FileText("", too_large=True)
        data = path.read_bytes()
    except OSError as exc:
        return FileText("", error=exc.strerror or str(exc))
    if len(data) > MAX_FILE_BYTES:
        return FileText("", too_large=True)
    return decode_bytes(data)
