"""Analysis jobs: what runs on the worker threads.

A ``Job`` is immutable (an open document's snapshot, or a file on disk, plus the configuration,
the repository and the position encoding). ``run_job`` syncs the repository's pending facts,
calls the core pipeline and converts the findings; it never touches the protocol.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ...config.model import Config
from ...memory.collector import settle
from ...memory.gc_pause import gc_paused
from ...text.line_index import Encoding, LineIndex
from ..session.documents import NO_EDIT, Edit, Snapshot
from ..session.other_files import OpenLookup, uri_and_lines
from ..session.workspace_index import RepoState
from .convert import DiagnosticMemo, Digest, Fingerprint, Reuse, digest, fingerprint

if TYPE_CHECKING:  # the analysis core is imported by the first analysis, not at start-up
    from ...analysis import Analysis
    from ...contracts.case_cache import CaseCache
    from ...parser.tree import ParseResult
    from ...workspace.files import FileText
    from .encoded import ReportPart

logger = logging.getLogger(__name__)

INTERNAL_ERROR_CODE = "internal-error"


@dataclass(frozen=True, slots=True)
class Job:
    uri: str
    path: Path | None
    snapshot: Snapshot | None  # None: read ``path`` from disk
    repo: RepoState | None
    config: Config
    encoding: Encoding
    key: tuple[int, ...]  # what the result depends on besides the text (generations)
    related_support: bool = True
    use_workflow_index: bool = False
    case_cache: CaseCache | None = None  # the document's: findings of unchanged cases are reused
    tree: ParseResult | None = None  # the parse of exactly this text, when an earlier analysis has it
    prev_tree: ParseResult | None = None  # or the parse of an earlier version and the edit since then
    edit: Edit | None = None
    # The diagnostics of the result ``tree``/``prev_tree`` came from, by finding, for reuse.
    prev_memo: DiagnosticMemo | None = None
    # Called on the worker with the parsed tree (no findings) before the rules run (``analyze``).
    on_parsed: Callable[[Analysis], None] | None = None

    @property
    def version(self) -> int | None:
        return self.snapshot.version if self.snapshot is not None else None

    @property
    def revision(self) -> int | None:
        return self.snapshot.revision if self.snapshot is not None else None


@dataclass(slots=True)
class Result:
    uri: str
    path: Path | None
    version: int | None
    key: tuple[int, ...]
    text: str
    kind: str
    diagnostics: Sequence[types.Diagnostic]  # a list, or a closed file's ``KeptDiagnostics``
    fingerprint: Fingerprint
    analysis: Analysis | None = None  # the core's (tree, findings, workflow) for other features
    affected: set[Path] = field(default_factory=set)  # other fixture files to re-check
    revision: int | None = None  # the snapshot (exact text) it was computed from; None: disk
    memo: DiagnosticMemo | None = None  # its diagnostics by finding, for the next result's reuse
    # The runs of ``diagnostics`` the report is joined from (cached cases' pieces), when it has them.
    parts: list[ReportPart] | None = None
    # Computed before the repository's workflow index was loaded: no cross-file finding yet.
    index_deferred: bool = False
    # The digest of the findings once ``fingerprint`` was dropped (``disk_results.kept_form``).
    findings: Digest | None = None

    def findings_digest(self) -> Digest:
        """What result ids and "already pushed" are decided on (``convert.digest``)."""
        return self.findings if self.findings is not None else digest(self.fingerprint)

    def is_for(self, snapshot: Snapshot | None) -> bool:
        """Computed from this very text (a version number alone can be reused)."""
        return snapshot is not None and self.revision == snapshot.revision


def run_job(job: Job, open_lookup: OpenLookup) -> Result:
    """Analyse one document; never raises (a failure becomes one diagnostic and a log entry)."""
    repo = job.repo
    # The collector is paused for the whole job and what the job built is frozen before it
    # resumes: a job on a 10 MB suite allocates about a million objects, and collections
    # triggered by them would walk every tree the server keeps (seconds per job, measured).
    with gc_paused():
        try:
            if repo is None:
                return _analyze(job, open_lookup, set(), index_deferred=False)
            # An open document is not held back by the first load of the workflow index (issue
            # 30: a monorepo's 12,000 files, seconds): its first findings come without the
            # cross-file rules, and the job runner loads the index and has it checked again.
            # A closed file (a scan, workspace/diagnostic) waits for the index, off the lock.
            deferred = job.snapshot is not None and not repo.index_loaded
            if job.use_workflow_index and not deferred:
                repo.ensure_index()
            with repo.lock:
                affected = {repo.root / rel for rel in repo.sync()}
                return _analyze(job, open_lookup, affected, index_deferred=deferred)
        finally:
            settle()


def sync_repo(repo: RepoState) -> set[Path]:
    """Apply a repository's pending facts; the fixture files whose findings may have changed."""
    with repo.lock:
        return {repo.root / rel for rel in repo.sync()}


def _decided_by(job: Job) -> str | None:
    mapping = job.config.mapping_for(job.path)
    return mapping.origin if mapping is not None else None


