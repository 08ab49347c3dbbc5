"""Diagnostics over the real protocol: exact ranges in every negotiated encoding, incremental
edits, versions, pull result ids, typing bursts, close behaviour."""

from __future__ import annotations

from pathlib import Path

from lsp_support import (
    Session,
    codes,
    expected_diagnostics,
    lsp_range,
    make_repo,
    shown,
    workflow_fixture,
    write_json,
)
from lsprotocol import types

# One line with CJK and emoji (astral: 2 UTF-16 units, 4 UTF-8 bytes) before the duplicated key.
FIXTURE = (
    '{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "demo",\n'
    ' "source_refs": ["skills/demo/SKILL.md"], "coverage_tags": ["routing"],\n'
    ' "cases": [{"id": "一", "input": "做点什么 🎉🎉", "input": "再来 👍", '
    '"coverage_tags": ["trigger"], "expected_outcome": "ok"}]}\n'
)


def _repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo")
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text("# demo\n", encoding="utf-8")
    return root


async def test_ranges_on_open_and_after_incremental_edits(session: Session, tmp_path: Path) -> None:
    root = _repo(tmp_path)
    path = root / "skills" / "demo" / "evals" / "cases.json"
    path.parent.mkdir(parents=True)
    path.write_text(FIXTURE, encoding="utf-8")
    result = await session.initialize([root])
    assert result.capabilities.position_encoding == session.encoding

    uri = session.open(path)
    text = FIXTURE
    first = text.index('"input"')
    second = text.index('"input"', first + 1)
    items = await session.diagnostics(uri, lambda d: "duplicate_json_key" in codes(d))
    dup_ranges = {(d.range.start.line, d.range.start.character, d.range.end.character) for d in items}
    for offset in (first, second):  # the key names, quotes included, after CJK and emoji
        rng = lsp_range(text, offset, offset + len('"input"'), session.encoding)
        assert (rng.start.line, rng.start.character, rng.end.character) in dup_ranges
    assert shown(items) == expected_diagnostics(text, path, root, session.encoding)

    # Remove the first duplicate (a range that starts after the emoji of the same line).
    end_first = text.index('"input"', first + 1)
    text = session.edit(uri, first, end_first, "")
    items = await session.diagnostics(uri, lambda d: "duplicate_json_key" not in codes(d))
    assert shown(items) == expected_diagnostics(text, path, root, session.encoding)

    # Break the JSON right after the last emoji: the error lands exactly there.
    after_emoji = text.index("👍") + 1
    text = session.edit(uri, after_emoji, after_emoji + 1, '", }')
    items = await session.diagnostics(uri, lambda d: "invalid_json" in codes(d))
    assert shown(items) == expected_diagnostics(text, path, root, session.encoding)
    assert session.texts[uri] == text


async def test_raw_u2028_in_a_string_does_not_shift_later_edits(session: Session, tmp_path: Path) -> None:
    """pygls' own sync splits lines at U+2028 (legal, raw, inside JSON strings): an edit on a
    later line would land one line too low. Our store must apply it where the client meant."""
    root = _repo(tmp_path)
    path = root / "skills" / "demo" / "evals" / "sep.json"
    data = workflow_fixture("demo", ["a"])
    data["cases"][0]["input"] = "line\u2028separator\u2029paragraph\u0085next"
    text = '{"schema_version": "spec-first.workflow-eval-fixtures.v1",\n'
    text += ' "note": "raw \u2028 separators \u2029 here",\n'
    text += ' "skill": "demo",\n "skill": "demo",\n'
    text += ' "source_refs": ["skills/demo/SKILL.md"], "coverage_tags": ["routing"],\n'
    text += ' "cases": [{"id": "a", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "ok"}]}\n'
    write_json(path, data)
    await session.initialize([root])
    uri = session.open(path, text)
    await session.diagnostics(uri, lambda d: "duplicate_json_key" in codes(d))

    # Rename the second "skill" key (line 3) to "skill2": the duplicate disappears only if the
    # edit lands on line 3 and not on the line after.
    second_skill = text.index('"skill"', text.index('"skill"') + 1)
    text = session.edit(uri, second_skill + 1, second_skill + 6, "owner")
    items = await session.diagnostics(uri, lambda d: "duplicate_json_key" not in codes(d))
    assert shown(items) == expected_diagnostics(text, path, root, session.encoding)
    assert "invalid_json" not in codes(items)


async def test_versions_and_typing_bursts(push_session: Session, tmp_path: Path) -> None:
    """Push: every publish for an open document names its version; a burst of edits yields
    diagnostics for the last version, not one publish per keystroke."""
    session = push_session
    root = _repo(tmp_path)
    path = write_json(root / "skills" / "demo" / "evals" / "typing.json", workflow_fixture("demo", ["a"]))
    await session.initialize([root])
    uri = session.open(path)
    await session.diagnostics(uri)
    before = len(session.published[uri])
    text = session.texts[uri]
    insert_at = text.index('"ok"') + 3
    edits = 15
    for index in range(edits):
        text = session.edit(uri, insert_at + index, insert_at + index, "x")
    await session.diagnostics(uri)  # waits for a publish of the latest version
    publishes = session.published[uri][before:]
    assert publishes[-1].version == session.versions[uri]
    assert len(publishes) < edits
    versions = [p.version for p in publishes]
    assert versions == sorted(versions)


