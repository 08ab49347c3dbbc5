"""Fixes on odd documents: every value of the bundled broken examples replaced, in turn, by values
of other types. No fixer may fail (it would log an error), and every fix must apply to a document
that still parses."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
from fix_support import view

from evalfix_ls.parser import parse
from evalfix_ls.parser.tree import iter_nodes
from evalfix_ls.services.fixes import fixes_for
from evalfix_ls.services.fixes.edits import apply_edits

BROKEN = Path(__file__).resolve().parents[3] / "examples" / "broken"
FILES = ["skills/release-notes-broken/evals/evals.json", "skills/spec-demo-broken/evals/cases.json"]
REPLACEMENTS = ["3", '"x"', '"Seeded"', "null", "[]", "{}", "true", '[" "]', '{"kind": 1}']


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(shutil.copytree(BROKEN, tmp_path_factory.mktemp("broken") / "b"))
    (root / ".git").mkdir()
    return root


def variants(text: str) -> list[str]:
    nodes = [node for node in iter_nodes(parse(text).root)][1:]
    out = []
    for index, node in enumerate(nodes):  # three types per value keep the run short
        for step in (0, 3, 6):
            replacement = REPLACEMENTS[(index + step) % len(REPLACEMENTS)]
            out.append(text[: node.start] + replacement + text[node.end :])
    return out


@pytest.mark.parametrize("rel", FILES)
def test_every_fix_of_a_mutated_document_applies_cleanly(
    broken: Path, rel: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="evalfix_ls.services.fixes")
    applied = 0
    for text in variants((broken / rel).read_text(encoding="utf-8")):
        document = view(broken, rel, text)
        for finding in document.analysis.findings:
            fixes = fixes_for(document, finding)
            assert sum(1 for fix in fixes if fix.preferred) <= 1, (finding.code, [f.title for f in fixes])
            for fix in fixes:
                json.loads(apply_edits(text, fix.edits))  # raises if a fix broke the JSON
                applied += 1
    assert applied > 500  # the mutations do reach the fixers
    assert not caplog.records, [record.getMessage() for record in caplog.records]
