"""Anthropic's skill-creator workspaces (run-results.md Part B): written by an LLM agent, so read
tolerantly.

``W = dirname(S)/<name>-workspace`` (the skill folder's name first, then ``skill_name``), one
``iteration-N`` per round (the largest N is the newest: compared as numbers), one folder per eval
inside, one folder per configuration inside that, and in layout (b) ``run-K`` repeats inside those.
A folder is tied to a case in the spec's order (B.4): ``eval_metadata.json``'s ``eval_id`` equal to
the case id → its ``prompt`` equal to the case prompt → the number in ``eval-<n>`` equal to the id →
that number as a 0-based position (flagged as a guess). Rows carry no index: they are matched to
the assertions by text (``matching``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .arc import read_timing
from .model import SKILL_CREATOR, CaseResult, GradedRow, Run, Timing, VariantResult
from .naming import folder_number, iteration_number
from .reading import GRADING_LIMIT, child_dirs, mtime_of, read_json

PRIMARY = ("with_skill", "new_skill")
BASELINE = ("without_skill", "old_skill")
_SKIPPED = frozenset({"skill-snapshot", "node_modules", ".git", "__pycache__", "skill", "inputs"})
_RUN_K = re.compile(r"^run-(\d+)$")


@dataclass(frozen=True, slots=True)
class EvalFolder:
    path: Path
    eval_id: object  # eval_metadata.json's eval_id (any JSON), or None
    prompt: str | None
    number: int | None  # the n of ``eval-<n>…``


@dataclass(frozen=True, slots=True)
class CaseKey:
    """What the join may use of a case: its id (JS-string), prompt and position in the file."""

    case_id: str
    prompt: str | None
    position: int


def workspaces(skill_dir: Path, skill_name: str | None) -> list[Path]:
    names = [skill_dir.name] + ([skill_name] if skill_name and skill_name != skill_dir.name else [])
    return [skill_dir.parent / f"{name}-workspace" for name in names if "/" not in name]


def iterations(workspace: Path, repo_root: Path) -> list[Run]:
    """The workspace's ``iteration-N`` folders, newest (largest N) first."""
    runs = []
    for name, path in child_dirs(workspace, repo_root):
        number = iteration_number(name)
        if number is not None:
            runs.append(
                Run(SKILL_CREATOR, f"{workspace.name}/{name}", path, mtime_of(path), (float(number), name))
            )
    runs.sort(key=lambda run: run.order, reverse=True)
    return runs


def eval_folders(iteration: Run, repo_root: Path) -> list[EvalFolder]:
    """The eval folders of an iteration; layout (c)'s ``runs/eval-N/…`` included."""
    out = []
    children = child_dirs(iteration.path, repo_root)
    if any(name == "runs" for name, _path in children):
        children += child_dirs(iteration.path / "runs", repo_root)
    for name, path in children:
        if name in _SKIPPED or name == "runs":
            continue
        metadata = read_json(path / "eval_metadata.json", repo_root)
        meta = metadata if isinstance(metadata, dict) else {}
        prompt = meta.get("prompt")
        out.append(
            EvalFolder(
                path, meta.get("eval_id"), prompt if isinstance(prompt, str) else None, folder_number(name)
            )
        )
    return out


def _id_string(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        from ..js.values import js_number_to_string

        return js_number_to_string(float(value))
    return None


def join(folders: Sequence[EvalFolder], case: CaseKey) -> tuple[EvalFolder, str] | None:
    """The folder of ``case`` and how it was found, in the spec's order (B.4)."""
    for folder in folders:
        if folder.eval_id is not None and _id_string(folder.eval_id) == case.case_id:
            return folder, "eval_metadata.json eval_id"
    if case.prompt is not None:
        for folder in folders:
            if folder.prompt == case.prompt:
                return folder, "eval_metadata.json prompt"
    for folder in folders:
        if folder.eval_id is None and folder.prompt is None and folder.number is not None:
            if str(folder.number) == case.case_id:
                return folder, "folder number"
    for folder in folders:
        if folder.eval_id is None and folder.prompt is None and folder.number == case.position:
            return folder, "folder number as a 0-based position (a guess)"
    return None


def folder_result(iteration: Run, folder: EvalFolder, repo_root: Path) -> CaseResult | None:
    """The result in one eval folder (``case_id`` and ``join`` are filled in by the caller, who
    tied the folder to a case: the folder's reading does not depend on which case asks)."""
    configs = child_dirs(folder.path, repo_root)
    names = [name for name, _path in configs]
    primary_name = next((n for n in PRIMARY if n in names), names[0] if names else None)
    if primary_name is None:
        return None
    primary = _config(folder.path / primary_name, primary_name, repo_root)
    baseline_name = next((n for n in BASELINE if n in names and n != primary_name), None)
    baseline = _config(folder.path / baseline_name, baseline_name, repo_root) if baseline_name else None
    delta = None
    if primary.pass_rate is not None and baseline is not None and baseline.pass_rate is not None:
        delta = primary.pass_rate - baseline.pass_rate
    return CaseResult("", iteration, primary, baseline, delta, None, "")


def _config(path: Path, name: str, repo_root: Path) -> VariantResult:
    """One configuration: its first ``run-K`` (layout b) or itself (layout a)."""
    repeats = sorted(
        (int(match.group(1)), inner)
        for child, inner in child_dirs(path, repo_root)
        if (match := _RUN_K.match(child)) is not None
    )
    run_dir = repeats[0][1] if repeats else path
    grading = read_json(run_dir / "grading.json", repo_root, GRADING_LIMIT)
    timing = read_timing(run_dir, repo_root)
    if not isinstance(grading, dict):  # missing, or NOT_YET (being written)
        return VariantResult(name, run_dir, False, (), timing, max(1, len(repeats)))
    rows = tuple(
        GradedRow(str(row.get("text", "")), row.get("passed") is True, str(row.get("evidence", "")))
        for row in _rows(grading.get("expectations"))
    )
    if timing is None or timing.duration_ms is None:
        timing = _grading_timing(grading, timing)
    return VariantResult(name, run_dir, True, rows, timing, max(1, len(repeats)))


def _rows(value: object) -> list[dict[str, object]]:
    return [row for row in value if isinstance(row, dict)] if isinstance(value, list) else []


def _grading_timing(grading: dict[str, object], timing: Timing | None) -> Timing | None:
    block = grading.get("timing")
    if not isinstance(block, dict):
        return timing
    seconds = block.get("total_duration_seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return timing
    tokens = timing.total_tokens if timing is not None else None
    return Timing(float(seconds) * 1000, tokens)
