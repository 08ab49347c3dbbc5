"""Finding the project file (``.evalfix.toml``, or ``pyproject.toml`` with ``[tool.evalfix]``) and
reading it: a regular file inside its repository only, bounded, as TOML."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

PROJECT_FILE = ".evalfix.toml"
PYPROJECT = "pyproject.toml"
MAX_PROJECT_FILE_BYTES = 1 << 20  # a project file is a few lines; more is not read


def _load_toml(path: Path | str) -> dict[str, object]:
    return parse_toml(read_project_text(path))


def parse_toml(text: str) -> dict[str, object]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        # tomli is installed on 3.10 only: an environment on a later Python has no stubs for it
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    try:
        table: dict[str, object] = tomllib.loads(text)
    except RecursionError:  # tomllib recurses once per nesting level; a hostile file nests deeper
        raise ValueError("nested too deeply to read") from None
    return table


def tool_evalfix(pyproject: Mapping[str, object]) -> object:
    """A pyproject's ``[tool.evalfix]`` as written, None when absent (a ``tool`` that is not a table
    is someone else's mistake, not ours to report)."""
    tool = pyproject.get("tool")
    return tool.get("evalfix") if isinstance(tool, Mapping) else None


def read_project_text(path: Path | str) -> str:
    """The text of a project file: a regular file only (a FIFO swapped in would block), bounded.
    Raises OSError (or ValueError) when it cannot be read."""
    from ..workspace.files import NotRegularFile, TooLarge, read_regular

    try:
        return read_regular(path, MAX_PROJECT_FILE_BYTES).decode("utf-8", errors="replace")
    except NotRegularFile as exc:
        raise OSError(f"not a regular file ({exc.what})") from None
    except TooLarge:
        raise OSError(f"larger than {MAX_PROJECT_FILE_BYTES} bytes") from None


def project_repository(directory: Path) -> Path:
    """The repository a project file in ``directory`` belongs to, which it may not reach out of
    (neither by being a symbolic link nor with ``root``): the nearest ancestor holding ``.git``
    (where the search for project files stops), else ``directory`` itself."""
    from ..workspace.walk import default_root

    return default_root(directory)


def confined(path: Path) -> str | None:
    """Where the project file ``path`` really is when that is inside its repository, else None
    (a link leading out of it: nothing outside is looked at, so the target's existence cannot
    change what evalfix-ls does or says)."""
    from ..workspace.confine import resolve_within

    return resolve_within(path, project_repository(path.parent))


def _candidate(path: Path) -> str | None:
    """``"file"`` for a regular project file inside the repository, ``"outside"`` for a name that
    leads out of it (reported when loaded), None when there is no usable file."""
    if not os.path.lexists(path):  # lstat: the name itself, never a link's target
        return None
    resolved = confined(path)
    if resolved is None:
        return "outside"
    return "file" if os.path.isfile(resolved) else None


def find_project_file(start: Path) -> Path | None:
    """The nearest ``.evalfix.toml``, or ``pyproject.toml`` holding ``[tool.evalfix]``, at or above
    ``start``; the search stops after the first directory that holds ``.git``. A project file that
    is a symbolic link leading out of the repository is returned unread (``load_project_file``
    reports and ignores it)."""
    start = start.absolute()
    if start.is_file():
        start = start.parent
    for directory in (start, *start.parents):
        found, last = project_file_here(directory)
        if found is not None or last:
            return found
    return None


def project_file_here(directory: Path) -> tuple[Path | None, bool]:
    """``find_project_file``'s look at one directory: the project file it holds, and whether the
    search ends here (a file found, or ``.git``). Callers that remember each directory's answer
    (``ProjectConfigs``) ask a directory's parent once for all its children: the fixture files
    of 10,000 skills asked ``skills/`` and the root again for each skill (60,000 of the 120,000
    ``lstat``/``stat`` calls, on the event loop, of the first ``workspace/diagnostic``)."""
    candidate = directory / PROJECT_FILE
    if _candidate(candidate) is not None:
        return candidate, True
    pyproject = directory / PYPROJECT
    found = _candidate(pyproject)
    if found == "outside" or found == "file" and _has_tool_table(pyproject):
        return pyproject, True
    return None, (directory / ".git").exists() or directory.parent == directory


def _has_tool_table(pyproject: Path) -> bool:
    try:
        # Cheap textual pre-check before parsing: most pyproject files have no such table.
        if "evalfix" not in read_project_text(pyproject):
            return False
        return isinstance(tool_evalfix(_load_toml(pyproject)), Mapping)
    except (OSError, ValueError):
        return False
