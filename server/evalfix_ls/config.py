"""Configuration shared by the language server and ``evalfix-ls --check``.

Sources, from weakest to strongest (a later source overrides an earlier one key by key; ``files``
and ``severity`` entries are merged by glob / code):

1. built-in defaults;
2. the project file: the nearest ``.evalfix.toml`` (top-level keys) or ``pyproject.toml`` with a
   ``[tool.evalfix]`` table, searched from the starting directory upwards and not above the first
   directory that holds ``.git``;
3. (server only) the client's ``initializationOptions``;
4. (server only) the client's ``workspace/configuration`` section ``evalfix``.

Key names are matched ignoring case, ``_`` and ``-``: ``debounceMs``, ``debounce_ms`` and
``debounce-ms`` are the same key, so TOML and editor settings can each use their own style.
Invalid entries never abort: they are skipped and described in ``Config.problems``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from pathlib import Path
from types import MappingProxyType
from typing import TypedDict

from .contracts.detection import EVALS, UNKNOWN, WORKFLOW, Walk
from .findings import Finding, Severity
from .parser.line_index import text_lines
from .workspace.glob_match import PathGlob

PROJECT_FILE = ".evalfix.toml"
PYPROJECT = "pyproject.toml"

# Words accepted for a contract kind in ``files`` mappings. "none" excludes matching files.
KIND_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "evals": EVALS,
        "evals-json": EVALS,
        "eval-suite": EVALS,
        "workflow": WORKFLOW,
        "workflow-fixture": WORKFLOW,
        "none": UNKNOWN,
        "ignore": UNKNOWN,
        "off": UNKNOWN,
    }
)
OFF = "off"  # a severity override that drops the finding
DEFAULT_DEBOUNCE_MS = 60
MAX_DEBOUNCE_MS = 2000


def _norm_key(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


@dataclass(frozen=True, slots=True)
class FileMapping:
    """``pattern`` (a glob relative to ``base``) forces contract ``kind`` on matching files."""

    pattern: str
    kind: str
    base: Path
    glob: PathGlob = field(compare=False, repr=False)
    origin: str | None = field(default=None, compare=False)  # where it is written (".evalfix.toml:4")

    def matches(self, path: Path) -> bool:
        try:
            rel = path.absolute().relative_to(self.base).as_posix()
        except ValueError:
            return False
        return self.glob.matches(rel)


@dataclass(frozen=True, slots=True)
class Config:
    """The effective configuration for a set of files (one workspace folder, or one ``--check``)."""

    files: tuple[FileMapping, ...] = ()
    severity: Mapping[str, Severity | None] = field(default_factory=lambda: MappingProxyType({}))
    root: Path | None = None
    workspace_diagnostics: bool = True
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    inlay_hints: bool = True  # server only: inherited values and loader defaults as inlay hints
    code_lens: bool = True  # server only: readiness and run-this-case lenses
    walk: Walk | None = None  # ``workflow_walk``: forces spec-first's fixture walk on or off
    problems: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # where the settings came from, for logs
    explicit: frozenset[str] = frozenset()  # scalar keys this layer sets (they win when merged)

    def kind_for(self, path: Path | None) -> str | None:
        """The contract forced on ``path`` by a ``files`` mapping, or None to detect it."""
        mapping = self.mapping_for(path)
        return mapping.kind if mapping is not None else None

    def mapping_for(self, path: Path | None) -> FileMapping | None:
        """The ``files`` mapping that decides ``path``'s contract, if any."""
        if path is None:
            return None
        return next((mapping for mapping in self.files if mapping.matches(path)), None)

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """Findings with the severity overrides applied; ``"off"`` codes are dropped."""
        if not self.severity:
            return list(findings)
        out = []
        for finding in findings:
            if finding.code in self.severity:
                override = self.severity[finding.code]
                if override is None:
                    continue
                if override != finding.severity:
                    finding = finding.with_severity(override)
            out.append(finding)
        return out

    def merged(self, other: Config) -> Config:
        """``other`` layered over ``self`` (``other`` wins)."""
        other_patterns = {(m.base, m.pattern) for m in other.files}
        files = other.files + tuple(m for m in self.files if (m.base, m.pattern) not in other_patterns)
        severity = {**self.severity, **other.severity}
        scalars = {
            name: getattr(other if name in other.explicit else self, name)
            for name in ("root", "workspace_diagnostics", "debounce_ms", "inlay_hints", "code_lens", "walk")
        }
        return Config(
            files=files,
            severity=MappingProxyType(severity),
            problems=self.problems + other.problems,
            sources=self.sources + other.sources,
            explicit=self.explicit | other.explicit,
            **scalars,
        )

    def extra_files(self, directory: Path) -> Iterator[Path]:
        """Files below ``directory`` that a ``files`` mapping assigns to a contract (not to "none"),
        skipping the directories the fixture walk skips."""
        wanted = [m for m in self.files if m.kind != UNKNOWN]
        if not wanted:
            return
        from .workspace.walk import SKIPPED_DIRS, walk_directories

        for dirpath, dirnames, filenames in walk_directories(directory):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if any(m.matches(path) for m in wanted):
                    yield path


