"""The results index: per skill folder, the newest result of each case, kept until a file event
(or the poll) says a result file under one of the skill's result folders changed.

Keyed by skill folder ``S`` (the parent of ``evals/``) and case id (its JS-string). Building a
skill lists its runs once (200 runs: 200 small directory listings); a case is then looked up
newest run first and usually found in the first (one ``grading.json`` and one ``timing.json``
read). Every answer is kept, so the lens of a 100-case suite after the first read is 100 dict
look-ups, and a keystroke in ``evals.json`` opens no result file: nothing here is keyed by the
document's text. ``invalidate(path)`` drops the skills whose result folders hold ``path``.

arc-skill-eval's results win over skill-creator's for the same case: run ids are times and
iteration numbers are not, so the two cannot be ordered against each other; a suite graded by
both is rare, and arc's trees are the ones the ``evals.json`` contract is written for.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from ..workspace.confine import is_inside
from ..workspace.files import file_stamp
from . import arc, skill_creator
from .model import CaseLookup, CaseResult, Run
from .reading import child_dirs, is_dir
from .skill_creator import CaseKey, EvalFolder


class SkillResults:
    """One skill's runs (both producers) and the cases looked up so far."""

    def __init__(
        self, skill_dir: Path, skill_name: str | None, repo_root: Path, extra_roots: Sequence[Path]
    ) -> None:
        self.skill_dir = skill_dir
        self.repo_root = repo_root
        self.arc_bases = [skill_dir / arc.RUNS_FOLDER] + [root / skill_dir.name for root in extra_roots]
        self.workspaces = skill_creator.workspaces(skill_dir, skill_name)
        self._arc_runs: list[Run] | None = None
        self._iterations: list[Run] | None = None
        self._benchmarks: dict[Path, arc.Benchmark | None] = {}
        self._eval_folders: dict[Path, list[EvalFolder]] = {}
        self._arc_cases: dict[str, CaseLookup] = {}
        self._folder_results: dict[Path, CaseResult | None] = {}

    @property
    def watched(self) -> list[Path]:
        """The folders whose changes can change an answer."""
        return self.arc_bases + self.workspaces

    def arc_runs(self) -> list[Run]:
        if self._arc_runs is None:
            runs: list[Run] = []
            for base in self.arc_bases:
                real = is_dir(base, self.repo_root)
                if real is not None:
                    runs.extend(arc.find_runs(real, self.repo_root))
            runs.sort(key=lambda run: run.order, reverse=True)
            self._arc_runs = runs
        return self._arc_runs

    def iterations(self) -> list[Run]:
        if self._iterations is None:
            found: list[Run] = []
            for workspace in self.workspaces:
                real = is_dir(workspace, self.repo_root)
                if real is not None:
                    found = skill_creator.iterations(real, self.repo_root)
                    break
            self._iterations = found
        return self._iterations

    def newest_run(self) -> Run | None:
        runs = self.arc_runs() or self.iterations()
        return runs[0] if runs else None

    def case(self, key: CaseKey) -> CaseLookup:
        """Files are read once per case id (arc) or eval folder (skill-creator): a key that
        differs only by the case's prompt or position (typing in the suite) reads nothing."""
        runs = self.arc_runs()
        arc_lookup = None
        if runs:
            arc_lookup = self._arc_cases.get(key.case_id)
            if arc_lookup is None:
                arc_lookup = self._arc_cases[key.case_id] = self._arc_case(runs, key.case_id)
            if arc_lookup.result is not None:
                return arc_lookup
        iterations = self.iterations()
        for iteration in iterations:
            result, how = self._in_iteration(iteration, key)
            if result is not None:
                return CaseLookup(replace(result, case_id=key.case_id, join=how), iterations[0])
        if arc_lookup is not None:  # what the newest arc run says (an error, a file being written)
            return arc_lookup
        return CaseLookup(None, iterations[0] if iterations else None)

    def _in_iteration(self, iteration: Run, key: CaseKey) -> tuple[CaseResult | None, str]:
        folders = self._eval_folders.get(iteration.path)
        if folders is None:
            folders = self._eval_folders[iteration.path] = skill_creator.eval_folders(
                iteration, self.repo_root
            )
        found = skill_creator.join(folders, key)
        if found is None:
            return None, ""
        folder, how = found
        if folder.path not in self._folder_results:
            self._folder_results[folder.path] = skill_creator.folder_result(iteration, folder, self.repo_root)
        return self._folder_results[folder.path], how

    def _arc_case(self, runs: list[Run], case_id: str) -> CaseLookup:
        pending: list[Path] = []
        newest_error = None
        for position, run in enumerate(runs):
            benchmark = self._benchmark(run)
            if position == 0 and benchmark is not None:
                newest_error = benchmark.errors.get(case_id)
            try:
                result = arc.case_in_run(run, case_id, self.repo_root, benchmark)
            except arc.Pending as half_written:
                pending.append(half_written.path)
                continue
            if result is not None:
                return CaseLookup(result, runs[0], newest_error, tuple(pending))
        return CaseLookup(None, runs[0], newest_error, tuple(pending))

    def _benchmark(self, run: Run) -> arc.Benchmark | None:
        if run.path not in self._benchmarks:
            self._benchmarks[run.path] = arc.read_benchmark(run, self.repo_root)
        return self._benchmarks[run.path]

    def signature(self) -> tuple[object, ...]:
        """What the poll compares (clients without file events): the stats (mtime, size) of the
        result folders, of their runs and buckets, and of everything below the two newest runs of
        each (case and variant folders, the JSON files a run writes). Stats only: no file is
        opened. Bounded: ``SIGNATURE_LIMIT`` entries."""
        stats: list[object] = []
        for base in self.watched:
            stats.append(file_stamp(base))
            children = child_dirs(base, self.repo_root) if base.is_dir() else []
            newest: list[Path] = []
            for name, child in children:
                stats.append((name, file_stamp(child)))
                inner = child_dirs(child, self.repo_root) if name.startswith("iteration-") else []
                stats.extend((sub, file_stamp(path)) for sub, path in inner)
                newest.extend([child] + [path for _sub, path in inner])
            newest.sort(key=lambda path: _natural(path.name), reverse=True)
            for run in newest[:2]:
                _walk_stats(run, self.repo_root, stats)
        return tuple(stats)


