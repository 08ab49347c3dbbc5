"""JSONTestSuite in the real server (issue 20 point 6): every parsing case, placed as an eval
suite and as a workflow fixture, is typed into an open document by random incremental edits
(pieces appended, stray characters inserted and removed again); the final version's diagnostics
carry the syntax finding exactly when ``JSON.parse`` rejects the file, every range lies inside the
document, and the server answers throughout. Skipped when the corpus is absent."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from fixture_paths import JSONTESTSUITE, json_parse_accepts
from lsp_support import Session, make_repo, units
from lsprotocol import types

pytestmark = pytest.mark.corpus  # skipped before its server starts where ../shared is absent
SYNTAX = {"json-invalid", "invalid_json"}
MAX_EDITS = 8  # appended pieces per document (a 100,000-bracket file as well)
STRAYS = ('"', ",", "{", "]", ":", "\\", "😀", "\n")


def type_in(session: Session, uri: str, text: str, rng: random.Random) -> None:
    """Append ``text`` in up to MAX_EDITS pieces; now and then a stray character goes in at a
    random place and comes out again with the next edit."""
    cuts = sorted(rng.sample(range(1, len(text)), min(MAX_EDITS - 1, len(text) - 1))) if len(text) > 1 else []
    done = 0
    for cut in [*cuts, len(text)]:
        current = session.texts[uri]
        session.edit(uri, len(current), len(current), text[done:cut])
        done = cut
        if rng.random() < 0.5:
            at = rng.randrange(len(session.texts[uri]) + 1)
            stray = rng.choice(STRAYS)
            session.edit(uri, at, at, stray)
            session.edit(uri, at, at + len(stray), "")
    assert session.texts[uri] == text


def out_of_document(text: str, diagnostics: list[types.Diagnostic], encoding: str) -> list[str]:
    lines = re.split("\r\n|\r|\n", text)
    bad = []
    for diagnostic in diagnostics:
        start, end = diagnostic.range.start, diagnostic.range.end
        for position in (start, end):
            if position.line >= len(lines) or position.character > units(lines[position.line], encoding):
                bad.append(f"{diagnostic.code} at {position}")
        if (start.line, start.character) > (end.line, end.character):
            bad.append(f"{diagnostic.code}: reversed range")
    return bad


@pytest.mark.parametrize("placement", ["suites/{stem}/evals/evals.json", "skills/jts/evals/{name}"])
async def test_typed_in_every_case_gets_json_parses_verdict(
    pull_session: Session, tmp_path: Path, placement: str
) -> None:
    if not JSONTESTSUITE.is_dir():
        pytest.skip("../shared/corpus is not available (only in the developers' workspace)")
    root = make_repo(tmp_path)  # a walking repository: anything under skills/**/evals/ is a fixture
    await pull_session.initialize([root])
    wrong: list[str] = []
    for source in sorted(JSONTESTSUITE.iterdir()):
        data = source.read_bytes()
        text = data.decode("utf-8", "replace")  # what an editor holding the file would send
        path = root / placement.format(stem=source.stem, name=source.name)
        uri = pull_session.open(path, "")
        type_in(pull_session, uri, text, random.Random(source.name))
        report = await pull_session.pull_document(uri)
        codes = [str(d.code) for d in report.items]
        rejected = [code for code in codes if code in SYNTAX]
        if bool(rejected) == json_parse_accepts(data) or len(rejected) > 1:
            wrong.append(f"{source.name}: {codes[:4]}")
        wrong.extend(
            f"{source.name}: {bad}" for bad in out_of_document(text, report.items, pull_session.encoding)
        )
        pull_session.close(uri)
    assert wrong == []
