"""Diagnostics per keystroke proportional to the edit (issue 19, point 4, in part): the findings of
the cases a keystroke did not touch keep their ``Diagnostic`` objects instead of being converted
again, and the report is the one a fresh conversion gives (in-process: the analyzer's jobs as the
job runner builds them, a suite whose every case names a missing file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsp_support import make_repo, noisy_suite, write_json
from lsprotocol import types

from evalfix_ls.contracts.case_cache import CaseCache
from evalfix_ls.lsp.diagnostics import convert
from evalfix_ls.lsp.diagnostics.convert import fingerprint
from evalfix_ls.lsp.diagnostics.worker import Job, Result, run_job
from evalfix_ls.lsp.session.documents import DocumentStore, Snapshot
from evalfix_ls.lsp.session.settings import Settings
from evalfix_ls.lsp.session.workspace_index import WorkspaceIndex
from evalfix_ls.text.line_index import Encoding, LineIndex


class Document:
    """One open document analysed keystroke after keystroke, as ``JobRunner`` does it."""

    def __init__(self, root: Path, path: Path) -> None:
        self.index = WorkspaceIndex(watching=True)
        self.index.set_folders([root])
        self.settings = Settings(self.index)
        self.path = path
        self.repo = self.index.repo(self.index.repo_root_for(path, self.settings.config_for(path).root))
        self.store = DocumentStore()
        self.uri = path.as_uri()
        self.cache = CaseCache()
        self.snapshot = self.store.open(self.uri, 1, path.read_text(encoding="utf-8"))
        self.result = self.run(self.snapshot)

    def run(self, snapshot: Snapshot, previous: Result | None = None, *, fresh: bool = False) -> Result:
        job = Job(
            uri=self.uri,
            path=self.path,
            snapshot=snapshot,
            repo=self.repo,
            config=self.settings.config_for(self.path),
            encoding=Encoding.UTF16,
            key=(0,),
            use_workflow_index=False,
            case_cache=None if fresh else self.cache,  # fresh: no cache, no blocks (as --check)
        )
        if previous is not None and not fresh:
            analysis = previous.analysis
            job = Job(
                **{
                    **_fields(job),
                    "prev_tree": analysis.tree,
                    "edit": snapshot.edit,
                    "prev_memo": previous.memo,
                }
            )
        return run_job(job, self.store.for_path)

    def change(self, *edits: tuple[int, int, str]) -> Result:
        """One ``didChange`` replacing each ``(start, end)`` of the current text (code points) by
        its text, in the order given (each edit's offsets in the text the ones before it left)."""
        changes = []
        text = self.snapshot.text
        for start, end, new in edits:
            index = LineIndex(text)
            (l0, c0), (l1, c1) = index.position(start, Encoding.UTF16), index.position(end, Encoding.UTF16)
            rng = types.Range(
                start=types.Position(line=l0, character=c0), end=types.Position(line=l1, character=c1)
            )
            changes.append(types.TextDocumentContentChangePartial(range=rng, text=new))
            text = text[:start] + new + text[end:]
        self.snapshot = self.store.change(self.uri, self.snapshot.version + 1, changes, Encoding.UTF16)
        assert self.snapshot.text == text
        self.result = self.run(self.snapshot, self.result)
        return self.result

    def type_at(self, needle: str, text: str) -> tuple[Result, Result]:
        """Insert ``text`` after ``needle``; (the result reusing the last one, a fresh one)."""
        return self.insert(needle, text), self.run(self.snapshot, fresh=True)

    def insert(self, needle: str, text: str) -> Result:
        """Insert ``text`` after ``needle``: the result reusing the last one."""
        return self.insert_at(self.snapshot.text.index(needle) + len(needle), text)

    def insert_at(self, offset: int, text: str) -> Result:
        """Insert ``text`` at ``offset``: the result reusing the last one."""
        line, character = self.snapshot.line_index.position(offset, Encoding.UTF16)
        point = types.Position(line=line, character=character)
        change = types.TextDocumentContentChangePartial(range=types.Range(start=point, end=point), text=text)
        version = self.snapshot.version + 1
        self.snapshot = self.store.change(self.uri, version, [change], Encoding.UTF16)
        self.result = self.run(self.snapshot, self.result)
        return self.result


def _fields(job: Job) -> dict[str, Any]:
    return {name: getattr(job, name) for name in Job.__dataclass_fields__}


def new_objects(before: Result, after: Result) -> list[types.Diagnostic]:
    kept = {id(diagnostic) for diagnostic in before.diagnostics}
    return [diagnostic for diagnostic in after.diagnostics if id(diagnostic) not in kept]


def test_a_keystroke_converts_only_the_findings_it_moved(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(40))
    document = Document(root, path)
    first = document.result
    assert len(first.diagnostics) >= 40  # every case names a missing file
    reused, fresh = document.type_at('"prompt": "写 🎉 20', "x")  # inside case 20's prompt
    assert fingerprint(reused.diagnostics) == fingerprint(fresh.diagnostics)
    converted = new_objects(first, reused)
    assert 0 < len(converted) <= 3, [d.message for d in converted]  # case 20's, not the other 39 cases'


def test_an_edit_that_adds_a_line_converts_what_follows_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(40))
    document = Document(root, path)
    first = document.result
    reused, fresh = document.type_at('"prompt": "写 🎉 20",', '\n      "expected_output": "n",')
    assert fingerprint(reused.diagnostics) == fingerprint(fresh.diagnostics)

    def of_cases(result: Result, keep: Any) -> list[types.Diagnostic]:
        return [d for d in result.diagnostics if isinstance(d.data.get("case"), int) and keep(d.data["case"])]

    kept = {id(d) for d in first.diagnostics}
    before, after = of_cases(reused, lambda case: case < 20), of_cases(reused, lambda case: case > 20)
    assert before and all(id(d) in kept for d in before)  # above the new line: the same objects
    assert after and not any(id(d) in kept for d in after)  # below it: one line further down