SIGNATURE_LIMIT = 20_000
_WATCHED_FILES = ("grading.json", "timing.json", "benchmark.json", "eval_metadata.json")


def _natural(name: str) -> tuple[object, ...]:
    """``iteration-10`` after ``iteration-9``; timestamps as text."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def _walk_stats(top: Path, repo_root: Path, stats: list[object]) -> None:
    pending = [(top, 0)]
    while pending and len(stats) < SIGNATURE_LIMIT:
        folder, depth = pending.pop()
        stats.extend((str(folder / name), file_stamp(folder / name)) for name in _WATCHED_FILES)
        if depth < 3:
            for name, child in child_dirs(folder, repo_root):
                if name != "outputs":
                    stats.append((name, file_stamp(child)))
                    pending.append((child, depth + 1))


class ResultsIndex:
    """Every skill's results in one repository. Thread-safe: handlers run on workers."""

    def __init__(self, repo_root: Path, extra_roots: Sequence[Path] = ()) -> None:
        self.repo_root = repo_root
        self.extra_roots = tuple(extra_roots)
        self.generation = 0  # moves whenever an answer may have changed
        self._skills: dict[Path, SkillResults] = {}
        self._signatures: dict[Path, tuple[object, ...]] = {}
        self.polled = False  # set by a client without file events: signatures are kept
        self._lock = threading.RLock()

    def skill(self, skill_dir: Path, skill_name: str | None = None) -> SkillResults:
        with self._lock:
            found = self._skills.get(skill_dir)
            if found is None:
                found = self._skills[skill_dir] = SkillResults(
                    skill_dir, skill_name, self.repo_root, self.extra_roots
                )
                if self.polled:  # what the next poll compares with: the disk as it is read now
                    self._signatures[skill_dir] = found.signature()
            return found

    def lookup(self, skill_dir: Path, skill_name: str | None, keys: Sequence[CaseKey]) -> list[CaseLookup]:
        """The newest result of each case (the same order as ``keys``)."""
        with self._lock:
            skill = self.skill(skill_dir, skill_name)
            return [skill.case(key) for key in keys]

    def has_runs(self, skill_dir: Path, skill_name: str | None = None) -> bool:
        """Whether the skill has any run of either producer (its folders listed once, then kept)."""
        with self._lock:
            skill = self.skill(skill_dir, skill_name)
            return bool(skill.arc_runs() or skill.iterations())

    def invalidate(self, paths: Iterable[Path]) -> set[Path]:
        """Forget what files under ``paths`` may have changed; the skill folders concerned."""
        touched: set[Path] = set()
        with self._lock:
            for path in paths:
                spelled = str(path)
                for skill_dir, skill in list(self._skills.items()):
                    if any(
                        is_inside(spelled, str(base)) or is_inside(str(base), spelled)
                        for base in skill.watched
                    ):
                        touched.add(skill_dir)
                        del self._skills[skill_dir]
            if touched:
                self.generation += 1
        return touched

    def poll(self) -> set[Path]:
        """Compare each known skill's ``signature`` with the previous poll's; drop the skills whose
        results changed, and return their folders."""
        with self._lock:
            skills = list(self._skills.items())
        changed: set[Path] = set()
        for skill_dir, skill in skills:
            signature = skill.signature()
            before = self._signatures.get(skill_dir)
            self._signatures[skill_dir] = signature
            if before is not None and before != signature:
                changed.add(skill_dir)
        if changed:
            self.invalidate_skills(changed)
        return changed

    def invalidate_skills(self, skill_dirs: Iterable[Path]) -> None:
        with self._lock:
            for skill_dir in skill_dirs:
                self._skills.pop(skill_dir, None)
            self.generation += 1