# -- parsing ---------------------------------------------------------------------------------------


class _SettingChanges(TypedDict, total=False):
    """The ``Config`` fields one settings mapping sets (named as ``Config`` names them)."""

    files: tuple[FileMapping, ...]
    severity: Mapping[str, Severity | None]
    root: Path
    workspace_diagnostics: bool
    inlay_hints: bool
    code_lens: bool
    walk: Walk
    debounce_ms: int


def parse_settings(data: object, *, base_dir: Path, origin: str) -> Config:
    """A ``Config`` from a settings mapping (a TOML table, LSP settings). Unknown keys and invalid
    values are reported in ``problems`` and otherwise ignored; keys not present keep defaults."""
    config = Config(sources=(origin,))
    if data is None:
        return config
    if not isinstance(data, Mapping):
        problem = f"{origin}: settings must be a table/object, not {type(data).__name__}"
        return replace(config, problems=(problem,))
    problems: list[str] = []
    changes: _SettingChanges = {}
    for raw_key, value in data.items():
        key = _norm_key(str(raw_key))
        where = f"{origin}: {raw_key}"
        if key == "files":
            changes["files"] = tuple(_parse_files(value, base_dir, where, problems))
        elif key == "severity":
            changes["severity"] = MappingProxyType(dict(_parse_severity(value, where, problems)))
        elif key == "root":
            if isinstance(value, str) and value.strip():
                changes["root"] = (base_dir / Path(value).expanduser()).absolute()
            elif value is not None:
                problems.append(f"{where}: expected a path string")
        elif key == "workspacediagnostics":
            if isinstance(value, bool):
                changes["workspace_diagnostics"] = value
            else:
                problems.append(f"{where}: expected true or false")
        elif key in ("inlayhints", "codelens"):
            enabled = value.get("enable") if isinstance(value, Mapping) else value
            if isinstance(enabled, bool):
                if key == "inlayhints":
                    changes["inlay_hints"] = enabled
                else:
                    changes["code_lens"] = enabled
            else:
                problems.append(f"{where}: expected true or false (or {{enable = true|false}})")
        elif key == "workflowwalk":
            if isinstance(value, bool):
                changes["walk"] = Walk(value, f"{origin}: {raw_key}")
            else:
                problems.append(f"{where}: expected true or false")
        elif key == "debouncems":
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_DEBOUNCE_MS:
                changes["debounce_ms"] = value
            else:
                problems.append(f"{where}: expected an integer between 0 and {MAX_DEBOUNCE_MS}")
        else:
            problems.append(f"{where}: unknown setting (ignored)")
    explicit = frozenset(changes) - {"files", "severity"}
    return replace(config, problems=tuple(problems), explicit=explicit, **changes)


def _parse_files(value: object, base_dir: Path, where: str, problems: list[str]) -> Iterator[FileMapping]:
    if not isinstance(value, Mapping):
        problems.append(f'{where}: expected a table of glob = kind, e.g. {{"fixtures/*.json" = "workflow"}}')
        return
    for pattern, kind_word in value.items():
        kind = KIND_WORDS.get(str(kind_word).strip().lower()) if isinstance(kind_word, str) else None
        if not isinstance(pattern, str) or not pattern.strip() or kind is None:
            problems.append(
                f"{where}.{pattern}: expected a non-empty glob mapped to one of "
                f"{', '.join(sorted(KIND_WORDS))} (got {kind_word!r})"
            )
            continue
        try:
            glob = PathGlob(pattern)
        except ValueError as invalid:
            problems.append(f"{where}.{pattern}: not a valid glob: {invalid}")
            continue
        yield FileMapping(pattern, kind, base_dir.absolute(), glob, f"{where}.{pattern}")


