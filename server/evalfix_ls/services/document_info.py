"""What the editor can tell about a document as a whole: which contract applies and why (or why
it is not checked), what decided it, its declared shape, its case count and, for a workflow
fixture, its skill's readiness. The ``evalfix/documentInfo`` request answers it; a hover on the
root object shows the same facts (never a diagnostic: an unchecked file is not a problem)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from ..contracts.detection import EVALS, UNKNOWN, WORKFLOW, ReasonPart
from ..parser.tree import ARRAY, OBJECT
from ..parser.values import items_of
from .document import DocumentView
from .inline_facts import readiness_line
from .markdown_code import code, reason_markdown
from .workspace_facts import WorkspaceFacts

TITLES = {EVALS: "eval suite", WORKFLOW: "workflow fixture", UNKNOWN: "not checked"}


class DocumentInfoJson(TypedDict):
    """``evalfix/documentInfo``'s result as the client reads it (the interface's camelCase names)."""

    kind: str
    title: str
    reason: str
    decidedBy: str | None
    shape: str | None
    cases: int | None
    readiness: str | None


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    kind: str
    title: str
    reason: str
    decided_by: str | None
    shape: str | None
    cases: int | None
    readiness: str | None
    reason_parts: tuple[ReasonPart, ...] = ()  # what ``reason`` quotes, marked (Classification.parts)

    def to_json(self) -> DocumentInfoJson:
        """The ``evalfix/documentInfo`` result (camelCase, as the interface agreed)."""
        return {
            "kind": self.kind,
            "title": self.title,
            "reason": self.reason,
            "decidedBy": self.decided_by,
            "shape": self.shape,
            "cases": self.cases,
            "readiness": self.readiness,
        }

    def markdown(self) -> str:
        """The same facts for a hover on the root object."""
        lines = [f"**evalfix: {self.title}** — {reason_markdown(self.reason, self.reason_parts)}"]
        facts = [
            ("decided by", code(self.decided_by) if self.decided_by else None),
            ("shape", code(self.shape) if self.shape else None),
            ("cases", str(self.cases) if self.cases is not None else None),
            ("readiness", self.readiness),
        ]
        listed = [f"* {name}: {value}" for name, value in facts if value is not None]
        return "\n\n".join([*lines, "\n".join(listed)] if listed else lines)


def document_info(document: DocumentView, facts: WorkspaceFacts | None = None) -> DocumentInfo:
    analysis = document.analysis
    classification = analysis.classification
    kind = document.kind
    return DocumentInfo(
        kind=kind,
        title=TITLES.get(kind, kind),
        reason=analysis.reason,
        decided_by=classification.decided_by if classification is not None else None,
        shape=classification.shape if classification is not None else None,
        cases=_case_count(document),
        readiness=readiness_line(document, facts) if kind == WORKFLOW and facts is not None else None,
        reason_parts=classification.parts if classification is not None else (),
    )


def _case_count(document: DocumentView) -> int | None:
    """Eval suite: the ``evals`` array's length; workflow fixture: the normalized cases."""
    root = document.root
    if root is None or root.kind != OBJECT:
        return None
    if document.kind == WORKFLOW:
        normalized = document.workflow()
        if normalized.unreadable is None:
            return len(normalized.cases)
        return None
    evals = root.get("evals") if document.kind == EVALS else None
    return len(items_of(evals)) if evals is not None and evals.kind == ARRAY else None
