"""A project file's ``Config``: its settings with the line each contract decision is written on,
its ``root`` kept inside its repository; and the cache of the configuration of each directory."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from ..contracts.detection import Walk
from ..text.line_index import text_lines
from .model import Config, FileMapping
from .parse import parse_settings
from .project_files import (
    PYPROJECT,
    confined,
    parse_toml,
    project_file_here,
    project_repository,
    read_project_text,
    tool_evalfix,
)


def load_project_file(path: Path) -> Config:
    """The configuration in one project file (relative paths are based at its directory). A file
    that is a link leading out of its repository is not read, and a ``root`` outside the
    repository is ignored: ``--check`` runs on repositories nobody vetted (workspace/confine.py)."""
    origin = str(path)
    resolved = confined(path)
    if resolved is None:
        problem = f"{origin}: a symbolic link leading outside the repository; not read, ignored"
        return Config(problems=(problem,), sources=(origin,))
    try:
        text = read_project_text(resolved)
        data = parse_toml(text)
    except (OSError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
        return Config(problems=(f"{origin}: cannot read: {exc}",), sources=(origin,))
    settings: object = data
    if path.name == PYPROJECT:
        settings = tool_evalfix(data)
        origin = f"{origin} [tool.evalfix]"
    config = parse_settings(settings, base_dir=path.parent, origin=origin)
    return _root_confined(_with_lines(config, text, path), path, origin)


def _with_lines(config: Config, text: str, path: Path) -> Config:
    """``config`` with each contract decision pointing at its line (``.evalfix.toml:4``), which
    the editor and ``--format json`` show as what decided a file's contract."""
    where = Path(os.path.relpath(path, project_repository(path.parent))).as_posix()
    lines = text_lines(text)  # as the editor counts them (not at U+2028 or U+0085)

    def line_of(pattern: re.Pattern[str]) -> str | None:
        found = next((n for n, line in enumerate(lines, 1) if pattern.search(line)), None)
        return f"{where}:{found}" if found is not None else None

    def mapping_line(mapping: FileMapping) -> str:
        quoted = r"""^\s*["']""" + re.escape(mapping.pattern) + r"""["']\s*="""
        return line_of(re.compile(quoted)) or where

    files = tuple(replace(mapping, origin=mapping_line(mapping)) for mapping in config.files)
    walk = config.walk
    if walk is not None:
        walk = Walk(walk.walking, line_of(re.compile(r"^\s*workflow[-_]?walk\s*=", re.IGNORECASE)) or where)
    return replace(config, files=files, walk=walk)


def _root_confined(config: Config, path: Path, origin: str) -> Config:
    """``config`` without a ``root`` that leaves the project file's repository: such a root would
    widen what evalfix-ls may read and test (``root = "/"``) to the whole machine."""
    from ..workspace.confine import resolve_within

    if config.root is None or resolve_within(config.root, project_repository(path.parent)) is not None:
        return config
    problem = (
        f"{origin}: root: {config.root} lies outside the repository holding this file; ignored "
        "(a project file may only narrow the root; give --root for another one)"
    )
    return replace(
        config, root=None, explicit=config.explicit - {"root"}, problems=(*config.problems, problem)
    )


class ProjectConfigs:
    """The project configuration of each file: the project file nearest to the file's directory
    (as the language server does for every document), each file read once."""

    def __init__(self) -> None:
        self._found: dict[Path, Path | None] = {}
        self._loaded: dict[Path | None, Config] = {}

    def project_file(self, directory: Path) -> Path | None:
        """``find_project_file(directory)``, each directory on the way up looked at once."""
        directory = directory.absolute()
        below: list[Path] = []  # directories that defer to their parent's answer
        level = directory
        while level not in self._found:
            here, last = project_file_here(level)
            if here is not None or last:
                self._found[level] = here
                break
            below.append(level)
            level = level.parent
        found = self._found[level]
        for deferring in below:
            self._found[deferring] = found
        return found

    def load(self, project_file: Path | None) -> Config:
        config = self._loaded.get(project_file)
        if config is None:
            config = Config() if project_file is None else Config().merged(load_project_file(project_file))
            self._loaded[project_file] = config
        return config

    def for_directory(self, directory: Path) -> Config:
        return self.load(self.project_file(directory))

    def for_path(self, path: Path) -> Config:
        return self.for_directory(path.absolute().parent)

    def problems(self) -> list[str]:
        """Every problem of every project file read so far, once each."""
        return list(dict.fromkeys(problem for config in self._loaded.values() for problem in config.problems))
