"""The effective configuration: what each source's settings become, how the layers merge, and how
it applies (to a path's contract, to findings' severities, to the files to check)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from ..contracts.detection import UNKNOWN, Walk
from ..findings import Finding, Severity
from ..workspace.glob_match import PathGlob

DEFAULT_DEBOUNCE_MS = 60
MAX_DEBOUNCE_MS = 2000


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
    # ``[evals] results``: extra run-result roots (arc-skill-eval's ``--output-dir``), absolute
    result_roots: tuple[Path, ...] = ()
    # ``[evals] resultDiagnostics``: the severity of a failed assertion of the last run (None: off)
    result_diagnostics: Severity | None = Severity.INFORMATION
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
            for name in (
                "root",
                "workspace_diagnostics",
                "debounce_ms",
                "inlay_hints",
                "code_lens",
                "walk",
                "result_roots",
                "result_diagnostics",
            )  # fmt: skip
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
        from ..workspace.walk import SKIPPED_DIRS, walk_directories

        for dirpath, dirnames, filenames in walk_directories(directory):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if any(m.matches(path) for m in wanted):
                    yield path
