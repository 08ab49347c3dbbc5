"""The one analysis pipeline: text → positioned JSON tree → which contract → findings.

Both front ends (``evalfix-ls --check`` and the language server) call ``analyze``; neither adds or
removes findings of its own beyond configuration (severity overrides), so they always agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .contracts.codes import ALL_CODES
from .contracts.context import AnalysisContext
from .contracts.detection import (
    EVALS,
    UNKNOWN,
    WORKFLOW,
    Classification,
    Name,
    Walk,
    classify,
    declared_schema,
    walking_repository,
)
from .contracts.fix_data import RepeatedKey
from .contracts.workflow.index import WorkflowIndex
from .findings import SORT_KEY, Finding
from .memory.gc_pause import gc_paused
from .parser import parse
from .parser.intact import IntactView, intact_view
from .parser.tree import Node, ParseResult, path_at, pointer_of
from .text.pieces import Text
from .workspace.files import MAX_FILE_BYTES, FileText
from .workspace.view import FileSystemView

if TYPE_CHECKING:  # imported when a workflow fixture is checked, or by the editor (start-up cost)
    from .contracts.case_cache import CaseCache, PlacedCase
    from .contracts.placed import PlacedFindings
    from .contracts.workflow.normalize import NormalizedFile


@dataclass(frozen=True, slots=True)
class FileCodes:
    """The codes each contract uses for problems with the file itself rather than its content."""

    invalid_json: str
    more_syntax: str
    unreadable: str
    too_large: str
    encoding: str
    duplicate_key: str
    outside: str  # the file itself resolves outside the repository root (not read)


FILE_CODES = {
    EVALS: FileCodes(
        "json-invalid",
        "json-syntax",
        "file-unreadable",
        "file-too-large",
        "encoding-replaced",
        "duplicate-key",
        "file-outside-repository",
    ),
    WORKFLOW: FileCodes(
        "invalid_json",
        "json_syntax",
        "fixture_unreadable",
        "file_too_large",
        "encoding_replaced",
        "duplicate_json_key",
        "fixture_outside_repository",
    ),
}
FILE_CODES[UNKNOWN] = FILE_CODES[EVALS]


@dataclass(slots=True)
class Analysis:
    kind: str
    # The analysed ``str`` (``analyze`` always builds one); the editor's quick trees
    # (``lsp/features/quick_trees.py``) hold a buffer's pieces until its analysis builds that ``str``.
    text: Text
    tree: ParseResult | None
    # The findings in order (``findings``); None while they are held as ``placed`` only.
    found: list[Finding] | None
    # A workflow fixture as the normalizer reads it (readiness, hovers, fixes, migration reuse it);
    # None for other contracts and for a document that does not parse (without ``recover``).
    workflow: NormalizedFile | None = None
    classification: Classification | None = None  # why this contract (or none) applies
    # The findings by place, built by the first request that needs it. Its type (``FindingIndex``)
    # lives in services/, a layer above: held as ``object`` here, narrowed by isinstance in
    # services/finding_index.py, the one module that reads or writes it.
    finding_index: object = field(default=None, repr=False, compare=False)
    # The findings with the cached cases kept as blocks (the editor's analyses): the language
    # server converts and encodes them block by block; ``findings`` is built from them on first use.
    placed: PlacedFindings | None = field(default=None, repr=False, compare=False)

    @property
    def findings(self) -> list[Finding]:
        """Every finding, sorted by ``SORT_KEY`` (built from ``placed`` on first use)."""
        found = self.found
        if found is None:
            assert self.placed is not None, "an analysis has its findings or their blocks"
            found = self.found = self.placed.findings()
        return found

    @findings.setter
    def findings(self, findings: list[Finding]) -> None:
        self.found, self.placed = findings, None

    @property
    def reason(self) -> str:
        return self.classification.reason if self.classification is not None else ""


def analyze(
    text: str,
    *,
    path: Path | None = None,
    repo_root: Path | None = None,
    fs: FileSystemView | None = None,
    workspace: WorkflowIndex | None = None,
    explicit: bool = True,
    kind: str | None = None,
    file_text: FileText | None = None,
    tree: ParseResult | None = None,
    case_cache: CaseCache | None = None,
    recover: bool = False,
    walk: Walk | None = None,
    decided_by: str | None = None,
    on_parsed: Callable[[Analysis], None] | None = None,
) -> Analysis:
    """Analyse one document. ``kind`` forces a contract (configuration mappings, ``decided_by``
    saying where); otherwise the contract is detected from the path, the content and whether the
    repository is a walking repository (``walk`` forces it; else the normalizer's presence).
    ``file_text`` carries how the text was read
    (decoding replacements, read errors, size) when it came from disk. ``tree`` is the parse of
    ``text`` when the caller already has it (the server re-parses edits incrementally with
    ``parser.incremental.reparse``). ``case_cache`` (a ``CaseCache`` the caller keeps per document)
    lets findings of unchanged cases be reused from the previous version. ``recover`` (the editor)
    keeps the findings of the parts a document that does not parse has intact (``parser.intact``);
    without it (``--check``, as the references see the file) such a document has syntax findings
    only. ``on_parsed`` is handed the tree and contract (no findings) as soon as they are known,
    before the rules run: the editor answers the features that read only the tree from it."""
    with gc_paused():
        fs = fs or FileSystemView()
        walking = walking_repository(repo_root, fs, walk)
        classified = _Classifier(path, repo_root, explicit, walking, kind, decided_by)
        try:
            return _analyze(
                text, path, repo_root, fs, workspace, classified, file_text, tree, case_cache, recover,
                on_parsed,
            )  # fmt: skip
        finally:
            if case_cache is not None:
                case_cache.analyzed()


class _Classifier:
    """Decides the contract once the root is known (configuration first, then the rules)."""

    def __init__(
        self,
        path: Path | None,
        repo_root: Path | None,
        explicit: bool,
        walking: Walk,
        kind: str | None,
        decided_by: str | None,
    ) -> None:
        self.path, self.explicit, self.walking = path, explicit, walking
        self.kind, self.decided_by = kind, decided_by
        self.rel_path = None
        if path is not None and repo_root is not None:
            from .workspace.view import relative_posix

            self.rel_path = relative_posix(path, repo_root)

    def __call__(self, root: Node | None) -> Classification:
        if self.kind is not None:  # configuration decided: the rules are not asked
            by = self.decided_by
            parts = (
                "mapped to ",
                Name(self.kind),
                " by configuration",
                *((" (", Name(by), ")") if by else ()),
            )
            return Classification.of(self.kind, parts, declared_schema(root), by)
        return classify(self.rel_path, root, explicit=self.explicit, path=self.path, walking=self.walking)


def _analyze(
    text: str,
    path: Path | None,
    repo_root: Path | None,
    fs: FileSystemView,
    workspace: WorkflowIndex | None,
    classifier: _Classifier,
    file_text: FileText | None,
    tree: ParseResult | None,
    case_cache: CaseCache | None = None,
    recover: bool = False,
    on_parsed: Callable[[Analysis], None] | None = None,
) -> Analysis:
    rel_path = classifier.rel_path
    if file_text is None and _over_size_limit(text):  # an editor buffer as large as a skipped file
        file_text = FileText("", too_large=True)
    if file_text is not None and file_text.unavailable:
        classification = classifier(None)
        detected = classification.kind
        finding = _file_finding(FILE_CODES[detected], file_text, path)
        file_findings = [finding] if detected != UNKNOWN else []
        return Analysis(detected, text, None, file_findings, classification=classification)

    if tree is None or tree.text is not text and tree.text != text:
        tree = parse(text)
    classification = classifier(tree.root)
    detected = classification.kind
    if on_parsed is not None:
        on_parsed(Analysis(detected, text, tree, [], classification=classification))
    if detected == UNKNOWN:
        return Analysis(UNKNOWN, text, tree, [], classification=classification)
    codes = FILE_CODES[detected]
    findings: list[Finding] = []
    if file_text is not None and file_text.replaced_at is not None:
        at = file_text.replaced_at
        findings.append(
            Finding(
                codes.encoding,
                ALL_CODES[codes.encoding],
                "invalid UTF-8 was replaced by U+FFFD (as Node's readFile does); re-save the file as UTF-8",
                "",
                at,
                min(at + 1, len(text)),
            )
        )
    findings.extend(_duplicate_key_findings(tree, codes))
    workflow: NormalizedFile | None = None
    view: IntactView | None = None
    contract: list[Finding] = []
    placed: list[tuple[int, PlacedCase]] = []
    if tree.errors:
        findings.extend(syntax_findings(tree, codes))
        if recover:
            contract, workflow, view, placed = _intact_findings(
                detected, text, tree, path, rel_path, repo_root, fs, workspace, case_cache
            )
    else:
        ctx = AnalysisContext(text, tree, path, rel_path, repo_root, fs, workspace, case_cache)
        contract, workflow = _contract_findings(detected, ctx)
        placed = ctx.placed
    analysis = Analysis(detected, text, tree, None, workflow, classification)
    _assemble(analysis, findings, contract, placed, view)
    return analysis


def _contract_findings(kind: str, ctx: AnalysisContext) -> tuple[list[Finding], NormalizedFile | None]:
    """The contract's findings, and for a workflow fixture the file as the normalizer read it."""
    if kind == EVALS:
        from .contracts.evals.check import check as check_evals

        return check_evals(ctx), None
    from .contracts.workflow.check import check as check_workflow

    normalized, findings = check_workflow(ctx)
    return findings, normalized


def _assemble(
    analysis: Analysis,
    own: list[Finding],
    contract: list[Finding],
    placed: list[tuple[int, PlacedCase]],
    view: IntactView | None,
) -> None:
    """The analysis' findings in order: the file's ``own`` and the contract's, of a broken
    document only those inside its intact parts (``_covered``), the cases the cache answered
    kept as blocks when the order allows (``contracts/placed.py``)."""
    from .contracts.placed import PlacedFindings, inserted, ordered, unplaced

    contract, kept = unplaced(contract, placed, view)
    findings = own + (contract if view is None else _covered(view, list(contract)))
    findings.sort(key=SORT_KEY)
    pieces = ordered(findings, [block for _, block in kept]) if kept else None
    if pieces is not None:
        analysis.placed = PlacedFindings(pieces)
        return
    if kept:
        # A finding of a cached case ties with another (same start and code): their order is
        # the one sort of every finding gives, in the order the rules produced them.
        everything = inserted(contract, kept)
        findings = own + (everything if view is None else _covered(view, everything))
        findings.sort(key=SORT_KEY)
    analysis.findings = findings


def _intact_findings(
    kind: str,
    text: str,
    tree: ParseResult,
    path: Path | None,
    rel_path: str | None,
    repo_root: Path | None,
    fs: FileSystemView,
    workspace: WorkflowIndex | None,
    case_cache: CaseCache | None,
) -> tuple[list[Finding], NormalizedFile | None, IntactView | None, list[tuple[int, PlacedCase]]]:
    """The contract's findings on the parts of a broken document that were recovered intact
    (whole cases, top-level members), at their current positions, with the intact view that
    ``_assemble`` keeps only the findings inside (``_covered``). Anything else the contract says
    — about a placeholder for the broken case, about the document as a whole, or relating an intact
    case to the broken one (a duplicate id) — would be a guess, and is left out."""
    view = intact_view(tree, case_cache.intact if case_cache is not None else None)
    if view.root is None:
        return [], None, None, []
    recovered = ParseResult(text, view.root, [], [])
    ctx = AnalysisContext(text, recovered, path, rel_path, repo_root, fs, workspace, case_cache)
    findings, workflow = _contract_findings(kind, ctx)
    return findings, workflow, view, ctx.placed


def _covered(view: IntactView, findings: list[Finding]) -> list[Finding]:
    """The findings (sorted, as the analysis returns them) that lie inside one intact part, with
    every related place of this document inside one too. Sorted first, they are matched against
    the parts in one walk instead of a search per finding (every finding of a broken document is
    filtered on each keystroke)."""
    findings.sort(key=SORT_KEY)
    spans, last = view.spans, len(view.spans) - 1
    out: list[Finding] = []
    at = 0
    for finding in findings:
        start = finding.start
        while at < last and spans[at + 1][0] <= start:
            at += 1
        if last < 0 or not spans[at][0] <= start or finding.end > spans[at][1]:
            continue
        if finding.related and not all(
            r.path is not None or view.covers(r.start, r.end) for r in finding.related
        ):
            continue
        out.append(finding)
    return out


# A file that is not JSON at all (a binary file, 50,000 unclosed brackets) would otherwise give one
# finding per stray character; past this many, the rest are summarised in the last one.
MAX_SYNTAX_FINDINGS = 100


def _file_finding(codes: FileCodes, file_text: FileText, path: Path | None) -> Finding:
    """The one finding for a file that has no text to analyse, saying why."""
    name = path.name if path else "file"
    if file_text.too_large:
        code, message = codes.too_large, "file is larger than 50 MB and was not analysed"
    elif file_text.outside:
        code = codes.outside
        message = (
            f"{name} leaves the repository: it resolves (through a symbolic link or '..') to a path "
            "outside the repository root, so it was not read. evalfix-ls reads nothing outside the "
            "repository; check the file where it really lives."
        )
    elif file_text.not_regular is not None:
        code = codes.unreadable
        message = (
            f"Unable to read {name}: it is {file_text.not_regular}, not a regular file, so it was not opened"
        )
    else:
        code, message = codes.unreadable, f"Unable to read {name}: {file_text.error}"
    return Finding(code, ALL_CODES[code], message, "", 0, 0)


def _over_size_limit(text: str) -> bool:
    if len(text) * 4 <= MAX_FILE_BYTES:  # at most 4 UTF-8 bytes per character
        return False
    return len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES


def syntax_findings(tree: ParseResult, codes: FileCodes) -> list[Finding]:
    """The first syntax error is the one ``JSON.parse`` reports: an error. Later ones are shown
    too (recovery keeps parsing) but as warnings under another code, so that a file that does not
    parse still counts as exactly one error, as the reference reports it."""
    errors = tree.errors
    findings = []
    for index, issue in enumerate(errors[:MAX_SYNTAX_FINDINGS]):
        if index == 0:
            code, message = codes.invalid_json, f"Invalid JSON: {issue.message}"
        else:
            code, message = codes.more_syntax, f"another JSON syntax error: {issue.message}"
        if index == MAX_SYNTAX_FINDINGS - 1 and len(errors) > MAX_SYNTAX_FINDINGS:
            message += f" ({len(errors) - MAX_SYNTAX_FINDINGS} more syntax errors not shown)"
        findings.append(Finding(code, ALL_CODES[code], message, "", issue.start, issue.end))
    return findings


def _duplicate_key_findings(tree: ParseResult, codes: FileCodes) -> list[Finding]:
    findings = []
    for dup in tree.duplicates:
        count = len(dup.occurrences)
        for index, (start, end) in enumerate(dup.occurrences):
            steps, _, _ = path_at(tree.root, start)
            last = index == count - 1
            message = (
                f"duplicate member name '{dup.key}': JSON.parse keeps only the last of its "
                f"{count} values" + ("" if last else "; this value is discarded")
            )
            findings.append(
                Finding(
                    codes.duplicate_key,
                    ALL_CODES[codes.duplicate_key],
                    message,
                    pointer_of(steps),
                    start,
                    end,
                    data=RepeatedKey(dup.key, last).fields(),
                )
            )
    return findings
