"""Document-wide features on the trees an editor session builds (issue 19f): after each keystroke
the server answers from a local re-parse of the last analysed tree, whose later cases are moved
views, and gives back each case's symbols and links of the previous request (``CaseMemo``). The
answers must be those of the same feature on a fresh parse of the same text, computed afresh —
through invalid JSON, CJK and emoji; and a keystroke must not build the moved cases again."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evalfix_ls.analysis import Analysis, analyze
from evalfix_ls.contracts.case_cache import CaseCache
from evalfix_ls.js.values import js_id_string
from evalfix_ls.parser.incremental import reparse, shift
from evalfix_ls.parser.incremental.approximate import reparse_local
from evalfix_ls.services.case_ids import highlights
from evalfix_ls.services.case_memo import CaseMemo
from evalfix_ls.services.cases import iter_cases
from evalfix_ls.services.document import DocumentView
from evalfix_ls.services.inline_facts import code_lenses, inlay_hints
from evalfix_ls.services.links import Link, document_links
from evalfix_ls.services.outline import Symbol, document_symbols, folding_ranges
from evalfix_ls.services.workspace_facts import WorkspaceFacts

CASES = 40
TYPED = (
    '\n    {"id": "新-😀", "prompt": "写一个 😀 file", "setup": {"kind": "seeded", '
    '"sources": [{"from": "files/src-1"}, "files/src-2"]}, "assertions": ["it 🎉 works", {"type": "x"}]},'
)


def suite_text() -> str:
    cases = [
        {
            "id": f"case-{n}" if n % 7 else n,  # numeric ids too
            "prompt": f"写 🎉 {n}\nsecond line",
            # (the suite larger than what the local re-parse re-reads whole: parser.local.LOCAL_LIMIT)
            "description": f"case {n}: "
            + "the assistant explains the root cause before proposing a fix; " * 4,
            "setup": {"kind": "seeded", "sources": [f"files/src-{n % 3}", {"from": f"files/gone-{n}"}]},
            "assertions": [f"answer {n} 😀", {"type": "file-exists", "path": "out.txt"}],
        }
        for n in range(CASES)
    ]
    cases[5].pop("id")  # named by its index
    return json.dumps({"skill_name": "demo", "evals": cases}, ensure_ascii=False, indent=2) + "\n"


@dataclass
class Session:
    """What the server keeps per document: the last analysed text and tree, and the memos."""

    root: Path
    path: Path
    text: str
    tree: Any
    cache: CaseCache = field(default_factory=CaseCache)
    symbols: CaseMemo[Symbol] = field(default_factory=CaseMemo)
    links: CaseMemo[list[Link]] = field(default_factory=CaseMemo)

    def view(self, text: str, tree: Any) -> DocumentView:
        return DocumentView(text, Analysis("evals", text, tree, []), path=self.path, repo_root=self.root)


def answers(document: DocumentView, facts: WorkspaceFacts, session: Session | None) -> dict[str, Any]:
    symbols = document_symbols(document, memo=session.symbols if session else None)
    links = document_links(document, facts, session.links if session else None)
    return {
        "symbols": _plain(symbols.symbols),
        "truncated": symbols.truncated,
        "folding": folding_ranges(document),
        "folding capped": folding_ranges(document, limit=60),
        "links": [(link.start, link.end, str(link.target), link.tooltip) for link in links],
        "lenses": code_lenses(document, facts),
        "hints": inlay_hints(document, 0, len(document.text)),
        "hints in a range": inlay_hints(document, len(document.text) // 2, len(document.text) // 2 + 400),
    }


def highlight_answers(document: DocumentView) -> list[Any]:
    """Highlights of an id before and after the edits, and off an id (a point: the case under
    the cursor is read, so not counted with the document-wide features)."""
    return [
        [(site.start, site.end) for site in highlights(document, offset)] for offset in _cursors(document)
    ]


def naive_highlights(document: DocumentView) -> list[Any]:
    """What ``highlight_answers`` must be: every case read in turn, as the references define it."""
    cases = list(iter_cases("evals", document.root))
    out = []
    for offset in _cursors(document):
        ids = [case.id_node for case in cases if case.id_node is not None]
        at = next((node for node in ids if node.start <= offset <= node.end), None)
        wanted = js_id_string(at) if at is not None else None
        out.append([(n.start, n.end) for n in ids if wanted is not None and js_id_string(n) == wanted])
    return out


def _cursors(document: DocumentView) -> list[int]:
    return [document.text.find(f'"case-{n}"') + 2 for n in (3, 30)] + [document.text.find("写 🎉 30")]


def _plain(symbols: list[Symbol]) -> list[Any]:
    return [
        (s.name, s.kind, s.start, s.end, s.selection_start, s.selection_end, s.detail, _plain(s.children))
        for s in symbols
    ]


def new_case(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, old_end, inserted)`` of a user typing a new case after the middle case, deleting
    part of it again, renaming the skill (every case moves) and typing into an early prompt."""
    at = text.index('"id": "case-22"') - 6  # before the opening brace of case 22
    for n, char in enumerate(TYPED):
        yield at + n, at + n, char
    end = at + len(TYPED)
    for n in range(12):  # backspace
        yield end - n - 1, end - n, ""
    yield from in_strings(text)