def test_typing_a_line_break_shifts_what_follows_without_converting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing a new case starts with a line break: every finding below moves one line down. They
    are shifted from the previous diagnostics (the same data objects), not converted again: the
    conversions are counted, and the report equals a fresh one."""
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(40))
    document = Document(root, path)
    first = {id(d.data): d for d in document.result.diagnostics}
    conversions = []
    plain = convert.lsp_range
    monkeypatch.setattr(convert, "lsp_range", lambda *args: conversions.append(args) or plain(*args))
    reused = document.insert('"prompt": "写 🎉 20",', "\n")
    assert len(conversions) <= 3  # case 20's findings at most: nothing below it
    fresh = document.run(document.snapshot, fresh=True)
    assert fingerprint(reused.diagnostics) == fingerprint(fresh.diagnostics)
    below = [d for d in reused.diagnostics if isinstance(d.data.get("case"), int) and d.data["case"] > 20]
    assert len(below) >= 19
    for diagnostic in below:
        earlier = first[id(diagnostic.data)]  # the very data of the previous result
        assert diagnostic.range.start.line == earlier.range.start.line + 1


def test_a_keystroke_on_a_one_line_suite_moves_the_columns_after_it(tmp_path: Path) -> None:
    """Minified: every case on line 0, so the findings after the edit keep their line but not
    their columns — converted again, not reused."""
    root = make_repo(tmp_path / "repo")
    path = root / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(noisy_suite(40), ensure_ascii=False), encoding="utf-8")
    document = Document(root, path)
    reused, fresh = document.type_at('"prompt": "写 🎉 20', "x")
    assert fingerprint(reused.diagnostics) == fingerprint(fresh.diagnostics)


@pytest.mark.parametrize("typed", ["x", "\n"], ids=["in-line", "line-break"])
def test_the_fingerprint_reuses_the_parts_of_what_the_conversion_reused(tmp_path: Path, typed: str) -> None:
    """Work counted: the result's fingerprint (its result id) computes the part of a diagnostic
    again only when the conversion made it anew — not for the diagnostics kept (a keystroke) nor
    for those moved down by a line break; and it equals the fingerprint of a fresh analysis."""
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(40))
    document = Document(root, path)
    first = document.result
    reused = document.insert('"prompt": "写 🎉 20",' if typed == "\n" else '"prompt": "写 🎉 20', typed)
    fresh = document.run(document.snapshot, fresh=True)
    assert reused.fingerprint == fingerprint(fresh.diagnostics)
    assert reused.memo is not None
    assert reused.memo.printed == len(new_objects(first, reused)) - moved_by_lines(first, reused)
    assert reused.memo.printed <= 3  # case 20's findings at most, of more than 40


def moved_by_lines(before: Result, after: Result) -> int:
    """The diagnostics of ``after`` that are copies of ``before``'s (the same data) on other lines."""
    earlier = {id(d.data): d for d in before.diagnostics}
    return sum(
        1
        for d in after.diagnostics
        if id(d.data) in earlier and earlier[id(d.data)] is not d and earlier[id(d.data)].range != d.range
    )


