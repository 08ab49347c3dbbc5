"""Source-ref paths at the edges of the repository, one row per spelling: what the reference does
with it (workflow-fixtures.md §6: ``path.join(repoRoot, path)`` normalized lexically, a trailing
``/`` kept, existence tested only under ``source``), what the contract says of it (§1:
"repository-relative source evidence"), and so what evalfix-ls reports (specs/README.md's
severity policy; §2.1b, §13, §14).

* The reference rejects it → an error, the reference's code (or ``path_outside_repository``, which
  §2.1b assigns to a ref under ``source`` that evalfix-ls never tests because it leaves the
  repository).
* Only the contract rejects it → the warning ``source_ref_outside_repo``, never an error: ``..`` and
  every directory above the root exist (§6), and ``historical``/``advisory`` refs are never tested.

Every row is also checked against the test oracle (``workflow_oracle``), the independent
restatement the property tests compare with, so the two cannot drift apart on these spellings.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from workflow_oracle import reference_errors
from workflow_support import FIXTURE, base, errors, make_repo, non_errors, with_case, write_and_analyze

from evalfix_ls.analysis import analyze

OUT = "source_ref_outside_repo"  # the warning
PATH_OUT = "path_outside_repository"  # the error
Row = tuple[str, Any, list[tuple[str, str, int | None]], list[tuple[str, str, int | None]]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``repo/`` (named so: ``../repo/…`` comes back in), ``outside/x.md`` beside it and a link
    ``repo/docs/link`` to ``outside/``."""
    root = make_repo(tmp_path / "repo")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/x.md").write_text("outside")
    (root / "docs/link").symlink_to(tmp_path / "outside", target_is_directory=True)
    return root


def refs(*paths: str, authority: str = "source") -> dict[str, Any]:
    """The clean file with these top-level refs (inherited by its one case)."""
    return base(source_refs=list(paths), source_ref_authority=authority)


def case_refs(*paths: str, authority: str | None = None) -> dict[str, Any]:
    """The clean file with these refs on its case (and the clean top-level ref first)."""
    case: dict[str, Any] = {"source_refs": list(paths)}
    if authority is not None:
        case["source_ref_authority"] = authority
    return with_case(case)


def two_cases(top: list[str], second_authority: str) -> dict[str, Any]:
    payload = base(source_refs=top)
    first = payload["cases"][0]
    payload["cases"] = [first, dict(first, id="second", source_ref_authority=second_authority)]
    return payload


TOP, CASE = "/source_refs/0", "/cases/0/source_refs/0"

