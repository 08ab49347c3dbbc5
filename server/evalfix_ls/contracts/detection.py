"""Which contract applies to a document (specs/README.md, "Which contract applies").

A file gets the contract of the tool that really reads it in its repository. Two facts decide:
where the file lies, and whether the repository is a *walking repository* — one that still holds
spec-first's normalizer, whose contract test normalizes every JSON file under ``skills/**/evals/``.
Elsewhere (spec-first v1.13 and later retired the normalizer) only files declaring the canonical
schema are workflow fixtures; other JSON files there are skill-local shapes their own tests judge.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from ..parser.tree import ARRAY, OBJECT, Node
from ..parser.values import string_of
from ..workspace.view import FileSystemView

EVALS = "evals"
WORKFLOW = "workflow-fixture"
UNKNOWN = "unknown"

CANONICAL_SCHEMA = "spec-first.workflow-eval-fixtures.v1"
# The file whose presence makes a repository a walking repository (spec-first up to v1.12).
NORMALIZER = "skills/spec-skill-audit/scripts/eval-fixture-normalizer.js"

_WALK = "in a repository that holds spec-first's fixture walk (its normalizer)"
_NO_WALK = "in a repository without spec-first's fixture walk"


@dataclass(frozen=True, slots=True)
class Name:
    """A member name, a path pattern or a setting's place inside a reason: code in Markdown (the
    hover), as it is in plain text (``--format json``, ``evalfix/documentInfo``, a status bar)."""

    text: str

    def plain(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Value:
    """A value quoted from the file (its ``schema_version``): code in Markdown, a JSON string in
    plain text, so that its own quotes, backticks and control characters cannot pass for the
    sentence around it."""

    text: str

    def plain(self) -> str:
        return json.dumps(self.text, ensure_ascii=False)


# A reason as parts: this module's own prose (str, no Markdown in it) and the names and values it
# quotes, so that each place the reason reaches writes them its own way.
ReasonPart = str | Name | Value


_SKILL_EVALS = Name("skills/**/evals/")
_SCHEMA_VERSION = Name("schema_version")


def plain_reason(parts: tuple[ReasonPart, ...]) -> str:
    return "".join(part if isinstance(part, str) else part.plain() for part in parts)


@dataclass(frozen=True, slots=True)
class Classification:
    """The contract of a document and why: ``reason`` is one sentence for the user, in plain text
    (``--format json`` gives it beside ``kind``; the editor shows it on request), ``parts`` the same
    sentence with what it quotes marked (for the hover's Markdown; empty when ``reason`` quotes
    nothing); ``shape`` is the declared ``schema_version`` (or None)."""

    kind: str
    reason: str
    shape: str | None = None
    decided_by: str | None = None  # the configuration line that decided it (".evalfix.toml:4")
    parts: tuple[ReasonPart, ...] = field(default=(), compare=False)

    @classmethod
    def of(
        cls, kind: str, parts: tuple[ReasonPart, ...], shape: str | None = None, decided_by: str | None = None
    ) -> Classification:
        return cls(kind, plain_reason(parts), shape, decided_by, parts)


@dataclass(frozen=True, slots=True)
class Walk:
    """Whether the repository is a walking repository, and what said so: the setting that forced
    it (``decided_by``, e.g. ``.evalfix.toml:4``), else the normalizer's presence."""

    walking: bool
    decided_by: str | None = None


def walking_repository(repo_root: Path | None, fs: FileSystemView | None, forced: Walk | None = None) -> Walk:
    """A setting that forces the walk wins; else the normalizer decides. Without a repository (an
    unsaved buffer, text analysed alone) the legacy semantics stay: nothing says otherwise."""
    if forced is not None:
        return forced
    if repo_root is None:
        return Walk(True)
    fs = fs or FileSystemView()
    return Walk(fs.is_file(repo_root / NORMALIZER, root=repo_root))


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


def declared_schema(root: Node | None) -> str | None:
    """The root object's ``schema_version`` when it is a string."""
    if root is None or root.kind != OBJECT:
        return None
    return string_of(root.get("schema_version"))


