"""Migrating a legacy workflow eval fixture to the canonical ``spec-first.workflow-eval-fixtures.v1``
shape, losslessly: the normalizer reads the same case ids, inputs, tags, refs, authority and
outcomes afterwards, and nothing of the file is dropped.

* each case's winning alias is renamed to the canonical member (``name`` → an explicit ``id``,
  ``user_intent``/``input_shape``/``intent`` → ``input``, ``expected``/``expected_posture``/
  ``expected_signal`` → ``expected_outcome``, the composite ``expected_decision``/… members → one
  ``expected_outcome`` object, ``negative_signal`` → ``forbidden_signals``);
* inherited top-level values (``skill``, ``source_refs``, ``source_ref_authority``,
  ``coverage_tags``) stay at the top level, as they are;
* every member the canonical shape does not define — and every alias that lost precedence — moves
  under the case's ``extensions`` (top-level ones under a top-level ``extensions``);
* ``examples`` becomes ``cases``; ``schema_version`` is set (the old value is kept as
  ``extensions.source_schema_version``).

Only objects that change are rewritten (in their own layout, values as their original text); a
case whose ``extensions`` is not an object, or that repeats a member name, keeps its members.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..contracts.detection import CANONICAL_SCHEMA, WORKFLOW
from ..contracts.workflow.normalize import (
    COMPOSITE_MEMBERS,
    INPUT_ALIASES,
    OUTCOME_ALIASES,
    NormalizedCase,
    NormalizedFile,
)
from ..parser.tree import ARRAY, OBJECT, Member, Node, split_pointer
from ..parser.values import members_of, string_of
from ..text.pieces import as_str
from .document import DocumentView
from .fixes.edits import Layout, TextEdit, apply_edits, json_text, trimmed
from .fixes.objects import Entry, ObjectStyle, nested_style, reindent, render, style_of

CANONICAL_CASE_MEMBERS = frozenset(
    {
        "id",
        "input",
        "expected_outcome",
        "coverage_tags",
        "source_refs",
        "source_ref_authority",
        "boundary_note",
        "forbidden_signals",
        "extensions",
    }
)
CANONICAL_TOP_MEMBERS = frozenset(
    {
        "$schema",
        "schema_version",
        "skill",
        "description",
        "source_refs",
        "source_ref_authority",
        "coverage_tags",
        "cases",
    }
)


@dataclass(slots=True)
class Migration:
    text: str
    changes: list[str] = field(default_factory=list)  # what moved, for reports
    # The edits of the original text that give ``text``: the rewritten cases, and the top level
    # around them (one edit of the whole root when the cases could not be told apart in it).
    edits: list[TextEdit] = field(default_factory=list)


def migration_applies(document: DocumentView) -> bool:
    """A cheap test for offering the migration: a readable workflow fixture not yet in the
    canonical shape (the migration itself is computed when the user asks for it)."""
    normalized = document.analysis.workflow
    if document.kind != WORKFLOW or not document.parses or normalized is None:
        return False
    return not normalized.unreadable and not normalized.canonical


def migrate_document(document: DocumentView) -> Migration | None:
    """The migrated text of a workflow fixture, or None when it is not one that can be migrated
    (another contract, invalid JSON, a file the normalizer cannot read)."""
    normalized = document.analysis.workflow
    root = document.root
    if document.kind != WORKFLOW or not document.parses or normalized is None or normalized.unreadable:
        return None
    if root is None or root.kind != OBJECT or _repeats_names(root):
        return None
    text = as_str(document.text)
    return _Migrator(text, Layout.of(text)).migrate(root, normalized)


def _repeats_names(obj: Node) -> bool:
    return len(obj.members or ()) != len(obj.props or {})


class _Migrator:
    def __init__(self, text: str, layout: Layout) -> None:
        self.text = text
        self.layout = layout
        self.changes: list[str] = []

    def slice(self, node: Node | None) -> str:
        """The text of a value. A member without one exists only in a recovered tree, which is
        never migrated (``migrate_document`` asks for valid JSON)."""
        return "" if node is None else self.text[node.start : node.end]

    # -- the file ------------------------------------------------------------------------------
    def migrate(self, root: Node, normalized: NormalizedFile) -> Migration:
        case_edits = [edit for case in normalized.cases if (edit := self.case_edit(case)) is not None]
        cases_text = self.cases_text(root, case_edits)
        new_root = self.top_level(root, cases_text)
        if not self.changes:  # already canonical: not even whitespace changes
            return Migration(self.text)
        text = self.text[: root.start] + new_root + self.text[root.end :]
        return Migration(text, self.changes, self.edits(root, new_root, text, cases_text, case_edits))

    def edits(
        self, root: Node, new_root: str, text: str, cases_text: str | None, case_edits: list[TextEdit]
    ) -> list[TextEdit]:
        """The rewritten root as edits: the case edits where they are, and the top level before
        and after the case array — when the new root holds the array's text exactly once."""
        array = self.case_array(root)
        whole = [trimmed(self.text, TextEdit(root.start, root.end, new_root))]
        if array is None or cases_text is None:
            return whole
        at = new_root.find(cases_text)
        if at < 0 or new_root.find(cases_text, at + 1) >= 0:
            return whole
        before = TextEdit(root.start, array.start, new_root[:at])
        after = TextEdit(array.end, root.end, new_root[at + len(cases_text) :])
        changed = [edit for edit in (before, after) if self.text[edit.start : edit.end] != edit.new_text]
        edits = sorted((trimmed(self.text, e) for e in changed + case_edits), key=lambda e: e.start)
        # Found once is not proof that it is the case array's place: the result must be the same.
        return edits if apply_edits(self.text, edits) == text else whole

    @staticmethod
    def case_array(root: Node) -> Node | None:
        array = root.get("cases")
        if array is None or array.kind != ARRAY:
            array = root.get("examples")
        return array if array is not None and array.kind == ARRAY else None

    def cases_text(self, root: Node, case_edits: list[TextEdit]) -> str | None:
        """The chosen case array's text with the rewritten cases in it."""
        array = self.case_array(root)
        if array is None:
            return None
        shifted = [TextEdit(e.start - array.start, e.end - array.start, e.new_text) for e in case_edits]
        return apply_edits(self.slice(array), shifted)

    def top_level(self, root: Node, cases_text: str | None) -> str:
        style = style_of(self.text, root, self.layout)
        chosen = (
            "cases"
            if _is_array(root.get("cases"))
            else ("examples" if _is_array(root.get("examples")) else None)
        )
        entries: list[Entry] = []
        moved: list[tuple[Member, str]] = []
        extensions = root.member("extensions")
        can_move = extensions is None or _is_object(extensions.value)
        for member in members_of(root):
            name = member.key
            if name == chosen and cases_text is not None:  # the chosen array's text
                entries.append(
                    Entry.named("cases", cases_text)
                    if name == "examples"
                    else Entry.original(self.text, member, cases_text)
                )
                if name == "examples":
                    self.changes.append("examples → cases")
            elif name == "schema_version":
                canonical = string_of(member.value) == CANONICAL_SCHEMA
                entries.append(
                    Entry.original(self.text, member, None if canonical else json_text(CANONICAL_SCHEMA))
                )
                if not canonical:
                    moved.append((_renamed(member, "source_schema_version"), self.slice(member.value)))
                    self.changes.append(f"schema_version → {CANONICAL_SCHEMA}")
            elif name == "cases" and chosen == "examples" and can_move and _free(extensions, name):
                moved.append((member, self.slice(member.value)))  # not an array: the examples win
            elif (
                name == "extensions"
                or name in CANONICAL_TOP_MEMBERS
                or not can_move
                or not _free(extensions, name)
            ):
                entries.append(Entry.original(self.text, member))
            else:
                moved.append((member, self.slice(member.value)))
        if root.get("schema_version") is None:
            entries.insert(0, Entry.named("schema_version", json_text(CANONICAL_SCHEMA)))
            self.changes.append(f"schema_version → {CANONICAL_SCHEMA}")
        self.changes.extend(
            f"/{m.key} → /extensions/{m.key}" for m, _ in moved if m.key != "source_schema_version"
        )
        entries = self.with_extensions(entries, extensions, moved, style)
        return render(entries, style)

    # -- one case ------------------------------------------------------------------------------
    def case_edit(self, case: NormalizedCase) -> TextEdit | None:
        obj = case.node
        if obj.kind != OBJECT or _repeats_names(obj):
            return None
        extensions = obj.member("extensions")
        can_move = extensions is None or _is_object(extensions.value)
        plan = _CasePlan(self, case, extensions if can_move else None, can_move)
        entries, moved = plan.build()
        if not plan.changed:
            return None
        style = style_of(self.text, obj, self.layout)
        entries = self.with_extensions(entries, extensions, moved, style)
        self.changes.extend(f"{case.pointer}: {change}" for change in plan.notes)
        return TextEdit(obj.start, obj.end, render(entries, style))

    def with_extensions(
        self,
        entries: list[Entry],
        extensions: Member | None,
        moved: list[tuple[Member, str]],
        style: ObjectStyle,
    ) -> list[Entry]:
        """``entries`` with the moved members added under ``extensions`` (the existing object,
        rewritten in its layout, or a new last member)."""
        if not moved:
            return entries
        existing = extensions.value if extensions is not None else None
        if extensions is not None and existing is not None:
            inner = style_of(self.text, existing, self.layout)
            if not existing.members:
                inner = nested_style(style, self.layout)
            kept = [Entry.original(self.text, m) for m in members_of(existing)]
            added = [self.moved_entry(m, value, inner) for m, value in moved]
            new_value = render(kept + added, inner)
            return [
                Entry.original(self.text, extensions, new_value)
                if e.key == _key_text(self.text, extensions)
                else e
                for e in entries
            ]
        inner = nested_style(style, self.layout)
        added = [self.moved_entry(m, value, inner) for m, value in moved]
        return [*entries, Entry.named("extensions", render(added, inner))]

    def moved_entry(self, member: Member, value: str, target: ObjectStyle) -> Entry:
        source_indent = _indent_at(self.text, member.key_start)
        return Entry(
            _key_text(self.text, member), reindent(value, source_indent, target.indent or source_indent)
        )


