"""Fix-all over whole documents: the bundled broken example converges (a second run changes
nothing), never adds an error, fixes what it can safely fix, keeps CRLF and CJK bytes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fix_support import errors

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.services.document import DocumentView
from evalfix_ls.services.fixes import fix_all, reanalyzer
from evalfix_ls.services.fixes.edits import apply_edits
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.workspace.view import FileSystemView

BROKEN = Path(__file__).resolve().parents[3] / "examples" / "broken"
FILES = sorted(p.relative_to(BROKEN).as_posix() for p in BROKEN.glob("skills/*/evals/*.json"))
# What the safe fixes of the broken example must remove (each is planted there once or more).
SAFELY_FIXED = {
    "setup-kind-invalid",
    "sources-string-form",
    "mount-mode-flatten",
    "script-type-invalid",
    "regex-target-invalid",
    "metadata-difficulty-invalid",
    "metadata-tags-type",
    "files-legacy",
    "version-type",
    "duplicate-id",
    "invalid_coverage_tag",
    "list_item_dropped",
}


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    root = Path(shutil.copytree(BROKEN, tmp_path / "broken"))
    (root / ".git").mkdir()
    return root


def document(root: Path, rel: str, text: str | None = None) -> tuple[DocumentView, object]:
    fs = FileSystemView()
    index = WorkflowIndex(root, fs)
    path = root / rel
    text = path.read_text(encoding="utf-8") if text is None else text
    analysis = analyze(text, path=path, repo_root=root, fs=fs, workspace=index)
    view = DocumentView(text, analysis, path, root, rel)
    return view, reanalyzer(view, fs=fs, workspace=index)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("rel", FILES)
def test_fix_all_converges_on_the_broken_example(broken: Path, rel: str, unsafe: bool) -> None:
    view, again = document(broken, rel)
    facts = WorkspaceFacts(broken, FileSystemView(), WorkflowIndex(broken, FileSystemView()))
    result = fix_all(view, again, unsafe=unsafe, facts=facts)
    assert result.converged
    assert apply_edits(view.text, result.edits) == result.text  # what an editor gets: the same text
    fixed = again(result.text)
    assert not (errors(fixed) - errors(view)), "fix-all added an error"
    assert all(fix.safe or unsafe for fix in result.applied)
    second = fix_all(fixed, again, unsafe=unsafe, facts=facts)
    assert second.applied == [] and second.text == result.text


def test_safe_fix_all_removes_every_safely_fixable_finding(broken: Path) -> None:
    seen: set[str] = set()
    for rel in FILES:
        view, again = document(broken, rel)
        result = fix_all(view, again)
        codes_before = {f.code for f in view.analysis.findings}
        codes_after = {f.code for f in again(result.text).analysis.findings}
        seen |= codes_before & SAFELY_FIXED
        assert not (codes_after & SAFELY_FIXED & codes_before), rel
        assert {fix.code for fix in result.applied} <= codes_before
    assert seen == SAFELY_FIXED  # the example still plants every one of them


def test_fix_all_keeps_crlf_and_cjk_bytes(broken: Path) -> None:
    rel = "skills/release-notes-broken/evals/evals.json"
    original = (broken / rel).read_text(encoding="utf-8")
    crlf = original.replace("\n", "\r\n")
    view, again = document(broken, rel, crlf)
    result = fix_all(view, again)
    assert result.applied
    lf_result = fix_all(*document(broken, rel, original)).text
    assert result.text == lf_result.replace("\n", "\r\n")  # the same fixes, every line ending kept
    for text in ("リリースノートを書いて 📝", "Tidy the CHANGELOG 🧹"):
        assert text in result.text
