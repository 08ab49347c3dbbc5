"""The suite pass per keystroke reads what the edit changed, not the whole document (issue 19,
point 4): a case the incremental re-parse did not touch keeps its key without its text being
hashed again, and the intact view of a broken text keeps each such case's alignment — both
exactly: every analysis equals a fresh one. Work is counted (``CaseCache.hashed``,
``IntactMemo.aligned``), never timed."""

from __future__ import annotations

import json
from pathlib import Path

from evalfix_ls.analysis import Analysis, analyze
from evalfix_ls.contracts.case_cache import CaseCache
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.parser import parse
from evalfix_ls.parser.incremental import reparse
from evalfix_ls.parser.intact import IntactMemo, intact_view
from evalfix_ls.parser.tree import ParseResult
from evalfix_ls.workspace.view import FileSystemView


def rows(findings: list) -> list[tuple]:
    return [(f.code, f.message, f.pointer, f.start, f.end, f.case, f.related, f.data) for f in findings]


def suite(count: int, broken: bool = False) -> str:
    cases = [{"id": f"case-{i}", "prompt": f"写 {i} 😀", "files": [f"missing/{i}.txt"]} for i in range(count)]
    text = json.dumps({"skill_name": "s", "evals": cases}, indent=4, ensure_ascii=False)
    if broken:  # a string left open in the last case: the text does not parse
        at = text.rindex('"写')
        text = text[:at] + '"unfinished,\n' + text[at:]
    return text


class Editor:
    """One document analysed edit after edit as the server does: the previous tree re-parsed
    incrementally, the document's case cache, ``recover``."""

    def __init__(self, text: str) -> None:
        self.cache = CaseCache()
        self.fs = FileSystemView()
        self.text = text
        self.result = self.analyze(text, None)

    def analyze(self, text: str, tree: ParseResult | None) -> Analysis:
        return analyze(text, kind=EVALS, fs=self.fs, case_cache=self.cache, tree=tree, recover=True)

    def replace(self, start: int, end: int, new: str) -> Analysis:
        text = self.text[:start] + new + self.text[end:]
        tree = reparse(self.result.tree, text, start, end) if self.result.tree is not None else None
        self.text, self.result = text, self.analyze(text, tree)
        fresh = analyze(text, kind=EVALS, fs=FileSystemView(), recover=True)
        assert rows(self.result.findings) == rows(fresh.findings)
        return self.result


def test_a_keystroke_hashes_only_the_case_it_edited() -> None:
    editor = Editor(suite(30))
    assert editor.cache.hashed == 30  # the first analysis reads every case
    for typed in "abc":  # in the first case's prompt: every later case moves
        at = editor.text.index("写 ") + 2
        before = editor.cache.hashed
        editor.replace(at, at, typed)
        assert editor.cache.hashed - before == 1
    at = editor.text.index("case-29")  # in the last case's id
    before = editor.cache.hashed
    editor.replace(at, at + 1, "C")
    assert editor.cache.hashed - before == 1


def test_a_case_typed_in_a_broken_text_reads_the_alignment_of_the_cases_it_touched() -> None:
    editor = Editor(suite(30, broken=True))
    assert editor.cache.intact.aligned >= 30
    at = editor.text.index('"case-3"')
    at = editor.text.index("\n        },", at) + len("\n        },")
    new_case = '\n        {"id": "typed", "prompt": "写 😀", "files": ["x"]},'
    heavy = []  # keystrokes that read more than the few cases around the edit
    for count, character in enumerate(new_case):
        aligned, hashed = editor.cache.intact.aligned, editor.cache.hashed
        editor.replace(at + count, at + count, character)
        read = (editor.cache.intact.aligned - aligned, editor.cache.hashed - hashed)
        if max(read) > 4:
            heavy.append((count, character, read))
    # Only where the re-parse itself reads the rest again (`"files": [` takes every later case
    # into the open array; the next keystroke's parse starts afresh) are the 30 cases read.
    assert len(heavy) <= 2, heavy


