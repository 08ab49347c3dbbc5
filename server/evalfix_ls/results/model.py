"""What a run said about one case, as plain data both producers' readers fill in.

A case has a primary result (arc-skill-eval's single variant or ``with_skill``; skill-creator's
``with_skill``/``new_skill``) and, in compare runs, a baseline (``without_skill``/``old_skill``).
Rows keep the graded copy of each assertion (arc) or only its text (skill-creator), which is what
``matching`` compares with the file as it is now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ARC = "arc-skill-eval"
SKILL_CREATOR = "skill-creator"


@dataclass(frozen=True, slots=True)
class GradedRow:
    text: str
    passed: bool
    evidence: str
    # The assertion as the run graded it (arc: verbatim copy, any JSON); None when only the text
    # was kept (skill-creator's ``expectations``).
    assertion: object = None
    has_copy: bool = False
    copy_key: str | None = None  # ``matching.canonical(assertion)``, computed once when read


@dataclass(frozen=True, slots=True)
class Timing:
    duration_ms: float | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None  # arc only; 0 can mean "not reported" (A.8 11)
    model: str | None = None


@dataclass(frozen=True, slots=True)
class VariantResult:
    """One variant's artifacts: its folder (``assistant.md``, ``outputs/``), grading and timing."""

    name: str  # "" for a single-variant run, else the folder name (with_skill, without_skill…)
    folder: Path
    graded: bool  # False: no grading.json (skill-creator: not graded yet / crashed)
    rows: tuple[GradedRow, ...] = ()
    timing: Timing | None = None
    repeats: int = 1  # skill-creator ``run-K`` folders of this configuration (the first is shown)

    @property
    def passed(self) -> int:
        return sum(1 for row in self.rows if row.passed)

    @property
    def total(self) -> int:
        return len(self.rows)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.graded and self.total else None


@dataclass(frozen=True, slots=True)
class Run:
    """One run: an arc run folder, or a skill-creator iteration."""

    producer: str
    label: str  # as shown: "2026-12-02T11-30-00-000Z", "iteration-1/2026-…", "iteration-2"
    path: Path
    when: float  # seconds since the epoch: the run id's time, benchmark's generated_at, or mtime
    order: tuple[float, str] = (0.0, "")  # larger is newer


@dataclass(frozen=True, slots=True)
class CaseResult:
    case_id: str
    run: Run
    primary: VariantResult
    baseline: VariantResult | None = None
    delta: float | None = None  # primary − baseline pass rate (compare runs)
    error: str | None = None  # benchmark.json's error message for this case, if any
    join: str = "id"  # how the folder was tied to the case (skill-creator: eval_metadata, prompt…)


@dataclass(frozen=True, slots=True)
class CaseLookup:
    """The newest result of one case, and what the newest run of the skill says about it."""

    result: CaseResult | None
    newest: Run | None  # the newest run of the skill (any case)
    newest_error: str | None = None  # the newest run recorded an error for this case
    pending: tuple[Path, ...] = field(default=())  # result files that did not parse yet

    @property
    def from_older_run(self) -> bool:
        return self.result is not None and self.newest is not None and self.result.run != self.newest
