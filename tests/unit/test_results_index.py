"""The results index over trees written here as the producers write them (run-results.md):
arc-skill-eval's four layouts, a run holding a subset, an errored case, stale assertions, ids
with numbers, spaces and CJK, skill-creator's three layouts, half-written files, confinement."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import results_trees as trees

from evalfix_ls.results import naming
from evalfix_ls.results.index import ResultsIndex
from evalfix_ls.results.matching import FAILED, PASSED, STALE, match
from evalfix_ls.results.model import CaseLookup
from evalfix_ls.results.reading import NOT_YET, read_json, reads_so_far
from evalfix_ls.results.skill_creator import CaseKey

FILE_EXISTS = {"type": "file-exists", "path": "greeting.txt"}
REGEX = {"type": "regex-match", "pattern": "Hello", "target": {"file": "greeting.txt"}}
JUDGED = "The response names the file"


def key(case_id: str, position: int = 0, prompt: str | None = None) -> CaseKey:
    return CaseKey(case_id, prompt, position)


def look(index: ResultsIndex, skill: Path, *keys: CaseKey) -> list[CaseLookup]:
    return index.lookup(skill, None, list(keys))


@pytest.mark.parametrize(
    ("case_id", "folder"),
    [
        ("1", "eval-1"),
        ("1.5", "eval-1.5"),
        ("-3", "eval--3"),
        ("1e+21", "eval-1e-21"),
        ("hello world", "eval-hello-world"),
        ("  pad  ", "eval---pad--"),
        ("a/b", "eval-a-b"),
        ("100%", "eval-100-"),
        ("café", "eval-caf-"),
        ("日本語", "eval----"),
        ("😀", "eval---"),  # two UTF-16 code units, two hyphens
        ("", "eval-"),
        ("../x", "eval-..-x"),
        ("Case_01.v2", "eval-Case_01.v2"),
        ("東京 greeting", "eval----greeting"),
    ],
)
def test_case_folders_follow_javascripts_rule(case_id: str, folder: str) -> None:
    assert naming.case_dir_name(case_id) == folder


@pytest.mark.parametrize(
    ("value", "bucket"),
    [("1", "iteration-1"), (" 2 ", "iteration-2"), ("iteration-3", "iteration-3"),
     ("iteration 4", "iteration-iteration-4"), ("my iter/5", "iteration-my-iter-5"),
     ("Iteration-1", "iteration-Iteration-1"), ("ñ", "iteration--"), ("   ", None)],
)  # fmt: skip
def test_iteration_buckets_follow_the_cli(value: str, bucket: str | None) -> None:
    assert naming.iteration_bucket(value) == bucket


def test_plain_runs_answer_per_case_and_an_older_run_answers_a_missing_case(tmp_path: Path) -> None:
    # Example A: case 2 errored in the newest run (nothing on disk), the older run answers it
    skill = trees.repo(tmp_path) / "skills" / "hello"
    runs = skill / "evals-runs"
    trees.arc_run(
        runs / "2026-05-01T09-15-02-417Z", {"2": [(REGEX, True, "Match near")], "a": [(JUDGED, False, "no")]}
    )
    trees.arc_run(
        runs / "2026-05-04T22-31-04-123Z", {"a": [(FILE_EXISTS, True, "Found"), (JUDGED, False, "nope")]}
    )
    index = ResultsIndex(skill.parent.parent)
    newest, older = look(index, skill, key("a"), key("2"))
    assert newest.result is not None and not newest.from_older_run
    assert (newest.result.primary.passed, newest.result.primary.total) == (1, 2)
    assert newest.result.primary.timing is not None and newest.result.primary.timing.duration_ms == 41207
    assert older.result is not None and older.from_older_run
    assert older.result.run.label == "2026-05-01T09-15-02-417Z"
    assert older.newest is not None and older.newest.label == "2026-05-04T22-31-04-123Z"


def test_a_bucketed_run_is_ordered_by_time_not_by_bucket(tmp_path: Path) -> None:
    # Example B: iteration-1/2026-05-05… is newer than the un-bucketed 2026-05-02…
    skill = trees.repo(tmp_path) / "skills" / "release"
    runs = skill / "evals-runs"
    trees.arc_run(runs / "2026-05-02T08-00-00-000Z", {"1": [(JUDGED, False, "old")]})
    trees.arc_run(runs / "iteration-1" / "2026-05-05T10-00-00-000Z", {"1": [(JUDGED, True, "new")]})
    trees.arc_run(runs / "iteration-zzz" / "2026-04-01T00-00-00-000Z", {"1": [(JUDGED, False, "oldest")]})
    (found,) = look(ResultsIndex(skill.parent.parent), skill, key("1"))
    assert found.result is not None
    assert found.result.run.label == "iteration-1/2026-05-05T10-00-00-000Z"
    assert found.result.primary.rows[0].evidence == "new"


def test_a_compare_run_reads_both_variants_the_delta_and_the_benchmarks_errors(tmp_path: Path) -> None:
    skill = trees.repo(tmp_path) / "skills" / "release"
    run = skill / "evals-runs" / "2026-05-05T10-00-00-000Z"
    with_rows = [(FILE_EXISTS, True, "Found"), (JUDGED, True, "yes")]
    without_rows = [(FILE_EXISTS, True, "Found"), (JUDGED, False, "no")]
    trees.arc_compare_run(
        run, {"1": (with_rows, without_rows)}, errors={"flaky/case": "429 Too Many Requests"}
    )
    # the with_skill of the errored case is complete on disk (A.8 1)
    trees.arc_variant(run / "eval-flaky-case" / "with_skill", "flaky/case", [(JUDGED, True, "v1.4.3")])
    one, flaky, gone = look(
        ResultsIndex(skill.parent.parent), skill, key("1"), key("flaky/case"), key("gone")
    )
    assert one.result is not None and one.result.baseline is not None
    assert one.result.primary.name == "with_skill" and one.result.baseline.passed == 1
    assert one.result.delta == pytest.approx(0.5)
    assert flaky.result is not None and flaky.result.error == "429 Too Many Requests"
    assert flaky.newest_error == "429 Too Many Requests"
    assert gone.result is None and gone.newest is not None  # "no result in any run"


def test_an_output_dir_root_is_searched_under_the_skill_folders_name(tmp_path: Path) -> None:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "hello"
    trees.suite(skill, [])
    trees.arc_run(
        root / "out" / "hello" / "iteration-2" / "2026-05-06T00-00-00-000Z", {"x": [(JUDGED, True, "ok")]}
    )
    assert look(ResultsIndex(root), skill, key("x"))[0].result is None
    (found,) = look(ResultsIndex(root, [root / "out"]), skill, key("x"))
    assert found.result is not None and found.result.run.label == "iteration-2/2026-05-06T00-00-00-000Z"


def test_ids_with_numbers_spaces_and_cjk_are_found_and_confirmed_by_case_id(tmp_path: Path) -> None:
    skill = trees.repo(tmp_path) / "skills" / "g"
    run = skill / "evals-runs" / "2026-05-01T00-00-00-000Z"
    trees.arc_run(
        run, {"1": [(JUDGED, True, "")], "東京 greeting": [(JUDGED, False, "")], "a b": [(JUDGED, True, "")]}
    )
    # "a-b" collides with "a b" after sanitizing: the folder's case_id says whose it is
    one, tokyo, spaced, dashed = look(
        ResultsIndex(skill.parent.parent), skill, key("1"), key("東京 greeting"), key("a b"), key("a-b")
    )
    assert (run / "eval----greeting").is_dir()
    assert one.result is not None and tokyo.result is not None and spaced.result is not None
    assert dashed.result is None


def test_stale_assertions_edited_added_and_moved() -> None:
    from evalfix_ls.results.model import GradedRow

    rows = [GradedRow(trees.text_of(a), ok, "e", a, True) for a, ok in ((FILE_EXISTS, True), (REGEX, False))]
    same = match(rows, [FILE_EXISTS, REGEX])
    assert [v.state for v in same] == [PASSED, FAILED]
    # key order ignored, 1.0 equals JSON.stringify's 1, true never equals 1
    reordered_keys = match(rows, [{"path": "greeting.txt", "type": "file-exists"}, REGEX])
    assert reordered_keys[0].state == PASSED
    edited = match(rows, [FILE_EXISTS, {**REGEX, "pattern": "Bye"}])
    assert edited[1].state == STALE and "edited" in edited[1].note
    added = match(rows, [FILE_EXISTS, REGEX, JUDGED])
    assert added[2].state == STALE and "added" in added[2].note
    moved = match(rows, [REGEX, FILE_EXISTS])
    assert [v.state for v in moved] == [FAILED, PASSED]
    assert "graded as assertion 2" in moved[0].note
    numbers = [GradedRow("t", True, "", {"n": 1}, True), GradedRow("u", True, "", {"b": True}, True)]
    assert [v.state for v in match(numbers, [{"n": 1.0}, {"b": 1}])] == [PASSED, STALE]


def test_a_half_written_grading_is_not_yet_and_the_older_run_answers_until_it_is_complete(
    tmp_path: Path,
) -> None:
    skill = trees.repo(tmp_path) / "skills" / "g"
    runs = skill / "evals-runs"
    trees.arc_run(runs / "2026-05-01T00-00-00-000Z", {"a": [(JUDGED, False, "old")]})
    newest = runs / "2026-05-02T00-00-00-000Z" / "eval-a"
    newest.mkdir(parents=True)
    full = json.dumps(trees.grading("a", [(JUDGED, True, "new")]))
    (newest / "grading.json").write_text(full[: len(full) // 2], encoding="utf-8")
    assert read_json(newest / "grading.json", skill.parent.parent) is NOT_YET
    index = ResultsIndex(skill.parent.parent)
    (found,) = look(index, skill, key("a"))
    assert found.result is not None and found.result.primary.rows[0].evidence == "old"
    assert found.pending == (newest / "grading.json",)
    (newest / "grading.json").write_text(full, encoding="utf-8")
    assert index.invalidate([newest / "grading.json"]) == {skill}
    (found,) = look(index, skill, key("a"))
    assert found.result is not None and found.result.primary.rows[0].evidence == "new" and not found.pending


def test_answers_are_kept_until_invalidated_by_a_path_under_the_skills_results(tmp_path: Path) -> None:
    skill = trees.repo(tmp_path) / "skills" / "g"
    trees.arc_run(skill / "evals-runs" / "2026-05-01T00-00-00-000Z", {"a": [(JUDGED, True, "")]})
    index = ResultsIndex(skill.parent.parent)
    look(index, skill, key("a"))
    before = reads_so_far()
    for _ in range(5):
        look(index, skill, key("a"))
    assert reads_so_far() == before  # no result file opened again
    assert index.invalidate([skill / "evals" / "evals.json"]) == set()  # the suite is not a result
    assert index.invalidate([skill / "evals-runs" / "2026-05-02T00-00-00-000Z"]) == {skill}
    look(index, skill, key("a"))
    assert reads_so_far() > before


def test_corrupt_and_outside_files_are_never_an_error_and_never_read(tmp_path: Path) -> None:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "g"
    outside = tmp_path / "outside-run"
    trees.arc_run(outside, {"a": [(JUDGED, True, "outside")]})
    (skill / "evals-runs").mkdir(parents=True)
    os.symlink(outside, skill / "evals-runs" / "2026-05-09T00-00-00-000Z")  # a link out of the repo
    run = trees.arc_run(skill / "evals-runs" / "2026-05-01T00-00-00-000Z", {"a": [(JUDGED, False, "inside")]})
    (run / "eval-a" / "timing.json").write_text("{corrupt", encoding="utf-8")
    (found,) = look(ResultsIndex(root), skill, key("a"))
    assert found.result is not None and found.result.primary.rows[0].evidence == "inside"
    assert found.result.primary.timing is None


def test_a_result_file_over_its_cap_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import evalfix_ls.results.arc as arc

    skill = trees.repo(tmp_path) / "skills" / "g"
    trees.arc_run(skill / "evals-runs" / "2026-05-01T00-00-00-000Z", {"a": [(JUDGED, True, "old")]})
    trees.arc_run(skill / "evals-runs" / "2026-05-02T00-00-00-000Z", {"a": [(JUDGED, False, "x" * 5000)]})
    monkeypatch.setattr(arc, "GRADING_LIMIT", 4096)  # the newest grading.json is over it
    before = reads_so_far()
    (found,) = look(ResultsIndex(skill.parent.parent), skill, key("a"))
    assert found.result is not None and found.result.primary.rows[0].evidence == "old"
    assert reads_so_far() - before == 2  # the older grading.json and its timing.json only


# -- skill-creator (Example C) -----------------------------------------------------------------

CSV_CASES = [
    key("1", 0, "Here's evals/files/sales.csv — write quarterly revenue totals to summary.md"),
    key("2", 1, "Summarize evals/files/empty.csv for me"),
]
Q_ROWS = [
    "summary.md contains a table with one row per quarter",
    "The Q3 total is 48,210",
    "The response states which column was treated as revenue",
]


def _expectations(rows: list[tuple[str, bool]]) -> dict[str, object]:
    return {"expectations": [{"text": t, "passed": ok, "evidence": f"ev {t}"} for t, ok in rows]}


def _example_c(skills: Path) -> Path:
    workspace = skills / "csv-insights-workspace"
    first = workspace / "iteration-1" / "eval-0-quarterly-totals"
    trees.dump(
        first / "eval_metadata.json", {"eval_id": 1, "prompt": CSV_CASES[0].prompt, "assertions": Q_ROWS}
    )
    trees.dump(
        first / "with_skill" / "grading.json",
        _expectations([(Q_ROWS[0], False), (Q_ROWS[1], True), (Q_ROWS[2], False)]),
    )
    trees.dump(first / "without_skill" / "timing.json", {"total_tokens": 27118, "duration_ms": 25003})
    second = workspace / "iteration-2"
    q = second / "eval-0-quarterly-totals"
    trees.dump(q / "eval_metadata.json", {"eval_id": 1, "prompt": CSV_CASES[0].prompt, "assertions": Q_ROWS})
    trees.dump(
        q / "with_skill" / "run-1" / "grading.json",
        _expectations([(Q_ROWS[0], True), (Q_ROWS[1], True), (Q_ROWS[2], False)]),
    )
    trees.dump(
        q / "with_skill" / "run-1" / "timing.json",
        {"total_tokens": 41873, "duration_ms": 38140, "total_duration_seconds": 38.1},
    )
    trees.dump(
        q / "without_skill" / "run-1" / "grading.json",
        _expectations([(Q_ROWS[0], False), (Q_ROWS[1], False), (Q_ROWS[2], True)]),
    )
    e = second / "eval-1-empty-file"
    trees.dump(e / "eval_metadata.json", {"eval_id": 2, "prompt": CSV_CASES[1].prompt})
    (e / "with_skill" / "run-1" / "outputs").mkdir(parents=True)
    trees.dump(e / "with_skill" / "run-1" / "timing.json", {"total_tokens": 12002, "duration_ms": 15020})
    empty_rows = [
        ("The response tells the user the file has no data rows", True),
        ("No summary.md is written", False),
    ]
    graded = {**_expectations(empty_rows), "timing": {"total_duration_seconds": 20.2}}
    trees.dump(e / "without_skill" / "run-1" / "grading.json", graded)
    return workspace


def test_skill_creator_example_c_joins_through_eval_metadata_and_takes_the_largest_iteration(
    tmp_path: Path,
) -> None:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "csv-insights"
    _example_c(root / "skills")
    quarterly, empty = look(ResultsIndex(root), skill, *CSV_CASES)
    result = quarterly.result
    assert result is not None and result.run.label == "csv-insights-workspace/iteration-2"
    assert result.join == "eval_metadata.json eval_id"  # folder number 0 is not the id
    assert (result.primary.passed, result.primary.total) == (2, 3)
    assert result.primary.timing is not None and result.primary.timing.total_tokens == 41873
    assert result.baseline is not None and result.baseline.passed == 1
    assert result.delta == pytest.approx(1 / 3)
    assert empty.result is not None and not empty.result.primary.graded
    assert empty.result.primary.timing is not None and empty.result.primary.timing.duration_ms == 15020
    assert empty.result.baseline is not None and (
        empty.result.baseline.passed,
        empty.result.baseline.total,
    ) == (1, 2)
    verdicts = match(result.primary.rows, Q_ROWS)
    assert [v.state for v in verdicts] == [PASSED, PASSED, FAILED]


def test_skill_creator_layout_a_then_prompt_then_folder_number_joins(tmp_path: Path) -> None:
    root = trees.repo(tmp_path)
    skill = root / "skills" / "csv-insights"
    iteration = root / "skills" / "csv-insights-workspace" / "iteration-1"
    # layout (a), metadata with a 0-based eval_id but the case's prompt: joined by prompt
    trees.dump(iteration / "quarterly" / "eval_metadata.json", {"eval_id": 0, "prompt": CSV_CASES[0].prompt})
    trees.dump(iteration / "quarterly" / "with_skill" / "grading.json", _expectations([(Q_ROWS[0], True)]))
    # layout (c) (runs/eval-N/<config>/run-K), no metadata: the folder number is the id
    trees.dump(
        iteration / "runs" / "eval-2" / "with_skill" / "run-1" / "grading.json", _expectations([("x", True)])
    )
    quarterly, empty = look(ResultsIndex(root), skill, *CSV_CASES)
    assert quarterly.result is not None and quarterly.result.join == "eval_metadata.json prompt"
    assert empty.result is not None and empty.result.join == "folder number"
    # the number as a 0-based position, flagged as a guess
    (iteration / "runs" / "eval-2").rename(iteration / "runs" / "eval-1")
    (guess,) = look(ResultsIndex(root), skill, key("7", 1))
    assert guess.result is not None and "guess" in guess.result.join


def test_skill_creator_rows_match_by_text_loosely_then_by_position() -> None:
    from evalfix_ls.results.model import GradedRow

    rows = [GradedRow("The Q3 total is 48,210", True, "e"), GradedRow("Other", False, "f")]
    verdicts = match(rows, ["the q3  total is 48,210", "Renamed"])
    assert verdicts[0].state == PASSED and "ignoring case" in verdicts[0].note
    assert verdicts[1].state == FAILED and "position" in verdicts[1].note
    assert match(rows, ["a", "b", "c"])[2].state == STALE