async def test_pull_result_ids_and_unchanged_reports(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    root = _repo(tmp_path)
    path = root / "skills" / "demo" / "evals" / "pull.json"
    path.parent.mkdir(parents=True)
    path.write_text(FIXTURE, encoding="utf-8")
    await session.initialize([root])
    uri = session.open(path)

    first = await session.pull_document(uri)
    assert first.kind == "full" and first.result_id
    assert "duplicate_json_key" in codes(first.items)
    again = await session.pull_document(uri, first.result_id)
    assert again.kind == "unchanged" and again.result_id == first.result_id

    # A new version with the same diagnostics (trailing whitespace) is still "unchanged".
    text = session.texts[uri]
    session.edit(uri, len(text), len(text), "\n\n")
    same = await session.pull_document(uri, first.result_id)
    assert same.kind == "unchanged"

    # A change of the diagnostics gives a full report with a new id.
    text = session.texts[uri]
    second = text.index('"input"', text.index('"input"') + 1)
    session.edit(uri, second + 1, second + 6, "intent")
    changed = await session.pull_document(uri, first.result_id)
    assert changed.kind == "full" and changed.result_id != first.result_id
    assert "duplicate_json_key" not in codes(changed.items)


async def test_data_and_related_information(pull_session: Session, tmp_path: Path) -> None:
    session = pull_session
    root = _repo(tmp_path)
    fixture = workflow_fixture("demo", ["same", "same"])
    path = write_json(root / "skills" / "demo" / "evals" / "dup.json", fixture)
    await session.initialize([root])
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "duplicate_case_id" in codes(d))
    duplicate = next(d for d in items if d.code == "duplicate_case_id")
    assert duplicate.source == "evalfix-ls"
    assert duplicate.severity == types.DiagnosticSeverity.Error
    assert duplicate.data["pointer"] == "/cases/1/id"
    assert duplicate.data["case"] == 1
    related = duplicate.related_information[0]
    assert related.location.uri == uri
    text = session.texts[uri]
    first_id = text.index('"same"')
    assert related.location.range == lsp_range(text, first_id, first_id + len('"same"'), session.encoding)


async def test_inherited_findings_are_merged_per_case(pull_session: Session, tmp_path: Path) -> None:
    """One top-level problem repeated for 3 cases is one diagnostic listing the cases."""
    session = pull_session
    root = make_repo(tmp_path / "repo")  # no SKILL.md: the inherited ref is missing for every case
    fixture = workflow_fixture("demo", ["a", "b", "c"])
    path = write_json(root / "skills" / "demo" / "evals" / "inh.json", fixture)
    await session.initialize([root])
    uri = session.open(path)
    items = await session.diagnostics(uri, lambda d: "source_ref_missing" in codes(d))
    missing = [d for d in items if d.code == "source_ref_missing"]
    assert len(missing) == 1
    assert missing[0].data["cases"] == [0, 1, 2]
    assert "3 cases" in missing[0].message


async def test_close_clears_files_outside_the_workspace(push_session: Session, tmp_path: Path) -> None:
    session = push_session
    root = _repo(tmp_path)
    inside = root / "skills" / "demo" / "evals" / "inside.json"
    inside.parent.mkdir(parents=True)
    inside.write_text(FIXTURE, encoding="utf-8")
    outside = make_repo(tmp_path / "elsewhere") / "evals" / "evals.json"
    outside.parent.mkdir(parents=True)
    outside.write_text('{"skill_name": "x", "evals": [], "evals": []}', encoding="utf-8")
    await session.initialize([root])

    out_uri = session.open(outside)
    assert "duplicate-key" in codes(await session.diagnostics(out_uri, lambda d: bool(d)))
    in_uri = session.open(inside)
    await session.diagnostics(in_uri, lambda d: "duplicate_json_key" in codes(d))
    # Unsaved edit that fixes the duplicate, then close: the disk still has it.
    text = session.texts[in_uri]
    second = text.index('"input"', text.index('"input"') + 1)
    session.edit(in_uri, second + 1, second + 6, "intent")
    await session.diagnostics(in_uri, lambda d: "duplicate_json_key" not in codes(d))

    pushes_before_close = len(session.published.get(out_uri, []))
    session.close(out_uri)
    session.close(in_uri)
    del session.versions[out_uri], session.versions[in_uri]
    await session.diagnostics(out_uri, lambda d: not d)
    # the server itself cleared them: a new publish, without a version (the document is closed)
    cleared = session.published[out_uri][pushes_before_close:]
    assert cleared and len(cleared[-1].diagnostics) == 0 and cleared[-1].version is None
    items = await session.diagnostics(in_uri, lambda d: "duplicate_json_key" in codes(d))
    assert session.published[in_uri][-1].version is None
    assert shown(items) == expected_diagnostics(FIXTURE, inside, root, session.encoding)