def _job_text(job: Job) -> tuple[str, FileText | None]:
    """The text to analyse: the snapshot's, or the file's as read from disk (with how it was read,
    which the analysis reports on: encoding, size)."""
    if job.snapshot is not None:
        return job.snapshot.text, None
    from ...workspace.files import read_file

    assert job.path is not None
    file_text = read_file(job.path, job.repo.root if job.repo is not None else None)
    return file_text.text, file_text


def _analyze(job: Job, open_lookup: OpenLookup, affected: set[Path], *, index_deferred: bool) -> Result:
    from ...analysis import analyze
    from .case_blocks import Conversion, convert_findings, placed_diagnostics

    text, file_text = _job_text(job)
    repo = job.repo
    try:
        index = repo.workflow_index() if repo is not None and not index_deferred else None
        analysis = analyze(
            text,
            path=job.path,
            repo_root=repo.root if repo else None,
            fs=repo.fs if repo else None,
            workspace=index,
            explicit=job.snapshot is not None,
            kind=job.config.kind_for(job.path),
            walk=job.config.walk,
            decided_by=_decided_by(job),
            file_text=file_text,
            tree=job.tree if job.tree is not None else _reparsed(job, text),
            case_cache=job.case_cache,
            recover=job.snapshot is not None,  # an open buffer keeps its intact parts' findings
            on_parsed=job.on_parsed,
        )
        line_index = job.snapshot.line_index if job.snapshot is not None else LineIndex(text)
        memo = DiagnosticMemo(line_index.line_count) if job.snapshot is not None else None
        reuse = _reuse(job)
        conversion = Conversion(
            line_index,
            job.encoding,
            repo.root if repo else None,
            job.uri,
            job.related_support,
            related_resolver(open_lookup, repo.root if repo else None),
        )
        if analysis.placed is not None and memo is not None and not job.config.severity:
            # Cached cases as blocks: converted, printed and encoded per case (case_diagnostics.py).
            report = placed_diagnostics(analysis.placed.pieces, conversion, reuse, memo)
            diagnostics, prints, parts = report.diagnostics, report.fingerprint, report.parts
        else:
            findings = job.config.apply(analysis.findings)
            diagnostics = convert_findings(findings, conversion, reuse, memo)
            prints = fingerprint(diagnostics, memo, job.prev_memo if reuse is not None else None)
            parts = None
    except Exception as exc:
        logger.error("analysis of %s failed:\n%s", job.uri, traceback.format_exc())
        return _failed(job, text, affected, exc)
    return Result(
        job.uri,
        job.path,
        job.version,
        job.key,
        text,
        analysis.kind,
        diagnostics,
        prints,
        analysis=analysis,
        affected=affected,
        revision=job.revision,
        memo=memo,
        parts=parts,
        index_deferred=index_deferred and job.use_workflow_index,
    )


def _failed(job: Job, text: str, affected: set[Path], exc: Exception) -> Result:
    """The result of an analysis that raised: one diagnostic saying so (the server keeps going)."""
    diagnostics = [_internal_error_diagnostic(exc)]
    return Result(
        job.uri, job.path, job.version, job.key, text, "unknown", diagnostics, fingerprint(diagnostics),
        affected=affected, revision=job.revision,
    )  # fmt: skip


def _reuse(job: Job) -> Reuse | None:
    """What the conversion may take from the previous result: its memo, and the edit since (none
    when the text is the same)."""
    if job.prev_memo is None:
        return None
    if job.tree is not None:
        return Reuse(job.prev_memo, NO_EDIT)
    return Reuse(job.prev_memo, job.edit) if job.edit is not None and job.prev_tree is not None else None


def _reparsed(job: Job, text: str) -> ParseResult | None:
    """The parse of ``text`` rebuilt from the previous version's around the edit (only the
    innermost value holding the edit is parsed again), or None to parse from scratch."""
    prev, edit = job.prev_tree, job.edit
    if prev is None or edit is None or len(prev.text) + edit.new_end - edit.old_end != len(text):
        return None
    from ...parser.incremental import reparse

    return reparse(prev, text, edit.start, edit.old_end)


def related_resolver(
    open_lookup: OpenLookup, repo_root: Path | None
) -> Callable[[Path], tuple[str, LineIndex] | None]:
    """(uri, line index) of the file a related location names (``uri_and_lines``), once per path."""
    cache: dict[Path, tuple[str, LineIndex] | None] = {}

    def resolve(path: Path) -> tuple[str, LineIndex] | None:
        path = path.absolute()
        if path not in cache:
            cache[path] = uri_and_lines(path, repo_root, open_lookup)
        return cache[path]

    return resolve


def _internal_error_diagnostic(exc: BaseException) -> types.Diagnostic:
    """Shown instead of stale results when the analysis itself failed (a bug, not a finding)."""
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        severity=types.DiagnosticSeverity.Warning,
        code=INTERNAL_ERROR_CODE,
        source="evalfix-ls",
        message=f"evalfix-ls could not analyse this document ({type(exc).__name__}: {exc}); "
        "details are in the language server log",
    )
