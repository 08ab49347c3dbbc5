"""The suite pass per keystroke as the language server runs it (the document store's snapshots,
the analyzer's jobs, the document's case cache): a batch of edits far apart and a file-system
change between keystrokes give exactly a fresh analysis's report, and a keystroke hashes only the
cases its edits touched (issue 19, point 4; work counted, not timed)."""

from __future__ import annotations

from pathlib import Path

from lsp_support import make_repo, noisy_suite, write_json
from lsprotocol import types
from test_diagnostic_reuse import Document

from evalfix_ls.lsp.diagnostics.convert import fingerprint
from evalfix_ls.lsp.diagnostics.encoded import encode_items
from evalfix_ls.text.line_index import Encoding


def change_at(document: Document, offset: int, end: int, text: str) -> types.TextDocumentContentChangePartial:
    index = document.snapshot.line_index
    start = types.Position(*index.position(offset, Encoding.UTF16))
    stop = types.Position(*index.position(end, Encoding.UTF16))
    return types.TextDocumentContentChangePartial(range=types.Range(start=start, end=stop), text=text)


def apply(document: Document, changes: list[types.TextDocumentContentChangePartial]) -> None:
    """One ``didChange`` with ``changes`` (each in the text the ones before it made), analysed."""
    version = document.snapshot.version + 1
    document.snapshot = document.store.change(document.uri, version, changes, Encoding.UTF16)
    document.result = document.run(document.snapshot, document.result)


def assert_fresh(document: Document) -> None:
    fresh = document.run(document.snapshot, fresh=True)
    assert document.result.fingerprint == fingerprint(fresh.diagnostics)
    assert encode_items(document.result.diagnostics)[1] == encode_items(fresh.diagnostics)[1]


def test_a_batch_of_edits_hashes_the_cases_its_span_re_parsed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(60))
    document = Document(root, path)
    hashed = document.cache.hashed
    text = document.snapshot.text
    # case 50 takes case 3's id (a duplicate far from where the first change is), and a prompt
    # near the top grows: one didChange, the second range in the text the first made
    first = text.index('"写 🎉 1"') + 1
    late = text.index('"case-50"') + 1
    changes = [change_at(document, first, first, "很长的"), change_at(document, late + 5, late + 7, "3")]
    apply(document, changes)
    assert_fresh(document)
    # the batch is re-parsed as one span, cases 1 to 50: those are new nodes, hashed; the first
    # and the 9 after case 50 are not
    assert document.cache.hashed - hashed == 50
    assert any(str(d.code).startswith("duplicate-id") for d in document.result.diagnostics)


def test_a_file_created_between_keystrokes_is_seen_by_every_case(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    path = write_json(root / "evals" / "evals.json", noisy_suite(30))
    document = Document(root, path)
    gone = path.parent / "files" / "gone-17"
    gone.parent.mkdir(parents=True)
    gone.write_text("here now", encoding="utf-8")
    document.repo.fs.invalidate(gone)
    at = document.snapshot.text.index('"写 🎉 2"') + 1
    misses, hashed = document.cache.misses, document.cache.hashed
    apply(document, [change_at(document, at, at, "x")])
    assert_fresh(document)
    assert document.cache.misses - misses == 30  # the file-system facts changed: every case again
    assert document.cache.hashed - hashed == 1  # ... without hashing their texts again
