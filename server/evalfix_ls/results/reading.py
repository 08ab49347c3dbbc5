"""Reading the producers' JSON files: confined to the repository, capped in size, tolerant.

* Confined: every path goes through ``workspace/confine.py`` first, so a link in a results tree
  leading out of the repository is never followed (``benchmark.json``'s absolute paths are never
  used at all: the tree is rebuilt from where the file sits, A.7).
* Capped: ``grading.json`` of a 100-assertion case is ~40 KB; 8 MB is 200× that. A file over its
  cap is not read (``trace.json``, 100 MB is normal, is never opened at all).
* Tolerant: the producers write without renaming into place (A.6, B.7), so a file caught half
  written does not parse. That is "not yet", never an error: ``NOT_YET`` is returned, and the
  caller retries when the file changes (a file event, or the poll's mtime).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..workspace.confine import resolve_within
from ..workspace.files import NotRegularFile, TooLarge, read_regular

GRADING_LIMIT = 8 * 1024 * 1024
SMALL_LIMIT = 1024 * 1024  # timing.json, eval_metadata.json: a few hundred bytes each
BENCHMARK_LIMIT = 16 * 1024 * 1024  # 100 cases × two variants' absolute paths: ~300 KB


class _NotYet:
    """A file that exists but does not hold a complete JSON document (yet)."""

    def __repr__(self) -> str:
        return "NOT_YET"


NOT_YET = _NotYet()


_READS = [0]  # result files opened: the tests count them (a keystroke opens none)


def reads_so_far() -> int:
    """Result files opened by this process so far (tests and the benchmark read it)."""
    return _READS[0]


def confined(path: Path, root: Path) -> Path | None:
    """``path`` as it really leads, when that stays inside ``root``; else None."""
    resolved = resolve_within(path, root)
    return Path(resolved) if resolved is not None else None


def read_json(path: Path, root: Path, limit: int = SMALL_LIMIT) -> object:
    """The JSON value in ``path``; None when it is missing, outside ``root``, not a regular file or
    over ``limit``; ``NOT_YET`` when it exists but does not parse (half written, or corrupt)."""
    target = confined(path, root)
    if target is None:
        return None
    try:
        data = read_regular(target, limit)
    except (NotRegularFile, TooLarge, OSError, ValueError):
        return None
    _READS[0] += 1
    try:
        return json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return NOT_YET


def is_dir(path: Path, root: Path) -> Path | None:
    """``path`` resolved inside ``root`` when it is a directory there, else None."""
    target = confined(path, root)
    return target if target is not None and target.is_dir() else None


def child_dirs(path: Path, root: Path) -> list[tuple[str, Path]]:
    """``(name, real path)`` of the subdirectories of ``path`` that stay inside ``root`` (a link
    to a directory outside is skipped), in name order."""
    out = []
    try:
        entries = list(os.scandir(path))
    except OSError:
        return []
    for entry in entries:
        try:
            if entry.is_symlink():
                target = confined(Path(entry.path), root)
                if target is not None and target.is_dir():
                    out.append((entry.name, target))
            elif entry.is_dir(follow_symlinks=False):
                out.append((entry.name, Path(entry.path)))
        except OSError:
            continue
    out.sort()
    return out


def mtime_of(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0