NEW_CASE = '\n    {"id": "typed-case", "prompt": "写一个 😀 file", "assertions": ["it works"]},'


def test_typing_a_case_through_invalid_json_reports_what_a_fresh_analysis_does(tmp_path: Path) -> None:
    """A new case typed character by character after case 20 (CJK and emoji in it and around it),
    through every invalid state: each keystroke's report (its diagnostics, their fingerprint and
    the JSON a pull or a publish writes, assembled from the previous report's pieces) is a fresh
    analysis's."""
    from evalfix_ls.lsp.diagnostics.encoded import EncodedDocuments, encode_items

    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(40))
    document = Document(root, path)
    encoded = EncodedDocuments()
    encoded.items(document.uri, document.result.diagnostics).text()
    text = document.snapshot.text
    at = text.index('"prompt": "写 🎉 20"')
    at = text.index("\n    },", at) + len("\n    },")
    for count, character in enumerate(NEW_CASE):
        shifted = document.cache.shifted
        reused = document.insert_at(at + count, character)
        # Work counted: no cached finding rebuilt at its new offset, broken text or not (the
        # cases inside the intact parts stay blocks).
        assert document.cache.shifted == shifted, (count, character)
        fresh = document.run(document.snapshot, fresh=True)
        assert reused.fingerprint == fingerprint(fresh.diagnostics), (count, character)
        assert reused.parts is not None  # the cached cases' path (case_blocks.py)
        report = encoded.items(document.uri, reused.diagnostics, reused.parts).text()
        assert report == encode_items(fresh.diagnostics)[1], (count, character)
        assert rows(reused.analysis.findings) == rows(fresh.analysis.findings), (count, character)


def rows(findings: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (f.code, f.severity, f.message, f.pointer, f.start, f.end, f.case, f.data, f.related)
        for f in findings
    ]


class Checked:
    """A document whose every result is encoded as a pull answers it (each report from the pieces
    of the one before) and compared with a fresh analysis of the same text."""

    def __init__(self, document: Document) -> None:
        from evalfix_ls.lsp.diagnostics.encoded import EncodedDocuments

        self.document = document
        self.encoded = EncodedDocuments()
        self.report(document.result)

    def report(self, result: Result) -> str:
        return self.encoded.items(result.uri, result.diagnostics, result.parts).text()

    def check(self, result: Result) -> None:
        from evalfix_ls.lsp.diagnostics.encoded import encode_items

        document = self.document
        fresh = document.run(document.snapshot, fresh=True)
        assert result.parts is not None  # the cached cases' path (case_blocks.py)
        assert result.fingerprint == fingerprint(fresh.diagnostics)
        assert self.report(result) == encode_items(fresh.diagnostics)[1]
        assert rows(result.analysis.findings) == rows(fresh.analysis.findings)


def _offset(document: Document, needle: str, after: bool = True) -> int:
    text = document.snapshot.text
    return text.index(needle) + (len(needle) if after else 0)


def _case_start(document: Document, n: int) -> int:
    """Where case ``n``'s object begins (its ``{``)."""
    text = document.snapshot.text
    return text.rindex("{", 0, text.index(f'"id": "case-{n}"'))


def _remove_line(document: Document, needle: str) -> Result:
    start = _offset(document, needle, after=False)
    line_start = document.snapshot.text.rindex("\n", 0, start)
    return document.change((line_start, start + len(needle), ""))