def _parse_severity(value: object, where: str, problems: list[str]) -> Iterator[tuple[str, Severity | None]]:
    if not isinstance(value, Mapping):
        problems.append(f'{where}: expected a table of code = severity, e.g. {{"id-not-kebab" = "off"}}')
        return
    from .contracts.codes import ALL_CODES  # lazily: the registry loads the schemas (start-up)

    for code, word in value.items():
        if str(code) not in ALL_CODES:
            near = get_close_matches(str(code), ALL_CODES, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            problems.append(f"{where}.{code}: not a finding code of evalfix-ls{hint}; ignored")
            continue
        if isinstance(word, str) and word.strip().lower() in (OFF, "none", "ignore"):
            yield str(code), None
            continue
        try:
            yield str(code), Severity.from_word(word)
        except (KeyError, AttributeError):
            problems.append(
                f"{where}.{code}: expected error, warning, information, hint or off (got {word!r})"
            )


# -- project files ---------------------------------------------------------------------------------


MAX_PROJECT_FILE_BYTES = 1 << 20  # a project file is a few lines; more is not read


def _load_toml(path: Path | str) -> dict[str, object]:
    return _parse_toml(_read_project_text(path))


def _parse_toml(text: str) -> dict[str, object]:
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


def _tool_evalfix(pyproject: Mapping[str, object]) -> object:
    """A pyproject's ``[tool.evalfix]`` as written, None when absent (a ``tool`` that is not a table
    is someone else's mistake, not ours to report)."""
    tool = pyproject.get("tool")
    return tool.get("evalfix") if isinstance(tool, Mapping) else None


def _read_project_text(path: Path | str) -> str:
    """The text of a project file: a regular file only (a FIFO swapped in would block), bounded.
    Raises OSError (or ValueError) when it cannot be read."""
    from .workspace.files import NotRegularFile, TooLarge, read_regular

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
    from .workspace.walk import default_root

    return default_root(directory)


def _confined(path: Path) -> str | None:
    """Where the project file ``path`` really is when that is inside its repository, else None
    (a link leading out of it: nothing outside is looked at, so the target's existence cannot
    change what evalfix-ls does or says)."""
    from .workspace.confine import resolve_within

    return resolve_within(path, project_repository(path.parent))


def _candidate(path: Path) -> str | None:
    """``"file"`` for a regular project file inside the repository, ``"outside"`` for a name that
    leads out of it (reported when loaded), None when there is no usable file."""
    if not os.path.lexists(path):  # lstat: the name itself, never a link's target
        return None
    resolved = _confined(path)
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
        candidate = directory / PROJECT_FILE
        if _candidate(candidate) is not None:
            return candidate
        pyproject = directory / PYPROJECT
        found = _candidate(pyproject)
        if found == "outside" or found == "file" and _has_tool_table(pyproject):
            return pyproject
        if (directory / ".git").exists():
            return None
    return None


def _has_tool_table(pyproject: Path) -> bool:
    try:
        # Cheap textual pre-check before parsing: most pyproject files have no such table.
        if "evalfix" not in _read_project_text(pyproject):
            return False
        return isinstance(_tool_evalfix(_load_toml(pyproject)), Mapping)
    except (OSError, ValueError):
        return False


def load_project_file(path: Path) -> Config:
    """The configuration in one project file (relative paths are based at its directory). A file
    that is a link leading out of its repository is not read, and a ``root`` outside the
    repository is ignored: ``--check`` runs on repositories nobody vetted (workspace/confine.py)."""
    origin = str(path)
    resolved = _confined(path)
    if resolved is None:
        problem = f"{origin}: a symbolic link leading outside the repository; not read, ignored"
        return Config(problems=(problem,), sources=(origin,))
    try:
        text = _read_project_text(resolved)
        data = _parse_toml(text)
    except (OSError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
        return Config(problems=(f"{origin}: cannot read: {exc}",), sources=(origin,))
    settings: object = data
    if path.name == PYPROJECT:
        settings = _tool_evalfix(data)
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
    from .workspace.confine import resolve_within

    if config.root is None or resolve_within(config.root, project_repository(path.parent)) is not None:
        return config
    problem = (
        f"{origin}: root: {config.root} lies outside the repository holding this file; ignored "
        "(a project file may only narrow the root; give --root for another one)"
    )
    return replace(
        config, root=None, explicit=config.explicit - {"root"}, problems=(*config.problems, problem)
    )


def load_project_config(start: Path) -> Config:
    """Defaults overlaid with the project file found from ``start`` (if any)."""
    found = find_project_file(start)
    if found is None:
        return Config()
    return Config().merged(load_project_file(found))


class ProjectConfigs:
    """The project configuration of each file: the project file nearest to the file's directory
    (as the language server does for every document), each file read once."""

    def __init__(self) -> None:
        self._found: dict[Path, Path | None] = {}
        self._loaded: dict[Path | None, Config] = {}

    def project_file(self, directory: Path) -> Path | None:
        directory = directory.absolute()
        if directory not in self._found:
            self._found[directory] = find_project_file(directory)
        return self._found[directory]

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