class _CasePlan:
    """What becomes of each member of one case."""

    def __init__(
        self, migrator: _Migrator, case: NormalizedCase, extensions: Member | None, can_move: bool
    ) -> None:
        self.m = migrator
        self.case = case
        self.extensions = extensions
        self.can_move = can_move
        self.changed = False
        self.notes: list[str] = []
        self.input_winner = split_pointer(case.input_from.pointer)[1] if case.input_from is not None else None
        self.outcome_winner = case.outcome.winner

    def build(self) -> tuple[list[Entry], list[tuple[Member, str]]]:
        obj = self.case.node
        text = self.m.text
        entries: list[Entry] = []
        moved: list[tuple[Member, str]] = []
        composite_written = False
        for member in members_of(obj):
            name = member.key
            action = self.action_for(member)
            if action == "keep":
                entries.append(Entry.original(text, member))
            elif action == "rename":
                entries.append(Entry(json_text(self.target_name(name)), self.m.slice(member.value)))
                self.note(f"{name} → {self.target_name(name)}")
            elif action == "composite":
                if not composite_written:
                    entries.append(self.composite_entry())
                    composite_written = True
            elif action == "forbidden":
                entries.append(Entry.original(text, member, self.merged_signals()))
            else:
                moved.append((member, self.m.slice(member.value)))
                self.note(f"{name} → extensions.{name}")
        if self.case.id_source != "id" and self.case.id:
            entries.insert(0, Entry.named("id", json_text(self.case.id)))
            self.note(f"id {json_text(self.case.id)} written out")
        return entries, moved

    def note(self, change: str) -> None:
        self.changed = True
        self.notes.append(change)

    def action_for(self, member: Member) -> str:
        name = member.key
        case = self.case
        if name == "extensions":
            return "keep"
        if name == "id":
            return "keep" if case.id_source == "id" else self.move(member)
        if name == "name":
            # Kept on the case: with an explicit id it only feeds extensions (the normalizer copies
            # it there), and with an empty slug (missing_id) writing an id would change the case.
            return "keep"
        if name in INPUT_ALIASES:
            return self.alias(member, self.input_winner, "input")
        if name in OUTCOME_ALIASES:
            return self.alias(member, self.outcome_winner, "expected_outcome")
        if name in COMPOSITE_MEMBERS:
            return "composite" if self.outcome_winner == "composite" else self.move(member)
        if name == "negative_signal":
            return "rename" if not case.node.has("forbidden_signals") else self.move(member)
        if name == "forbidden_signals":
            return "forbidden" if case.node.has("negative_signal") else "keep"
        return "keep" if name in CANONICAL_CASE_MEMBERS else self.move(member)

    def alias(self, member: Member, winner: str | None, canonical: str) -> str:
        if member.key == winner:
            return "keep" if member.key == canonical else "rename"
        if member.key == canonical and winner is None:
            return "keep"  # an empty canonical member: the finding stays where it was
        return self.move(member)

    def move(self, member: Member) -> str:
        """Under ``extensions`` when there is one to move to and the name is free there."""
        if not self.can_move or not _free(self.extensions, member.key):
            return "keep"
        return "move"

    def target_name(self, name: str) -> str:
        if name in INPUT_ALIASES:
            return "input"
        if name in OUTCOME_ALIASES:
            return "expected_outcome"
        return "forbidden_signals"  # negative_signal

    def composite_entry(self) -> Entry:
        """The composite outcome as one ``expected_outcome`` object of the members it is made of."""
        obj = self.case.node
        style = nested_style(style_of(self.m.text, obj, self.m.layout), self.m.layout)
        parts = [
            self.m.moved_entry(member, self.m.slice(member.value), style)
            for name in COMPOSITE_MEMBERS
            if (member := obj.member(name)) is not None
        ]
        self.note("composite outcome → expected_outcome")
        return Entry.named("expected_outcome", render(parts, style))

    def merged_signals(self) -> str:
        self.note("negative_signal merged into forbidden_signals")
        return json_text([signal.value for signal in self.case.forbidden_signals])


