"""``evalfix-ls --results [PATHS]``: the newest result of every case of every eval suite found.

Three formats: a text table (one line per case, as the editor's lens says it, then each failed or
stale assertion at its line), ``--format json`` (the same as data), and ``--format github`` (a
workflow command per failed assertion, at its line in ``evals.json``, so a CI job that ran the
suite annotates the pull request). Results never change the exit status: 0 when suites were found,
2 when none was (an input problem, as ``--check`` says it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..analysis import analyze
from ..config.project_config import ProjectConfigs
from ..results.index import ResultsIndex
from ..results.matching import STALE
from ..results.model import CaseLookup
from ..services.document import DocumentView
from ..services.run_results import (
    ResultNote,
    Suite,
    SuiteCase,
    graded_assertions,
    lens_title,
    lookups,
    notes,
    suite_of,
)
from ..text.line_index import Encoding, LineIndex
from ..workspace.files import read_file
from ..workspace.view import find_repo_root
from ..workspace.walk import walk
from .format_github import escape_data, escape_property
from .format_text import printable


@dataclass(frozen=True, slots=True)
class SuiteResults:
    path: Path
    display: str
    line_index: LineIndex
    suite: Suite
    found: list[CaseLookup]


def suite_paths(paths: list[Path]) -> list[Path]:
    """``evals/evals.json`` files named or found below ``paths`` (default: the current directory)."""
    out: dict[Path, None] = {}
    for path in paths or [Path.cwd()]:
        candidates = [path] if path.is_file() else walk(path) if path.is_dir() else []
        for candidate in candidates:
            if candidate.name == "evals.json" and candidate.parent.name == "evals":
                out.setdefault(candidate.absolute(), None)
    return sorted(out)


def collect(paths: list[Path], root: Path | None = None) -> list[SuiteResults]:
    configs = ProjectConfigs()
    indexes: dict[tuple[Path, tuple[Path, ...]], ResultsIndex] = {}
    out = []
    for path in suite_paths(paths):
        config = configs.for_path(path)
        repo_root = root or config.root or find_repo_root(path)
        file_text = read_file(path, repo_root)
        if file_text.unavailable:
            continue
        analysis = analyze(file_text.text, path=path, repo_root=repo_root, file_text=file_text)
        suite = suite_of(DocumentView(file_text.text, analysis, path=path, repo_root=repo_root))
        if suite is None:
            continue
        index = indexes.setdefault(
            (repo_root, config.result_roots), ResultsIndex(repo_root, config.result_roots)
        )
        display = _display(path)
        out.append(
            SuiteResults(path, display, LineIndex(file_text.text), suite, lookups(suite, index.lookup))
        )
    return out


def _display(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def _where(results: SuiteResults, offset: int) -> tuple[int, int]:
    line, column = results.line_index.position(offset, Encoding.UTF16)
    return line + 1, column + 1


def _case_notes(results: SuiteResults, case: SuiteCase, found: CaseLookup) -> list[ResultNote]:
    single = Suite(results.suite.skill_dir, results.suite.skill_name, (case,))
    return notes(single, [found])


def text_lines(all_results: list[SuiteResults], now: float) -> Iterator[str]:
    for results in all_results:
        yield printable(f"{results.display}")
        for case, found in zip(results.suite.cases, results.found, strict=True):
            title = lens_title(case, found, now) or "no run of this skill"
            yield printable(f"  {case.key.case_id}: {title}")
            for note in _case_notes(results, case, found):
                if note.verdict.state == "passed":
                    continue
                line, column = _where(results, note.start)
                row = note.verdict.row
                what = note.verdict.note if note.verdict.state == STALE else (row.evidence if row else "")
                text = row.text if row is not None else "(not graded)"
                yield printable(f"    {line}:{column} {note.verdict.state} {text}: {what}")


def github_lines(all_results: list[SuiteResults], now: float) -> Iterator[str]:
    from ..services.run_results import diagnostic_message

    for results in all_results:
        for case, found in zip(results.suite.cases, results.found, strict=True):
            for note in _case_notes(results, case, found):
                if note.verdict.state != "failed":
                    continue
                line, column = _where(results, note.start)
                end_line, end_column = _where(results, note.end)
                properties = ",".join(
                    f"{name}={escape_property(str(value))}"
                    for name, value in (
                        ("file", results.display), ("line", line), ("col", column),
                        ("endLine", end_line), ("endColumn", end_column),
                        ("title", f"evalfix-ls results: {case.key.case_id}"),
                    )
                )  # fmt: skip
                yield f"::notice {properties}::{escape_data(diagnostic_message(note))}"


def json_document(all_results: list[SuiteResults], now: float) -> list[dict[str, object]]:
    return [
        {
            "file": results.display,
            "skill": results.suite.skill_dir.name,
            "cases": [
                _case_json(results, case, found, now)
                for case, found in zip(results.suite.cases, results.found, strict=True)
            ],
        }
        for results in all_results
    ]


def _case_json(results: SuiteResults, case: SuiteCase, found: CaseLookup, now: float) -> dict[str, object]:
    result = found.result
    out: dict[str, object] = {
        "id": case.key.case_id,
        "summary": lens_title(case, found, now),
        "newest_run": found.newest.label if found.newest else None,
        "newest_run_error": found.newest_error,
        "run": result.run.label if result else None,
        "from_older_run": found.from_older_run,
    }
    if result is None:
        return out
    primary = result.primary
    timing = primary.timing
    out.update(
        producer=result.run.producer,
        variant=primary.name or None,
        graded=primary.graded,
        passed=primary.passed,
        total=primary.total,
        duration_ms=timing.duration_ms if timing else None,
        total_tokens=timing.total_tokens if timing else None,
        cost_usd=timing.cost_usd if timing else None,
        delta=result.delta,
        baseline=result.baseline.name if result.baseline else None,
        error=result.error,
        folder=str(primary.folder),
        assertions=[
            {
                "line": _where(results, span.start)[0],
                "state": verdict.state,
                "text": verdict.row.text if verdict.row else None,
                "evidence": verdict.row.evidence if verdict.row else None,
                "note": verdict.note or None,
            }
            for span, verdict in graded_assertions(case, result)
        ],
    )
    return out


def render(all_results: list[SuiteResults], fmt: str) -> str:
    now = time.time()
    if fmt == "json":
        return json.dumps(json_document(all_results, now), ensure_ascii=False, indent=2) + "\n"
    lines = github_lines(all_results, now) if fmt == "github" else text_lines(all_results, now)
    return "".join(line + "\n" for line in lines)