def in_strings(text: str) -> Iterator[tuple[int, int, str]]:
    """A user typing into the skill's name (every case moves) and into a prompt (the later ones)."""
    name = text.index('"demo"') + 1
    for n in range(3):
        yield name + n, name + n, "x"
    prompt = text.index("写 🎉 22") + 2
    for n, char in enumerate("中文😀"):
        yield prompt + n, prompt + n, char


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for n in (0, 1):
        (root / "skills" / "demo" / "evals" / "files" / f"src-{n}").mkdir(parents=True)
    path = root / "skills" / "demo" / "evals" / "evals.json"
    path.write_text(suite_text(), encoding="utf-8")
    return root, path


def typing(
    repo: tuple[Path, Path],
    analyze_every: int,
    keystrokes: Callable[[str], Iterator[tuple[int, int, str]]] = new_case,
) -> Iterator[tuple[Session, str, Any]]:
    """After each keystroke: the session, the new text and its quick tree (a local re-parse of the
    last analysed tree); the text is analysed (exact re-parse, per-case cache: moved cases are
    built) every ``analyze_every`` keystrokes, as the server's analyses lag behind the typing."""
    root, path = repo
    text = path.read_text(encoding="utf-8")
    first = analyze(text, path=path, repo_root=root, recover=True)
    session = Session(root, path, text, first.tree)
    analyze(text, path=path, repo_root=root, recover=True, tree=first.tree, case_cache=session.cache)
    pending: tuple[int, int, int] | None = None  # the edits since the analysed text, as one
    for count, (start, old_end, inserted) in enumerate(keystrokes(text)):
        new_end = start + len(inserted)
        text = text[:start] + inserted + text[old_end:]
        pending = _then(pending, (start, old_end, new_end))
        quick = reparse_local(session.tree, text, pending[0], pending[1])
        if quick is None:
            continue
        yield session, text, quick
        if count % analyze_every == 0:
            tree = reparse(session.tree, text, pending[0], pending[1])
            result = analyze(
                text, path=path, repo_root=root, recover=True, tree=tree, case_cache=session.cache
            )
            session.text, session.tree, pending = text, result.tree, None


def _then(first: tuple[int, int, int] | None, later: tuple[int, int, int]) -> tuple[int, int, int]:
    if first is None:
        return later
    start = min(first[0], later[0])
    between = max(first[2], later[1])
    return start, between - (first[2] - first[1]), between + (later[2] - later[1])


@pytest.mark.parametrize("analyze_every", [1, 3])
def test_answers_on_quick_trees_with_memos_equal_fresh_ones(
    repo: tuple[Path, Path], analyze_every: int
) -> None:
    root, path = repo
    facts = WorkspaceFacts(root)
    compared = 0
    for session, text, quick in typing(repo, analyze_every):
        fresh = analyze(text, path=path, repo_root=root, recover=True)
        expected = answers(session.view(text, fresh.tree), WorkspaceFacts(root), None)
        got = answers(session.view(text, quick), facts, session)
        for document in (session.view(text, quick), session.view(text, fresh.tree)):
            assert highlight_answers(document) == naive_highlights(document)
        if expected != got:  # the approximate tree may differ from a full parse: same tree, no memo
            assert got == answers(session.view(text, quick), WorkspaceFacts(root), None), text
        else:
            compared += 1
    assert compared > len(TYPED) // 2
    assert session.symbols.reused and session.links.reused


def work_per_keystroke(
    repo: tuple[Path, Path],
    keystrokes: Callable[[str], Iterator[tuple[int, int, str]]],
    built: list[int],
    analyze_every: int,
) -> list[tuple[int, int, int, int]]:
    """``(nodes materialised, symbols computed, links computed, symbols reused)`` of the answers
    to each keystroke after the first."""
    facts = WorkspaceFacts(repo[0])
    work = []
    for session, text, quick in typing(repo, analyze_every, keystrokes):
        before = (built[0], session.symbols.computed, session.links.computed, session.symbols.reused)
        answers(session.view(text, quick), facts, session)
        after = (built[0], session.symbols.computed, session.links.computed, session.symbols.reused)
        work.append(tuple(now - then for now, then in zip(after, before, strict=True)))
    assert work[0][1] >= CASES  # the first request computes every case
    return work[1:]


def test_typing_a_new_case_computes_only_the_cases_it_changed(
    repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each keystroke's symbols and links are computed for the cases its tree holds anew, the
    others given back. (No analysis meanwhile: one of a broken text parses it all again, and every
    case is new; so are all cases of the few keystrokes whose re-parsed region is the whole array.)"""
    work = work_per_keystroke(repo, new_case, count_materialised(monkeypatch), analyze_every=len(TYPED) * 2)
    small = [w for w in work if w[1] <= 3 and w[2] <= 3 and w[3] >= CASES - 3]
    assert len(small) >= 0.9 * len(work), [w for w in work if w not in small]


def test_typing_in_a_string_builds_no_moved_case(
    repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every case after the edit is a moved view: none is built to answer (a case that stays
    broken while it is typed holds the cases after it, recovered, and reads them)."""
    work = work_per_keystroke(repo, in_strings, count_materialised(monkeypatch), analyze_every=2)
    # (the edited case computed again when the edit is in a prompt, none when in the skill's name)
    assert all(
        built == 0 and symbols == links <= 1 and symbols + reused == CASES
        for built, symbols, links, reused in work
    ), work


def count_materialised(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    materialise: Callable[[shift.ShiftedNode], None] = shift.ShiftedNode._materialize

    def counting(node: shift.ShiftedNode) -> None:
        # (an edited array hands over its view of the moved items: nothing is built then)
        built[0] += isinstance(node._source, shift.Node)
        materialise(node)

    monkeypatch.setattr(shift.ShiftedNode, "_materialize", counting)
    return built
