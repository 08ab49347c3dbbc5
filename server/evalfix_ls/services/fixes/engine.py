"""Running the fixers: the fixes of one finding, and fix-all over a whole document."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...contracts.workflow.index import WorkflowIndex
from ...findings import Finding, Severity
from ...memory.gc_pause import gc_paused
from ...text.pieces import as_str
from ...workspace.view import FileSystemView
from ..document import DocumentView
from ..workspace_facts import WorkspaceFacts
from . import evals_fixers, workflow_fixers  # noqa: F401 - importing registers their fixers
from .compose import ComposedEdits
from .edits import EditSet, TextEdit, conflicts
from .model import FIXERS, Fix, FixContext

logger = logging.getLogger(__name__)

# Fix-all re-analyses after each round (a fix can reveal the next finding, e.g. a setup written
# from legacy files); a document that still changes after this many rounds is left as it is then.
MAX_ROUNDS = 10


def fixable_codes() -> list[str]:
    """Every finding code that has a fixer."""
    return sorted(FIXERS)


def fixes_for(document: DocumentView, finding: Finding, facts: WorkspaceFacts | None = None) -> list[Fix]:
    """Every fix of ``finding`` in ``document`` (none when the document does not parse: edits
    computed on a recovered tree could land in the wrong place)."""
    fixer = FIXERS.get(finding.code)
    if fixer is None or not document.parses:
        return []
    ctx = FixContext(document, finding, facts or WorkspaceFacts.empty())
    try:
        fixes = fixer(ctx)
    except Exception:  # a fixer's bug must cost its fixes, not the request or the whole --fix run
        logger.exception("the fixer for %s at %r failed", finding.code, finding.pointer)
        return []
    text = as_str(document.text)
    return [fix for fix in fixes if fix.edits and _changes(text, fix.edits)]


def fixes_for_repeats(
    document: DocumentView, findings: Sequence[Finding], facts: WorkspaceFacts | None = None
) -> list[Fix]:
    """The fixes of one problem reported once per case (an inherited top-level value: one
    diagnostic in the editor): each fix the first finding offers, with the edits it makes in
    every case that offers it too (titled with the number of cases when they differ)."""
    per_finding = [fixes_for(document, finding, facts) for finding in findings]
    if not per_finding or len(per_finding) == 1:
        return per_finding[0] if per_finding else []
    combined = []
    for fix in per_finding[0]:
        taken = EditSet()
        edits: list[TextEdit] = []
        for fixes in per_finding:
            for edit in next((f.edits for f in fixes if f.title == fix.title), ()):
                if edit not in edits and not taken.conflicts(edit):
                    taken.add(edit)
                    edits.append(edit)
        cases = sum(1 for fixes in per_finding if any(f.title == fix.title for f in fixes))
        title = fix.title if len(edits) == len(fix.edits) else f"{fix.title} ({cases} cases)"
        combined.append(Fix(title, tuple(edits), fix.safe, fix.preferred, fix.code))
    return combined


def _changes(text: str, edits: Sequence[TextEdit]) -> bool:
    return any(text[edit.start : edit.end] != edit.new_text for edit in edits)


def chosen_fix(fixes: Sequence[Fix], unsafe: bool) -> Fix | None:
    """The fix fix-all applies for one finding: its preferred fix (or its only fix), when that is
    safe or unsafe fixes are allowed. A finding whose fixes are all alternatives for the user to
    pick (which coverage tag?) gets none."""
    preferred = [fix for fix in fixes if fix.preferred]
    candidate = preferred[0] if preferred else (fixes[0] if len(fixes) == 1 else None)
    if candidate is None or not (candidate.safe or unsafe):
        return None
    return candidate


def round_of_fixes(document: DocumentView, unsafe: bool, facts: WorkspaceFacts | None = None) -> list[Fix]:
    """One chosen fix per finding, in document order, leaving out any whose edits conflict with
    an earlier one's (the next round gets it, on the re-analysed text)."""
    chosen: list[Fix] = []
    taken = EditSet()
    with gc_paused():  # the fixers allocate while the whole tree is alive: no full collections
        for finding in document.analysis.findings:
            fix = chosen_fix(fixes_for(document, finding, facts), unsafe)
            if fix is None or any(taken.conflicts(edit) for edit in fix.edits) or _self_conflict(fix):
                continue
            chosen.append(fix)
            for edit in fix.edits:
                taken.add(edit)
    return chosen


def _self_conflict(fix: Fix) -> bool:
    edits = sorted(fix.edits, key=lambda e: (e.start, e.end))
    return any(conflicts(a, b) for a, b in zip(edits, edits[1:], strict=False))


@dataclass(slots=True)
class FixAllResult:
    text: str  # the fixed text (the original when nothing applied)
    applied: list[Fix] = field(default_factory=list)
    converged: bool = True  # False: still changing after MAX_ROUNDS, or a round was refused
    document: DocumentView | None = None  # the analysis of ``text``
    # The edits of the original text that give ``text``: what the rounds applied, folded together.
    edits: list[TextEdit] = field(default_factory=list)


def fix_all(
    document: DocumentView,
    reanalyze: Callable[[str], DocumentView],
    *,
    unsafe: bool = False,
    facts: WorkspaceFacts | None = None,
    max_rounds: int = MAX_ROUNDS,
) -> FixAllResult:
    """Apply the chosen fix of every finding, re-analyse, repeat until no fix is left. A round
    that would add an error is not applied (a fix must never make things worse)."""
    applied: list[Fix] = []
    composed = ComposedEdits(as_str(document.text))
    for _ in range(max_rounds):
        fixes = round_of_fixes(document, unsafe, facts)
        if not fixes:
            return FixAllResult(as_str(document.text), applied, True, document, composed.edits)
        before = composed.edits
        text = composed.apply([edit for fix in fixes for edit in fix.edits])
        after = reanalyze(text)
        if error_count(after) > error_count(document):
            return FixAllResult(as_str(document.text), applied, False, document, before)
        applied.extend(fixes)
        document = after
    converged = not round_of_fixes(document, unsafe, facts)
    return FixAllResult(as_str(document.text), applied, converged, document, composed.edits)


def error_count(document: DocumentView) -> int:
    return sum(1 for finding in document.analysis.findings if finding.severity == Severity.ERROR)


def reanalyzer(
    document: DocumentView,
    *,
    fs: FileSystemView | None = None,
    workspace: WorkflowIndex | None = None,
    apply: Callable[[list[Finding]], list[Finding]] | None = None,
) -> Callable[[str], DocumentView]:
    """A function analysing another text of ``document`` as the front end analysed this one (same
    path, repository, contract, configured severities)."""
    from ...analysis import analyze

    def run(text: str) -> DocumentView:
        analysis = analyze(
            text,
            path=document.path,
            repo_root=document.repo_root,
            fs=fs,
            workspace=workspace,
            kind=document.kind,
        )
        if apply is not None:
            analysis.findings = apply(analysis.findings)
        return DocumentView(text, analysis, document.path, document.repo_root, document.rel_path)

    return run
