"""JSONTestSuite (``../shared/corpus/jsontestsuite``, 318 parsing cases) through ``--check``: every
file placed both as an eval suite and as a workflow fixture gets the syntax finding exactly when
``JSON.parse`` rejects it, nothing crashes, and every finding lies inside its document. (The
server's side, typed in by incremental edits: tests/lsp/test_jsontestsuite_server.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import JSONTESTSUITE, json_parse_accepts, make_walking

from evalfix_ls.batch.run import check_paths

pytestmark = pytest.mark.corpus
SYNTAX = {"json-invalid", "invalid_json"}


@pytest.fixture(scope="module")
def cases() -> dict[str, bytes]:
    if not JSONTESTSUITE.is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    return {path.name: path.read_bytes() for path in sorted(JSONTESTSUITE.iterdir())}


def test_the_oracle_agrees_with_the_suites_labels(cases: dict[str, bytes]) -> None:
    assert len(cases) == 318
    for name, data in cases.items():
        if name[0] in "yn":
            assert json_parse_accepts(data) == (name[0] == "y"), name


def test_check_gives_json_parses_verdict_in_both_placements(cases: dict[str, bytes], tmp_path: Path) -> None:
    root = make_walking(tmp_path)  # every JSON file under skills/**/evals/ is a workflow fixture
    (root / ".git").mkdir()
    expected: dict[str, tuple[str, bool]] = {}
    for name, data in cases.items():
        for rel, kind in (
            (f"suites/{Path(name).stem}/evals/evals.json", "evals"),
            (f"skills/jts/evals/{name}", "workflow-fixture"),
        ):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            expected[rel] = (kind, json_parse_accepts(data))
    report = check_paths([root / "suites", root / "skills/jts"], root=root)
    assert sorted(file.display for file in report.files) == sorted(expected)
    wrong = []
    for file in report.files:
        kind, accepted = expected[file.display]
        findings = file.analysis.findings
        rejected = [f for f in findings if f.code in SYNTAX]
        if file.analysis.kind != kind or bool(rejected) == accepted or len(rejected) > 1:
            wrong.append((file.display, file.analysis.kind, accepted, [f.code for f in findings][:3]))
        length = len(file.analysis.text)
        wrong.extend((file.display, f.code) for f in findings if not 0 <= f.start <= f.end <= length)
    assert wrong == []
