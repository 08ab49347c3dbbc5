"""Which contract applies to a document (specs/README.md, "Which contract applies")."""

from __future__ import annotations

from pathlib import PurePath

from ..parser.tree import ARRAY, OBJECT, STRING, Node

EVALS = "evals"
WORKFLOW = "workflow-fixture"
UNKNOWN = "unknown"

CANONICAL_SCHEMA = "spec-first.workflow-eval-fixtures.v1"


def _has_case_array(root: Node | None) -> bool:
    if root is None or root.kind != OBJECT:
        return False
    return any((node := root.get(name)) is not None and node.kind == ARRAY for name in ("cases", "examples"))


def is_workflow_path(rel_path: str) -> bool:
    """``skills/…/evals/…/*.json`` relative to the repository root (workflow-fixtures.md §2.1)."""
    parts = rel_path.split("/")
    return len(parts) >= 3 and parts[0] == "skills" and "evals" in parts[1:-1] and parts[-1].endswith(".json")


def is_evals_suite_path(rel_path: str) -> bool:
    parts = rel_path.split("/")
    return len(parts) >= 2 and parts[-1] == "evals.json" and parts[-2] == "evals"


def detect_kind(
    rel_path: str | None, root: Node | None, *, explicit: bool = True, path: PurePath | None = None
) -> str:
    """Classify a document by its repository-relative POSIX path and its parsed root.

    ``explicit`` is true for a file opened in the editor or named on the command line (rule 4).
    ``path`` (absolute) decides rule 2, which depends only on the file's own name and folder: an
    ``evals/evals.json`` outside any repository or ``skills/`` tree is still an eval suite.
    """
    if root is not None and root.kind == OBJECT:
        schema = root.get("schema_version")
        if schema is not None and schema.kind == STRING and schema.value == CANONICAL_SCHEMA:
            return WORKFLOW
    suite_named = (
        path.name == "evals.json" and path.parent.name == "evals"
        if path is not None
        else rel_path is not None and is_evals_suite_path(rel_path)
    )
    if suite_named:
        if (
            rel_path is not None
            and is_workflow_path(rel_path)
            and _has_case_array(root)
            and not root.has("evals")
            and not root.has("skill_name")
        ):
            return WORKFLOW
        return EVALS
    if rel_path is not None and is_workflow_path(rel_path):
        return WORKFLOW
    if explicit and _has_case_array(root):
        return WORKFLOW
    return UNKNOWN