ROWS: list[Row] = [
    # §6: ".", "..", and directories exist; path.join normalizes lexically.
    ("§6 '.' is the root", refs("."), [], []),
    ("§6 './' is the root as a directory", refs("./"), [], []),
    ("§6 empty segments collapse", refs("skills//demo///SKILL.md"), [], []),
    ("§6 trailing slash on a directory", refs("skills/demo/"), [], []),
    (
        "§6 trailing slash on a file is missing",
        refs("skills/demo/SKILL.md/"),
        [("source_ref_missing", TOP, 0)],
        [],
    ),
    ("§6 '..' exists: only the contract rejects it", refs(".."), [], [(OUT, TOP, None)]),
    ("§6 '../' exists", refs("../"), [], [(OUT, TOP, None)]),
    ("§6 '../..' exists", refs("../.."), [], [(OUT, TOP, None)]),
    ("§6 'a/../..' is '..'", refs("skills/../.."), [], [(OUT, TOP, None)]),
    ("§6 a missing segment is normalized away", refs("nope/../.."), [], [(OUT, TOP, None)]),
    ("§6 only the pre-# part counts", refs("..#anchor"), [], [(OUT, TOP, None)]),
    ("§6 back in through the checkout's name", refs("../repo/skills/demo/SKILL.md"), [], [(OUT, TOP, None)]),
    (
        "§6 back in, missing",
        refs("../repo/skills/demo/NOPE.md"),
        [("source_ref_missing", TOP, 0)],
        [(OUT, TOP, None)],
    ),
    # §2.1b: under source, a target outside is never tested; the error replaces source_ref_missing.
    ("§2.1b '../x' missing outside", refs("../x.md"), [(PATH_OUT, TOP, 0)], []),
    ("§2.1b '../outside/x.md' existing outside", refs("../outside/x.md"), [(PATH_OUT, TOP, 0)], []),
    ("§2.1b a link leading out", refs("docs/link/x.md"), [(PATH_OUT, TOP, 0)], []),
    ("§2.1b 'a/../../x'", refs("skills/../../x.md"), [(PATH_OUT, TOP, 0)], []),
    ("§2.1b an embedded NUL outside", refs("../x\u0000"), [(PATH_OUT, TOP, 0)], []),
    ("§6 an embedded NUL inside is missing", refs("skills/x\u0000"), [("source_ref_missing", TOP, 0)], []),
    (
        "§6 raw prefix and outside: both",
        refs("docs/plans/../../../x.md"),
        [("source_ref_not_source_authority", TOP, 0), (PATH_OUT, TOP, 0)],
        [],
    ),
    # §6: under historical/advisory only step 2 runs; the reference accepts every such path.
    ("§6 historical '../x'", refs("../x.md", authority="historical"), [], [(OUT, TOP, None)]),
    ("§6 advisory '../x'", refs("../x.md", authority="advisory"), [], [(OUT, TOP, None)]),
    ("§6 historical '..'", refs("..", authority="historical"), [], [(OUT, TOP, None)]),
    ("§6 advisory link leading out", refs("docs/link/x.md", authority="advisory"), [], [(OUT, TOP, None)]),
    (
        "§5 rule 6: an invalid authority skips step 3",
        refs("../x.md", authority="bogus"),
        [("invalid_source_ref_authority", "/source_ref_authority", 0)],
        [(OUT, TOP, None)],
    ),
    # §6 step 2: absolute paths and backslashes are invalid under every authority, nothing else.
    ("§6 absolute", refs("/.."), [("invalid_source_ref", TOP, 0)], []),
    ("§6 absolute above", refs("/tmp/../etc"), [("invalid_source_ref", TOP, 0)], []),
    ("§6 absolute, historical", refs("/x", authority="historical"), [("invalid_source_ref", TOP, 0)], []),
    ("§6 backslash", refs("..\\x.md"), [("invalid_source_ref", TOP, 0)], []),
    ("§6 backslash, advisory", refs("..\\..", authority="advisory"), [("invalid_source_ref", TOP, 0)], []),
    ("§6 nothing before '#'", refs("#.."), [("invalid_source_ref", TOP, 0)], []),
    # Case-level refs, and inherited ones under a case's own authority (§4.3, §5 notes).
    ("§4.3 case-level '..'", case_refs(".."), [], [(OUT, CASE, 0)]),
    ("§4.3 case-level '../x'", case_refs("../x.md"), [(PATH_OUT, CASE, 0)], []),
    (
        "§4.3 case-level '../x', historical case",
        case_refs("../x.md", authority="historical"),
        [],
        [(OUT, CASE, 0)],
    ),
    (
        "§4.3 the case's authority governs inherited refs",
        two_cases(["skills/demo/SKILL.md", "../x.md"], "historical"),
        [(PATH_OUT, "/source_refs/1", 0)],
        [(OUT, "/source_refs/1", None)],
    ),
    (
        "§5 notes: inherited '../x' repeats per case",
        two_cases(["skills/demo/SKILL.md", "../x.md"], "source"),
        [(PATH_OUT, "/source_refs/1", 0), (PATH_OUT, "/source_refs/1", 1)],
        [],
    ),
    (
        "§5 notes: inherited '..' is one warning",
        two_cases(["skills/demo/SKILL.md", ".."], "source"),
        [],
        [(OUT, "/source_refs/1", None)],
    ),
]


@pytest.mark.parametrize(("label", "payload", "want_errors", "want_warnings"), ROWS, ids=[r[0] for r in ROWS])
def test_ref_paths(
    repo: Path,
    label: str,
    payload: Any,
    want_errors: list[tuple[str, str, int | None]],
    want_warnings: list[tuple[str, str, int | None]],
) -> None:
    text = json.dumps(payload, ensure_ascii=False)
    analysis = write_and_analyze(repo, text)
    assert sorted(errors(analysis), key=str) == sorted(want_errors, key=str), label
    outside = [row for row in non_errors(analysis) if row[0] == OUT]
    assert outside == want_warnings, label
    assert Counter((code, case) for code, _, case in errors(analysis)) == Counter(
        reference_errors(text, FIXTURE, repo)
    ), "the oracle disagrees"


@pytest.mark.parametrize(
    ("ref", "want_error", "want_warning"),
    [("../x.md", [PATH_OUT], []), ("..", [], [OUT]), ("../..", [], [OUT]), ("a/../../x", [PATH_OUT], [])],
)
def test_an_unsaved_buffer_sees_only_dot_dot(
    ref: str, want_error: list[str], want_warning: list[str]
) -> None:
    """Without a repository root (§6: existence is not decided) a ref made only of ``..`` still
    names a directory above wherever the file will be saved, which exists; any other ``../`` path
    is §2.1b's error."""
    analysis = analyze(json.dumps(refs(ref)))
    assert [f.code for f in analysis.findings if f.severity.word == "error"] == want_error
    assert [f.code for f in analysis.findings if f.code == OUT] == want_warning
