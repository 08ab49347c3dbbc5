"""Eval readiness per skill directory, as the repository's audit report scores it
(workflow-fixtures.md §11.1, §11.1a). A report, never diagnostics.

For every fixture file under ``skills/<dir>/evals/`` and every bucket (``trigger``, ``boundary``
required; ``failure``, ``expected`` optional), a case counts when it declares the bucket tag — or,
the legacy filename fallback, when the file's basename contains the bucket word — and the reference's
validation of the case (with the bucket tag added in the fallback case) finds no error at all.
Duplicate ids are not considered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from ...workspace.view import FileSystemView
from .index import WorkflowIndex
from .normalize import NormalizedCase
from .rules import MISSING_COVERAGE_TAGS, case_errors, readiness_buckets

REQUIRED_BUCKETS = ("trigger", "boundary")
DECLARED = "declared_coverage_tags"
FALLBACK = "legacy_filename_fallback"
_MISSING_WORDS = {
    "trigger": "trigger cases",
    "boundary": "boundary cases",
    "failure": "failure cases",
    "expected": "expected behavior",
}
# One skill directory's ``--check --readiness`` entry: each bucket's case count, ``status`` and
# ``fallback`` (the buckets counted through the filename fallback).
ReadinessSummary: TypeAlias = "dict[str, int | str | list[str]]"


@dataclass(slots=True)
class BucketCoverage:
    case_ids: list[str] = field(default_factory=list)
    coverage_basis: list[str] = field(default_factory=list)  # in order of first use
    declared_case_ids: list[str] = field(default_factory=list)  # those that need no fallback

    @property
    def present(self) -> bool:
        return bool(self.case_ids)

    @property
    def present_without_filename_fallback(self) -> bool:
        return bool(self.declared_case_ids)


@dataclass(slots=True)
class SkillReadiness:
    skill_dir: str  # the directory name under skills/
    files: list[str]
    cases: int
    buckets: dict[str, BucketCoverage]

    @property
    def readiness(self) -> str:
        if self.cases == 0:
            return "missing"
        return "ready" if all(self.buckets[name].present for name in REQUIRED_BUCKETS) else "partial"

    @property
    def missing(self) -> list[str]:
        return [_MISSING_WORDS[name] for name in REQUIRED_BUCKETS if not self.buckets[name].present]

    @property
    def optional_missing(self) -> list[str]:
        return [
            _MISSING_WORDS[name]
            for name in self.buckets
            if name not in REQUIRED_BUCKETS and not self.buckets[name].present
        ]

    def summary(self) -> ReadinessSummary:
        """The ``--check --readiness`` JSON entry (§11.1a)."""
        out: ReadinessSummary = {name: len(bucket.case_ids) for name, bucket in self.buckets.items()}
        out["status"] = self.readiness
        out["fallback"] = [name for name, bucket in self.buckets.items() if FALLBACK in bucket.coverage_basis]
        return out


def file_name_matches_bucket(rel_path: str, bucket: str) -> bool:
    """``new RegExp(bucket, "i").test(basename)``: a case-insensitive substring test. Without the
    ``u`` flag JavaScript folds no non-ASCII character onto an ASCII letter, hence ``re.ASCII``."""
    return re.search(re.escape(bucket), rel_path.rsplit("/", 1)[-1], re.IGNORECASE | re.ASCII) is not None


def skill_readiness(index: WorkflowIndex, skill_dir: str, root: Path, fs: FileSystemView) -> SkillReadiness:
    """The report for ``skills/<skill_dir>`` over every fixture file below its ``evals/``."""
    prefix = f"skills/{skill_dir}/evals/"
    files = [rel for rel in index.files() if rel.startswith(prefix)]
    buckets = {name: BucketCoverage() for name in readiness_buckets()}
    cases = 0
    for rel in files:
        normalized = index.normalized(rel)
        if normalized is None or normalized.unreadable is not None:
            continue  # the report records fixture_unreadable; no case counts
        cases += len(normalized.cases)
        for case in normalized.cases:
            for name, bucket in buckets.items():
                _score(case, name, bucket, rel, root, fs)
    return SkillReadiness(skill_dir, files, cases, buckets)


def counted_buckets(case: NormalizedCase, rel: str, root: Path, fs: FileSystemView) -> dict[str, str]:
    """The buckets one case counts for, each with its basis (a declared tag or the file-name
    fallback): what the readiness report would count, for a hover on the case."""
    out: dict[str, str] = {}
    for name in readiness_buckets():
        bucket = BucketCoverage()
        _score(case, name, bucket, rel, root, fs)
        if bucket.present:
            out[name] = bucket.coverage_basis[0]
    return out


def _score(
    case: NormalizedCase, bucket_name: str, bucket: BucketCoverage, rel: str, root: Path, fs: FileSystemView
) -> None:
    declared = case.has_tag(bucket_name)
    if not declared and not file_name_matches_bucket(rel, bucket_name):
        return
    errors = case_errors(case, root, fs, extra_tag=None if declared else bucket_name)
    if any(error.code != MISSING_COVERAGE_TAGS for error in errors):
        return
    bucket.case_ids.append(case.id)
    basis = DECLARED if declared else FALLBACK
    if basis not in bucket.coverage_basis:
        bucket.coverage_basis.append(basis)
    if declared:
        bucket.declared_case_ids.append(case.id)


def skill_dir_of(rel_path: str) -> str | None:
    """``<dir>`` for a path ``skills/<dir>/…`` (None otherwise)."""
    parts = rel_path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "skills" else None


def readiness_report(
    checked: list[tuple[Path, str | None]], indexes: dict[Path, WorkflowIndex], fs: FileSystemView
) -> dict[str, ReadinessSummary]:
    """``--check --readiness``: one entry per ``skills/<dir>`` holding a checked workflow fixture
    (``checked`` lists (repository root, repository-relative path) of those), counted over all
    fixture files of that directory. Keys are directory names; when two repositories share one, the
    later gets ``<repository root>/skills/<dir>`` as its key."""
    out: dict[str, ReadinessSummary] = {}
    done: set[tuple[Path, str]] = set()
    for root, rel in checked:
        skill_dir = skill_dir_of(rel) if rel is not None else None
        if skill_dir is None or (root, skill_dir) in done:
            continue
        done.add((root, skill_dir))
        index = indexes.get(root) or indexes.setdefault(root, WorkflowIndex(root, fs))
        key = skill_dir if skill_dir not in out else f"{root.as_posix()}/skills/{skill_dir}"
        out[key] = skill_readiness(index, skill_dir, root, fs).summary()
    return dict(sorted(out.items()))


def readiness_table(readiness: dict[str, ReadinessSummary]) -> list[str]:
    """Text mode: one row per skill directory."""
    if not readiness:
        return ["readiness: no workflow fixture checked"]
    buckets = list(readiness_buckets())
    width = max(len("skill"), *(len(name) for name in readiness))
    header = f"{'skill':<{width}}  " + "  ".join(f"{name:>8}" for name in buckets) + "  status   fallback"
    rows = ["readiness:", header]
    for name, entry in readiness.items():
        counts = "  ".join(f"{entry[bucket]:>8}" for bucket in buckets)
        buckets_by_filename = entry["fallback"]
        fallback = (",".join(buckets_by_filename) if isinstance(buckets_by_filename, list) else "") or "-"
        rows.append(f"{name:<{width}}  {counts}  {entry['status']:<7}  {fallback}")
    return rows