def _free(extensions: Member | None, name: str) -> bool:
    value = extensions.value if extensions is not None else None
    return value is None or value.kind != OBJECT or not value.has(name)


def _is_array(node: Node | None) -> bool:
    return node is not None and node.kind == ARRAY


def _is_object(node: Node | None) -> bool:
    return node is not None and node.kind == OBJECT


def _renamed(member: Member, name: str) -> Member:
    return Member(name, member.key_start, member.key_end, member.value)


def _key_text(text: str, member: Member) -> str:
    original = text[member.key_start : member.key_end]
    return original if _decodes_to(original, member.key) else json_text(member.key)


def _decodes_to(key_text: str, name: str) -> bool:
    import json

    try:
        decoded: object = json.loads(key_text)
    except ValueError:
        return False
    return decoded == name


def _indent_at(text: str, offset: int) -> str:
    from .fixes.edits import line_indentation

    return line_indentation(text, offset)


# What must read the same before and after a migration (the normalized record minus provenance
# and ``extensions``, which the migration fills on purpose).
READING = ("skill", *sorted(CANONICAL_CASE_MEMBERS - {"extensions"}))


def same_reading(before: DocumentView, after: DocumentView) -> bool:
    """True when ``after`` normalizes to the same cases as ``before`` and has no new error."""
    from collections import Counter

    from ..findings import Severity
    from ..json_value import same_json_values

    def records(document: DocumentView) -> list[dict[str, object]]:
        normalized = document.analysis.workflow
        cases = normalized.cases if normalized is not None else []
        return [{key: case.record()[key] for key in READING} for case in cases]

    def errors(document: DocumentView) -> Counter[tuple[str, int | None]]:
        return Counter((f.code, f.case) for f in document.analysis.findings if f.severity == Severity.ERROR)

    return (
        after.parses
        and same_json_values(records(after), records(before))
        and not (errors(after) - errors(before))
    )