EDITS = {
    # Lines added or removed before many cases: those below move by whole lines.
    "line-break-before-many": lambda d: d.insert('"prompt": "写 🎉 2",', "\n"),
    "lines-added-before-many": lambda d: d.insert(
        '"prompt": "写 🎉 2",', '\n      "description": "a",\n      "x": 1,'
    ),
    "line-removed-before-many": lambda d: _remove_line(d, '"kind": "seeded",'),
    # On the first line of a case, before its ``{``: its text is the same, its column is not.
    "first-line-of-a-case": lambda d: d.change((_case_start(d, 20), _case_start(d, 20), " ")),
    # Two changes in one didChange, far apart, the later one first (as an editor sends a
    # multi-cursor edit: each change's offsets are in the text the one before left).
    "multi-edit-batch": lambda d: d.change(
        (_offset(d, '"prompt": "写 🎉 30",'), _offset(d, '"prompt": "写 🎉 30",'), "\n"),
        (_offset(d, '"prompt": "写 🎉 5'), _offset(d, '"prompt": "写 🎉 5'), "x"),
    ),
    "multi-edit-removing-and-adding-lines": lambda d: d.change(
        (_offset(d, '"prompt": "写 🎉 30",'), _offset(d, '"prompt": "写 🎉 30",'), "\n\n"),
        (_offset(d, '"prompt": "写 🎉 5",'), _offset(d, '"prompt": "写 🎉 5",') + 1, ""),
    ),
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_cached_cases_moved_by_an_edit_report_what_a_fresh_analysis_does(tmp_path: Path, edit: str) -> None:
    """Each edit twice (the second moves the cases the first moved once more), every report a
    fresh analysis's: diagnostics, fingerprint, the JSON joined from the cases' pieces, and the
    absolute findings built on demand."""
    root = make_repo(tmp_path / "repo")
    suite = noisy_suite(40)
    # Case 33 repeats case 5's id after a member with a finding: the duplicate-id finding (not
    # cached) falls among case 33's own.
    suite["evals"][33] = {"description": 5, **suite["evals"][33], "id": "case-5"}
    path = write_json(root / "evals" / "evals.json", suite)
    # Case 20 on one line: its findings are on its first line, whose columns an edit before
    # the case on that line moves.
    pretty = json.dumps(suite["evals"][20], ensure_ascii=False, indent=2).replace("\n", "\n    ")
    compact = json.dumps(suite["evals"][20], ensure_ascii=False)
    path.write_text(path.read_text(encoding="utf-8").replace(pretty, compact), encoding="utf-8")
    document = Document(root, path)
    assert compact in document.snapshot.text
    checked = Checked(document)
    for _ in range(2):
        checked.check(EDITS[edit](document))


@pytest.mark.parametrize("typed", ["x", "😀", "写"])
def test_an_edit_before_a_case_on_its_line_changes_its_columns(tmp_path: Path, typed: str) -> None:
    """A one-line suite: an edit in case 19 moves case 20 along the same line, by one code point
    and by as many UTF-16 units as ``typed`` takes (2 for the emoji): its diagnostics are
    converted again, not reused from the previous result."""
    root = make_repo(tmp_path / "repo")
    path = root / "evals" / "evals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(noisy_suite(40), ensure_ascii=False), encoding="utf-8")
    document = Document(root, path)
    checked = Checked(document)
    for _ in range(2):
        checked.check(document.insert('"prompt": "写 🎉 19', typed))


def test_a_keystroke_in_case_10_of_500_costs_the_findings_of_case_10(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Work counted, not timed: a keystroke in case 10 of 500 (490 cases move) rebuilds no
    finding at its new offset, looks up no finding of a moved case in the previous result,
    prints and encodes the findings of case 10 only — and the report is a fresh analysis's."""
    from evalfix_ls.lsp.diagnostics import convert as conversion
    from evalfix_ls.lsp.diagnostics import encoded

    root = make_repo(tmp_path / "repo")
    document = Document(root, write_json(root / "evals" / "evals.json", noisy_suite(500)))
    checked = Checked(document)
    assert len(document.result.diagnostics) >= 500
    looked_up: list[object] = []
    written: list[object] = []
    reused, piece = convert._reused, encoded.encoded_piece
    monkeypatch.setattr(convert, "_reused", lambda *args: looked_up.append(args[1]) or reused(*args))
    counted_piece = lambda d: written.append(d) or piece(d)  # noqa: E731
    monkeypatch.setattr(encoded, "encoded_piece", counted_piece)
    monkeypatch.setattr(conversion, "encoded_piece", counted_piece)  # (CaseDiagnostics.pieces)
    shifted = document.cache.shifted
    result = document.insert('"prompt": "写 🎉 10', "x")
    checked.report(result)
    assert document.cache.shifted - shifted <= 3  # case 10's findings, at most
    assert len(looked_up) <= 3
    assert result.memo is not None and result.memo.printed <= 3
    assert len(written) <= 3
    monkeypatch.undo()
    checked.check(result)