def is_other_tool_suite(root: Node | None) -> bool:
    """``{skill, cases: […]}``: a case array and neither ``evals`` nor ``skill_name`` — what other
    eval tools write in ``evals/evals.json`` (arc-skill-eval's loader rejects it)."""
    if root is None or not _has_case_array(root):
        return False
    return not root.has("evals") and not root.has("skill_name")


def _regime(walk: Walk) -> tuple[ReasonPart, ...]:
    """How the reason names the repository's regime (and the setting that forced it)."""
    if walk.decided_by is not None:
        state = "on" if walk.walking else "off"
        return (f"where spec-first's fixture walk is forced {state} (", Name(walk.decided_by), ")")
    return (_WALK if walk.walking else _NO_WALK,)


def classify(
    rel_path: str | None,
    root: Node | None,
    *,
    explicit: bool = True,
    path: PurePath | None = None,
    walking: bool | Walk = True,
) -> Classification:
    """Classify a document by its repository-relative POSIX path, its parsed root and whether its
    repository is a walking repository (rules 1–5 of "Which contract applies"); ``decided_by`` is
    the setting that forced the walk when the walk decided.

    ``explicit`` is true for a file opened in the editor or named on the command line (rule 4).
    ``path`` (absolute) decides rule 2, which depends only on the file's own name and folder: an
    ``evals/evals.json`` outside any repository or ``skills/`` tree is still an eval suite.
    """
    walk = walking if isinstance(walking, Walk) else Walk(walking)
    schema = declared_schema(root)
    if schema == CANONICAL_SCHEMA:
        return Classification.of(WORKFLOW, ("declares ", _SCHEMA_VERSION, " ", Value(schema)), schema)
    under_skills = rel_path is not None and is_workflow_path(rel_path)
    suite_named = (
        path.name == "evals.json" and path.parent.name == "evals"
        if path is not None
        else rel_path is not None and is_evals_suite_path(rel_path)
    )
    regime, by = _regime(walk), walk.decided_by
    if suite_named:
        other_tool = under_skills and is_other_tool_suite(root)
        if walk.walking and other_tool:
            parts = ("a ", Name("cases"), " array under ", _SKILL_EVALS, " ", *regime, ": the walk reads it")
            return Classification.of(WORKFLOW, parts, schema, by)
        parts = ("an ", Name("evals/evals.json"), ": arc-skill-eval's discovery reads it as an eval suite")
        return Classification.of(EVALS, parts, schema, by if other_tool else None)
    if under_skills:
        if walk.walking:
            parts = ("a JSON file under ", _SKILL_EVALS, " ", *regime, ": the walk normalizes it")
            return Classification.of(WORKFLOW, parts, schema, by)
        declared = (_SCHEMA_VERSION, " ", Value(schema)) if schema is not None else ("no ", _SCHEMA_VERSION)
        parts = (
            "skill-local shape (",
            *declared,
            ") under ",
            _SKILL_EVALS,
            " ",
            *regime,
            ": its own tests judge it",
        )
        return Classification.of(UNKNOWN, parts, schema, by)
    if explicit and _has_case_array(root):
        arrays = ("a file with a ", Name("cases"), " or ", Name("examples"), " array")
        if walk.walking:
            return Classification.of(WORKFLOW, (*arrays, " ", *regime), schema, by)
        parts = (*arrays, " outside ", _SKILL_EVALS, " ", *regime, ": not checked")
        return Classification.of(UNKNOWN, parts, schema, by)
    parts = (
        "neither an ",
        Name("evals/evals.json"),
        " nor a JSON file under ",
        _SKILL_EVALS,
        ", and no ",
        _SCHEMA_VERSION,
        " ",
        Value(CANONICAL_SCHEMA),
        ": no tool reads it as a fixture",
    )
    return Classification.of(UNKNOWN, parts, schema)


def detect_kind(
    rel_path: str | None,
    root: Node | None,
    *,
    explicit: bool = True,
    path: PurePath | None = None,
    walking: bool | Walk = True,
) -> str:
    """``classify(…).kind``."""
    return classify(rel_path, root, explicit=explicit, path=path, walking=walking).kind