def test_the_line_an_unchanged_case_opens_on_is_read_again() -> None:
    """The memo trusts a case's own text by its node, never the line it opens on: given the same
    nodes over a text whose line before case b's opener changed (same length, so the nodes fit
    it), the view reads that line again. (The re-parse re-reads a case after an edit that changes
    its line's indentation; the memo does not rely on it.)"""
    text = (
        '{"skill_name": "s", "evals": [\n'
        '    {"id": "a",\n'
        '  "prompt": "p"}, {"id": "b",\n'
        '  "prompt": "q", "files": ["missing.txt"]},\n'
        '    {"id": "c", "prompt": }\n'
        "]}\n"
    )
    tree = parse(text)
    memo = IntactMemo()
    b = tree.root.get("evals").items[1]
    assert (b.start, b.end) in intact_view(tree, memo).spans  # opened on a line indented by 2, as closed
    at = text.index('\n  "prompt": "p"')
    shallower = text[:at] + " \n " + text[at + 3 :]  # case b's line indented by 1, its text the same
    same_nodes = ParseResult(shallower, tree.root, tree.errors, tree.duplicates, tree.unclosed)
    aligned = memo.aligned
    view = intact_view(same_nodes, memo)
    assert (b.start, b.end) not in view.spans
    assert view.spans == intact_view(parse(shallower)).spans
    assert memo.aligned - aligned == 1  # case b alone: case a's line did not change


def test_a_placeholder_and_a_real_case_of_the_same_text_do_not_share_a_key() -> None:
    """A case closed out of line with its opener is a placeholder in the intact view (its
    findings dropped); the same text at the same index, once aligned by the indentation before
    it, is a real case with findings of its own, not the placeholder's."""
    text = (
        '{"skill_name": "s", "evals": [\n'
        '  {"id": "a", "prompt": "p"},\n'
        '    {"id": "b",\n'
        '  "prompt": "q", "files": ["missing.txt"]},\n'
        '  {"id": "c", "prompt": }\n'
        "]}\n"
    )
    editor = Editor(text)
    assert not [f for f in editor.result.findings if f.case == 1]
    opener = text.index('{"id": "b"')
    after = editor.replace(opener - 4, opener - 2, "")  # the opener at column 2, as its closer
    assert [f for f in after.findings if f.case == 1]  # ``replace`` checked them against a fresh analysis


def test_a_file_system_change_between_keystrokes_keys_every_case_anew(tmp_path: Path) -> None:
    (tmp_path / "skills/s/evals/missing").mkdir(parents=True)
    path = tmp_path / "skills/s/evals/evals.json"
    cache, fs = CaseCache(), FileSystemView()
    text = suite(5)
    first = analyze(text, path=path, repo_root=tmp_path, fs=fs, case_cache=cache, recover=True)
    (path.parent / "missing/3.txt").write_text("now here")
    fs.invalidate(path.parent / "missing/3.txt")
    at = text.index(" 0 😀") + 1
    edited = text[:at] + "x" + text[at:]
    tree = reparse(first.tree, edited, at, at) if first.tree is not None else None
    misses = cache.misses
    after = analyze(edited, path=path, repo_root=tmp_path, fs=fs, case_cache=cache, tree=tree, recover=True)
    assert cache.misses - misses == 5
    fresh = analyze(edited, path=path, repo_root=tmp_path, fs=FileSystemView(), recover=True)
    assert rows(after.findings) == rows(fresh.findings)
    assert [f.case for f in after.findings if "3.txt" in f.message] == []


def id_suite() -> str:
    """Ids that collide as String(id) (1 and "1"), by artifact folder ("A b" and "a-b" on a
    case-insensitive file system), and one case with a loader issue (a latent duplicate)."""
    cases = [
        {"id": "case-0", "prompt": "写 😀"},
        {"id": 1, "prompt": "p"},
        {"id": "A b", "prompt": "p"},
        {"id": "far", "prompt": "p", "files": "not-an-array"},
        *({"id": f"filler-{i}", "prompt": f"写 {i}"} for i in range(12)),
        {"id": "1", "prompt": "q"},
        {"id": "a-b", "prompt": "q"},
        {"id": "far", "prompt": "q"},
        {"id": "last", "prompt": "q"},
    ]
    return json.dumps({"skill_name": "s", "evals": cases}, indent=2, ensure_ascii=False)


