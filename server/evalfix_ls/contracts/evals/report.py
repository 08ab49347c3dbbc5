"""Shared machinery of the evals.json rules: the code table, enums, scopes that emit findings.

Every code of evals-json.md §18 is listed once in ``CODES`` with its severity and whether it stands
for a loader issue (those decide duplicate-id registration, §12). Rules never pick a severity
themselves: they name a code.

Pointers are built only when a finding is emitted (``join_pointer`` over the scope's tokens), so a
clean document costs no string building for its nodes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from ... import schema
from ...findings import Finding, Related, Severity
from ...js.values import js_number_to_string
from ...json_value import JsonValue
from ...parser.tree import ARRAY, BOOLEAN, NULL, OBJECT, STRING, Member, Node, join_pointer
from ...parser.values import number_of, string_of
from ..fix_data import Missing, OneOf

ERR, WARN, INFO, HINT = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

# code → (severity, is a loader issue). Order and content follow the table of evals-json.md §18.
CODES: dict[str, tuple[Severity, bool]] = {
    "root-not-object": (ERR, True),
    "version-type": (ERR, True),
    "skill-name-required": (ERR, True),
    "evals-not-array": (ERR, True),
    "case-not-object": (ERR, True),
    "id-required": (ERR, True),
    "description-type": (ERR, True),
    "prompt-required": (ERR, True),
    "expected-output-type": (ERR, True),
    "setup-not-object": (ERR, True),
    "setup-kind-invalid": (ERR, True),
    "setup-sources-not-array": (ERR, True),
    "setup-source-not-object": (ERR, True),
    "setup-source-from-required": (ERR, True),
    "setup-source-to-type": (ERR, True),
    "setup-mount-mode-invalid": (ERR, True),
    "setup-fixture-not-object": (ERR, True),
    "setup-fixture-kind-invalid": (ERR, True),
    "setup-fixture-source-required": (ERR, True),
    "setup-fixture-init-git-type": (ERR, True),
    "files-not-array": (ERR, True),
    "files-item-type": (ERR, True),
    "assertions-not-array": (ERR, True),
    "assertion-empty": (ERR, True),
    "assertion-not-string-or-object": (ERR, True),
    "script-type-invalid": (ERR, True),
    "script-path-required": (ERR, True),
    "regex-pattern-required": (ERR, True),
    "regex-flags-invalid": (ERR, True),
    "regex-invalid": (ERR, True),
    "regex-flags-type": (ERR, True),
    "regex-target-invalid": (ERR, True),
    "intent-kind-invalid": (ERR, True),
    "intent-id-required": (ERR, True),
    "intent-must-pass-type": (ERR, True),
    "intent-severity-invalid": (ERR, True),
    "intent-method-invalid": (ERR, True),
    "intent-judge-prompt-type": (ERR, True),
    "intent-expected-required": (ERR, True),
    "intent-path-required": (ERR, True),
    "intent-value-type": (ERR, True),
    "metadata-not-object": (ERR, True),
    "duplicate-id": (ERR, True),
    # Loader issues the spec allows: warnings, but they still keep a case from registering its id.
    "sources-string-form": (WARN, True),
    "mount-mode-flatten": (WARN, True),
    "metadata-tags-type": (WARN, True),
    "metadata-difficulty-invalid": (WARN, True),
    "metadata-intent-type": (WARN, True),
    "metadata-environment-invalid": (WARN, True),
    "regex-newer-syntax": (WARN, True),
    # Beyond the loader.
    "duplicate-id-latent": (WARN, False),
    "sandbox-invalid": (WARN, False),
    "sandbox-mock-invalid": (WARN, False),
    "assertion-never-passes": (WARN, False),
    "target-file-empty": (WARN, False),
    "assertion-path-escapes": (WARN, False),
    "path-not-found": (WARN, False),
    "path-outside-repository": (WARN, False),
    "source-outside-evals": (WARN, False),
    "setup-destination-escapes": (WARN, False),
    "files-skill-root-relative": (WARN, False),  # a hint when existence cannot be checked
    "expectations-not-graded": (INFO, False),
    "trigger-eval-format": (INFO, False),
    "evals-empty": (INFO, False),
    "not-discovered": (INFO, False),
    "skill-name-mismatch": (INFO, False),
    "mount-mode-flatten-contents": (HINT, False),
    "sources-object-form": (HINT, False),
    "setup-key-unused": (HINT, False),
    "sources-empty": (HINT, False),
    "files-legacy": (HINT, False),
    "files-and-setup": (HINT, False),
    "id-style": (HINT, False),
    "id-artifact-collision": (HINT, False),
    "prompt-blank": (HINT, False),
    "assertion-blank": (HINT, False),
    "judge-claim-ignored": (HINT, False),
    "judge-prompt-missing": (HINT, False),
    "regex-flag-g-ignored": (HINT, False),
    "regex-flag-y-anchors": (HINT, False),
    "regex-unchecked": (HINT, False),
    "sandbox-mocks-unused": (HINT, False),
    "sandbox-mock-duplicate": (HINT, False),
    "sandbox-mock-command-spaces": (HINT, False),
    "key-ignored": (HINT, False),
    "other-tool-suite": (HINT, False),
}

# Loader issues the spec allows: warnings only while the spec accepts the whole case (§14).
SPEC_ALLOWED_LOADER_ISSUES = frozenset(
    code for code, (sev, loader) in CODES.items() if loader and sev == WARN
)
# Findings for forms the spec rejects and the loader accepts. With one of them in a case, no tool
# accepts the case, and its spec-allowed loader issues become errors (§14, "neither accepts").
SPEC_REJECTED_FORMS = frozenset(
    {
        "sources-object-form",
        "mount-mode-flatten-contents",
        "sandbox-invalid",
        "sandbox-mock-invalid",
        "source-outside-evals",
    }
)

# -- enums: one source of truth, the bundled schema (read once, at import) -----------------------------


def _enum(def_name: str) -> tuple[str, ...]:
    return schema.enum(schema.EVALS_SCHEMA, def_name)


SETUP_KINDS = _enum("SetupKind")
MOUNT_MODES = _enum("MountMode")
SPEC_ONLY_MOUNT_MODE = "flatten"  # the spec's spelling; arc-skill-eval rejects it (§14 row 2)
LOADER_MOUNT_MODES = tuple(mode for mode in MOUNT_MODES if mode != SPEC_ONLY_MOUNT_MODE)
FIXTURE_KINDS = _enum("FixtureKind")
SCRIPT_TYPES = _enum("ScriptAssertionType")
INTENT_KINDS = _enum("IntentKind")
INTENT_SEVERITIES = _enum("IntentSeverity")
# Each intent kind's methods live in `$defs/<Kind>Method` (OutputMethod, WorkspaceMethod, …).
INTENT_METHODS = {kind: _enum(f"{kind.capitalize()}Method") for kind in INTENT_KINDS}
SANDBOX_MODES = _enum("Sandbox")
DIFFICULTIES = _enum("Difficulty")
NETWORK_MODES = _enum("NetworkMode")
TOOL_MODES = _enum("ToolMode")


# -- describing values in messages -----------------------------------------------------------------------


def describe(node: Node) -> str:
    """A short human description of a JSON value: ``'Empty'``, ``the number 3``, ``null``, …"""
    kind = node.kind
    text = string_of(node)
    if text is not None:
        return "an empty string" if text == "" else quote(text)
    number = number_of(node)
    if number is not None:
        return f"the number {js_number_to_string(number)}"
    if kind == BOOLEAN:
        return "true" if node.value else "false"
    if kind == NULL:
        return "null"
    if kind == ARRAY:
        return "an array"
    if kind == OBJECT:
        return "an object"
    return "an invalid value"


def quote(text: str, limit: int = 60) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "'" + text.replace("\n", "\\n") + "'"


def one_of(values: Iterable[str]) -> str:
    return ", ".join(values)


def suggest(value: str, allowed: Iterable[str]) -> str | None:
    """The allowed value the author most likely meant (case slip or typo), if any."""
    allowed = list(allowed)
    for candidate in allowed:
        if candidate.lower() == value.lower():
            return candidate
    close = difflib.get_close_matches(value.lower(), allowed, n=1, cutoff=0.75)
    return close[0] if close else None


def sentence(issue: str, explanation: str) -> str:
    """The loader's issue text followed by our explanation."""
    if not explanation:
        return issue
    return f"{issue}{'' if issue.endswith('.') else '.'} {explanation}"


