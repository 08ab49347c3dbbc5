"""Helpers for the fix-engine tests: a small repository on disk, one-call analysis as a
``DocumentView``, and the re-validation every applied fix must pass."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from fixture_paths import make_walking

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.workflow.index import WorkflowIndex
from evalfix_ls.findings import Finding, Severity
from evalfix_ls.services.document import DocumentView
from evalfix_ls.services.fixes import Fix, fixes_for
from evalfix_ls.services.fixes.edits import apply_edits
from evalfix_ls.services.workspace_facts import WorkspaceFacts
from evalfix_ls.workspace.view import FileSystemView

EVALS_PATH = "skills/demo/evals/evals.json"
WORKFLOW_PATH = "skills/demo/evals/cases.json"


def make_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    make_walking(root)
    for rel in ("skills/demo/SKILL.md", "skills/demo/evals/files/sample-repo/README.md", "docs/plans/p.md"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
    return root


def view(root: Path, rel_path: str, text: str) -> DocumentView:
    path = root / rel_path
    fs = FileSystemView()
    index = WorkflowIndex(root, fs)
    index.update(rel_path, text)
    analysis = analyze(text, path=path, repo_root=root, fs=fs, workspace=index)
    return DocumentView(text, analysis, path, root, rel_path)


def facts(root: Path) -> WorkspaceFacts:
    return WorkspaceFacts(root, FileSystemView(), WorkflowIndex(root, FileSystemView()))


def errors(document: DocumentView) -> Counter[tuple[str, int | None]]:
    return Counter((f.code, f.case) for f in document.analysis.findings if f.severity == Severity.ERROR)


def finding(document: DocumentView, code: str) -> Finding:
    found = [f for f in document.analysis.findings if f.code == code]
    assert found, f"no {code} in {[f.code for f in document.analysis.findings]}"
    return found[0]


def fix_titled(document: DocumentView, target: Finding, title: str, root: Path) -> Fix:
    fixes = fixes_for(document, target, facts(root))
    matching = [fix for fix in fixes if fix.title == title]
    assert matching, f"no fix {title!r} among {[fix.title for fix in fixes]}"
    return matching[0]


def apply_and_revalidate(root: Path, rel_path: str, text: str, code: str, title: str) -> tuple[Fix, str]:
    """Apply one fix of the first ``code`` finding and check what every fix must do: that finding
    is gone, no error appears that was not there, and the text changed only where the edits are."""
    before = view(root, rel_path, text)
    target = finding(before, code)
    fix = fix_titled(before, target, title, root)
    fixed = apply_edits(text, fix.edits)
    after = view(root, rel_path, fixed)
    assert sum(1 for f in after.analysis.findings if f.code == code) < sum(
        1 for f in before.analysis.findings if f.code == code
    )
    assert not (errors(after) - errors(before)), f"new errors: {errors(after) - errors(before)}"
    assert after.parses
    return fix, fixed