def codes(analysis: Analysis) -> list[str]:
    return [f.code for f in analysis.findings if "id" in f.code]


def test_the_id_rules_follow_edits_far_from_the_cases_they_relate() -> None:
    """Every edit below is checked against a fresh analysis (``Editor.replace``): duplicate ids
    that appear and disappear far from the edit, artifact folders that collide, cases inserted
    and deleted whole (every later case's index moves), batches of edits, broken text between."""
    editor = Editor(id_suite())
    assert {"duplicate-id", "id-artifact-collision", "duplicate-id-latent"} <= set(codes(editor.result))
    text = editor.text
    at = text.index('"id": "last"') + len('"id": "')  # the last case takes the first case's id
    after = editor.replace(at, at + len("last"), "case-0")
    assert codes(after).count("duplicate-id") == 2
    at = editor.text.index('"id": "case-0"') + len('"id": "')  # the first case's id changes: resolved
    after = editor.replace(at, at + 1, "k")
    assert codes(after).count("duplicate-id") == 1
    at = editor.text.index('"id": 1,') + len('"id": ')  # 1 -> 12: "1" no longer collides
    after = editor.replace(at, at + 1, "12")
    assert codes(after).count("duplicate-id") == 0
    at = editor.text.index('"files": "not-an-array"')  # the loader issue fixed: latent -> duplicate
    after = editor.replace(at, at + len('"files": "not-an-array"'), '"files": []')
    assert "duplicate-id-latent" not in codes(after) and codes(after).count("duplicate-id") == 1
    # a whole case deleted near the top: every later case's index moves
    start = editor.text.index('    {\n      "id": "A b"')
    end = editor.text.index('    {\n      "id": "far"')
    removed = editor.text[start:end]
    after = editor.replace(start, end, "")
    assert "id-artifact-collision" not in codes(after)
    editor.replace(start, start, removed)  # and put back, in one edit
    assert "id-artifact-collision" in codes(editor.result)
    # a batch: a new case typed at once and an id changed, as one replacement of the span
    start = editor.text.index('    {\n      "id": "filler-3"')
    end = editor.text.index('    {\n      "id": "filler-5"')
    batch = editor.text[start:end].replace("filler-4", "a-B") + '    {"id": "A b", "prompt": "x"},\n'
    after = editor.replace(start, end, batch)
    assert codes(after).count("id-artifact-collision") == 2 and codes(after).count("duplicate-id") == 2
    # typing through broken text far from the duplicates
    at = editor.text.index('"prompt": "写 7"') + len('"prompt": "')
    for character in '"x", "y": [':
        editor.replace(at, at, character)
        at += 1


def test_the_memos_keep_only_the_cases_of_the_last_analysis() -> None:
    """The memos by origin keep their nodes alive: what an analysis did not renew is dropped, so
    no tree the document no longer has is held — the alignments once the text parses again, the
    digests once no suite pass runs (a text whose cases cannot be read)."""
    editor = Editor(suite(20, broken=True))
    assert len(editor.cache.intact) == 20 and editor.cache.keyed == 20
    at = editor.text.index('"unfinished,\n')
    editor.replace(at, at + len('"unfinished,\n'), "")  # the text parses: no intact view
    # the 19 cases the new tree still holds (the one re-parsed is a new node)
    assert len(editor.cache.intact) == 19 and editor.cache.keyed == 20
    aligned = editor.cache.intact.aligned
    at = editor.text.index('"prompt": "写 3 😀"')
    editor.replace(at, at + 1, "")  # broken again, in case 3: the others' alignments are kept
    assert editor.cache.intact.aligned - aligned <= 2  # the re-parsed case and case 3
    editor.replace(0, len(editor.text), '{"skill_name": "s", "evals": {}}')  # no case to read
    assert editor.cache.keyed == 0 and len(editor.cache.intact) == 0
