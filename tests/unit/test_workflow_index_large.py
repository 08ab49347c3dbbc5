"""Large files in the workflow index: a big suite without a case array is recognised without a
positioned parse and contributes nothing; a big fixture with cases is still indexed."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import make_walking

from evalfix_ls.contracts.workflow import index as workflow_index
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.workspace.view import FileSystemView


def test_large_files_with_and_without_case_arrays(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    make_walking(tmp_path)
    evals = tmp_path / "skills/s/evals/evals.json"
    evals.parent.mkdir(parents=True)
    big_cases = [{"id": f"c{i}", "prompt": "p" * 200} for i in range(2000)]
    evals.write_text(json.dumps({"skill_name": "s", "evals": big_cases}))
    fixture = tmp_path / "skills/s/evals/cases.json"
    cases = [{"id": f"f{i}", "input": "x" * 200, "coverage_tags": ["trigger"]} for i in range(2000)]
    fixture.write_text(json.dumps({"skill": "s", "source_refs": ["a"], "cases": cases}))
    assert evals.stat().st_size > workflow_index._QUICK_CHECK_SIZE
    parsed: list[int] = []
    real_parse = workflow_index.parse
    monkeypatch.setattr(workflow_index, "parse", lambda text: parsed.append(len(text)) or real_parse(text))
    index = WorkflowIndex(tmp_path, FileSystemView())
    index.load_from_disk()
    assert parsed == [len(fixture.read_text())]  # the suite was never parsed with positions
    assert index.normalized("skills/s/evals/evals.json") is None
    assert len(index.case_summaries("skills/s/evals/cases.json")) == 2000
    # A file on disk keeps no tree: asked for, it is read and normalized again (the suite never).
    assert len(index.normalized("skills/s/evals/cases.json").cases) == 2000
    assert parsed == [len(fixture.read_text())] * 2
    assert "s:f1999" in index.earlier_ids("skills/s/evals/zz.json")