def enum_problem(node: Node | None, allowed: tuple[str, ...], what: str) -> tuple[str, dict[str, JsonValue]]:
    """Explanation and quick-fix data for a value that is not one of ``allowed``."""
    subject = what[0].upper() + what[1:]
    if node is None:
        return f"{subject} is missing; expected one of {one_of(allowed)}.", OneOf(allowed).fields()
    written = string_of(node)
    if written is not None:
        text = f"Unknown {what} {describe(node)}; expected one of {one_of(allowed)}"
        guess = suggest(written, allowed)
        if guess is not None:
            text += f" (did you mean '{guess}'?)"
        return text + ".", OneOf(allowed, guess).fields()
    return f"{subject} is {describe(node)}; expected one of {one_of(allowed)}.", OneOf(allowed).fields()


# -- scopes ----------------------------------------------------------------------------------------------


class Scope:
    """Emits the findings of one case (``index``) or of the top level (``index`` None).

    ``base`` are the pointer tokens of the scope's object (``("evals", 3)``); rules pass tokens
    relative to it. ``loader_issues`` counts findings that stand for loader issues (§12).
    """

    __slots__ = ("findings", "index", "base", "loader_issues", "spec_rejections")

    def __init__(self, findings: list[Finding], index: int | None, base: tuple[str | int, ...]) -> None:
        self.findings = findings
        self.index = index
        self.base = base
        self.loader_issues = 0
        # (code, tokens) of each form in this scope that the spec rejects and the loader accepts.
        self.spec_rejections: list[tuple[str, tuple[str | int, ...]]] = []

    def spec_rejects(self, code: str, tokens: tuple[str | int, ...]) -> None:
        """Record a spec-rejected form that has no finding of its own (another one took precedence)."""
        self.spec_rejections.append((code, tokens))

    @property
    def prefix(self) -> str:
        return "" if self.index is None else f"evals[{self.index}]: "

    def pointer(self, tokens: tuple[str | int, ...]) -> str:
        return join_pointer("", *self.base, *tokens)

    def emit(
        self,
        code: str,
        start: int,
        end: int,
        tokens: tuple[str | int, ...],
        message: str,
        data: Mapping[str, JsonValue] | None = None,
        related: tuple[Related, ...] = (),
        severity: Severity | None = None,
    ) -> None:
        default_severity, loader = CODES[code]
        if loader:
            self.loader_issues += 1
        elif code in SPEC_REJECTED_FORMS:
            self.spec_rejections.append((code, tokens))
        self.findings.append(
            Finding(
                code,
                severity or default_severity,
                message,
                self.pointer(tokens),
                start,
                end,
                self.index,
                data,
                related,
            )
        )

    def at(
        self,
        code: str,
        node: Node,
        tokens: tuple[str | int, ...],
        message: str,
        data: Mapping[str, JsonValue] | None = None,
        related: tuple[Related, ...] = (),
        severity: Severity | None = None,
    ) -> None:
        """A finding anchored at ``node`` (its whole range)."""
        self.emit(code, node.start, node.end, tokens, message, data, related, severity)

    def missing(
        self,
        code: str,
        parent: Node,
        tokens: tuple[str | int, ...],
        member: str,
        message: str,
        data: Mapping[str, JsonValue] | None = None,
    ) -> None:
        """A finding for member ``member`` absent from ``parent`` (at ``tokens``): the pointer is the
        parent and the range its opening brace."""
        full = Missing(member).fields()
        if data:
            full.update(data)
        self.emit(code, parent.start, parent.start + 1, tokens, message, full)

    def at_member(
        self,
        code: str,
        value: Node | None,
        parent: Node,
        tokens: tuple[str | int, ...],
        name: str,
        message: str,
        data: Mapping[str, JsonValue] | None = None,
    ) -> None:
        """At member ``name``'s value (``tokens`` + name), or at ``parent`` when it is absent."""
        if value is None:
            self.missing(code, parent, tokens, name, message, data)
        else:
            self.at(code, value, (*tokens, name), message, data)

    def at_key(
        self,
        code: str,
        member: Member,
        tokens: tuple[str | int, ...],
        message: str,
        data: Mapping[str, JsonValue] | None = None,
    ) -> None:
        """A finding anchored at a member name (``tokens`` point at the member)."""
        self.emit(code, member.key_start, member.key_end, tokens, message, data)

    # -- the two loader rules that recur everywhere ----------------------------------------------------

    def require_string(
        self,
        code: str,
        parent: Node,
        tokens: tuple[str | int, ...],
        name: str,
        issue: str,
        purpose: str,
        *,
        allow_empty: bool = False,
    ) -> Node | None:
        """ "``name`` must be a (non-empty) string": the member's node when it is one, else a finding
        (at the member, or at ``parent`` when it is missing) and None. ``purpose`` says what the
        member is for; the message adds what was found."""
        node = parent.get(name)
        if node is not None and node.kind == STRING and (allow_empty or node.value != ""):
            return node
        found = "" if node is None else f"; got {describe(node)}"
        self.at_member(code, node, parent, tokens, name, sentence(issue, f"{purpose}{found}."))
        return None

    def require_enum(
        self,
        code: str,
        parent: Node,
        tokens: tuple[str | int, ...],
        name: str,
        allowed: tuple[str, ...],
        issue: str,
        what: str,
        *,
        optional: bool = False,
        note: str = "",
    ) -> str | None:
        """ "``name`` must be one of [allowed]" (exact, case-sensitive): the value when it is one,
        else a finding with the allowed values (and a likely replacement) in ``data``, and None.
        An ``optional`` member may be absent."""
        node = parent.get(name)
        if node is None and optional:
            return None
        if node is not None and node.kind == STRING and node.value in allowed:
            return node.value
        explanation, data = enum_problem(node, allowed, what)
        if note:
            explanation = f"{explanation} {note}"
        self.at_member(code, node, parent, tokens, name, sentence(issue, explanation), data)
        return None

    def optional_type(
        self,
        code: str,
        parent: Node,
        tokens: tuple[str | int, ...],
        name: str,
        kind: str,
        issue: str,
        advice: str = "",
        data: Mapping[str, JsonValue] | None = None,
    ) -> Node | None:
        """ "``name``, if present, must be a <kind>": the member's node when it is present and of
        ``kind``, None when it is absent, and a finding (plus None) otherwise."""
        node = parent.get(name)
        if node is None or node.kind == kind:
            return node
        found = f"Got {describe(node)}" + (f"; {advice}" if advice else ".")
        self.at(code, node, (*tokens, name), sentence(issue, found), data)
        return None


def is_nonempty_string(node: Node | None) -> bool:
    return node is not None and node.kind == STRING and node.value != ""


def is_string(node: Node | None) -> bool:
    return node is not None and node.kind == STRING
