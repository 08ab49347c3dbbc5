"""One settings table (a project file's TOML, the client's JSON) checked into a ``Config``: unknown
keys and invalid values become problems, never errors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TypedDict

from ..contracts.detection import EVALS, UNKNOWN, WORKFLOW, Walk
from ..findings import Severity
from ..workspace.glob_match import PathGlob
from .model import MAX_DEBOUNCE_MS, Config, FileMapping

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


def _norm_key(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


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
    result_roots: tuple[Path, ...]
    result_diagnostics: Severity | None


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
        elif key == "evals":
            _parse_evals(value, base_dir, where, problems, changes)
        else:
            problems.append(f"{where}: unknown setting (ignored)")
    explicit = frozenset(changes) - {"files", "severity"}
    return replace(config, problems=tuple(problems), explicit=explicit, **changes)


def _parse_evals(
    value: object, base_dir: Path, where: str, problems: list[str], changes: _SettingChanges
) -> None:
    """``[evals]``: ``results`` (a path or a list of paths: extra run-result roots, as given to
    arc-skill-eval's ``--output-dir``) and ``resultDiagnostics`` (a severity, or ``off``)."""
    if not isinstance(value, Mapping):
        problems.append(f"{where}: expected a table, e.g. {{results = ['evals-out']}}")
        return
    for raw_key, item in value.items():
        key = _norm_key(str(raw_key))
        if key == "results":
            paths = [item] if isinstance(item, str) else item
            if isinstance(paths, list) and all(isinstance(p, str) and p.strip() for p in paths):
                changes["result_roots"] = tuple((base_dir / Path(p).expanduser()).absolute() for p in paths)
            else:
                problems.append(f"{where}.{raw_key}: expected a path or a list of paths")
        elif key == "resultdiagnostics":
            if isinstance(item, str) and item.strip().lower() in (OFF, "none"):
                changes["result_diagnostics"] = None
                continue
            try:
                changes["result_diagnostics"] = Severity.from_word(item)
            except (KeyError, AttributeError):
                problems.append(f"{where}.{raw_key}: expected error, warning, information, hint or off")
        else:
            problems.append(f"{where}.{raw_key}: unknown setting (ignored)")


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
    from difflib import get_close_matches  # lazily: not needed before ``initialize``

    from ..contracts.codes import ALL_CODES  # lazily: the registry loads the schemas (start-up)

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
