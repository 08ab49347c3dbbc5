"""``metadata`` (evals-json.md §10) and ``sandbox`` / ``sandboxMocks`` (§11).

The spec types ``metadata`` as ``Record<string, unknown>``: only "is it an object" is shared with the
loader (an error); the loader's inner rules are warnings. ``sandbox`` and ``sandboxMocks`` are the
spec's alone (the reference loader ignores them): warnings and hints only.
"""

from __future__ import annotations

from ...parser.tree import ARRAY, BOOLEAN, NUMBER, OBJECT, STRING, Node
from ...parser.values import items_of, string_of
from ..fix_data import SiblingMember
from .report import (
    DIFFICULTIES,
    NETWORK_MODES,
    SANDBOX_MODES,
    SETUP_KINDS,
    TOOL_MODES,
    Scope,
    describe,
    is_nonempty_string,
    one_of,
    sentence,
)

_SPEC_ALLOWS = "The spec types `metadata` as an open record, but arc-skill-eval rejects the case."


def check_metadata(scope: Scope, metadata: Node) -> None:
    p = scope.prefix
    if metadata.kind != OBJECT:
        scope.at(
            "metadata-not-object",
            metadata,
            ("metadata",),
            sentence(
                f"{p}`metadata`, if present, must be an object",
                f'Got {describe(metadata)}; write an object such as {{"tags": ["smoke"]}} or remove it.',
            ),
        )
        return
    tokens = ("metadata",)
    tags = metadata.get("tags")
    if tags is not None and (tags.kind != ARRAY or any(item.kind != STRING for item in items_of(tags))):
        scope.at(
            "metadata-tags-type",
            tags,
            (*tokens, "tags"),
            sentence(
                f"{p}`metadata.tags`, if present, must be an array of strings",
                f"Got {describe(tags)}{' with non-string items' if tags.kind == ARRAY else ''}. "
                + _SPEC_ALLOWS,
            ),
        )
    scope.require_enum(
        "metadata-difficulty-invalid",
        metadata,
        tokens,
        "difficulty",
        DIFFICULTIES,
        f'{p}`metadata.difficulty`, if present, must be "easy", "medium", or "hard"',
        "difficulty",
        optional=True,
        note=_SPEC_ALLOWS,
    )
    scope.optional_type(
        "metadata-intent-type",
        metadata,
        tokens,
        "intent",
        STRING,
        f"{p}`metadata.intent`, if present, must be a string",
        "arc-skill-eval rejects the case (the spec types `metadata` as an open record).",
    )
    environment = metadata.get("environment")
    if environment is not None:
        _Environment(scope, (*tokens, "environment")).check(environment)


class _Environment:
    """``metadata.environment``: one warning per loader rule that fails (§10)."""

    __slots__ = ("scope", "tokens")

    def __init__(self, scope: Scope, tokens: tuple[str | int, ...]) -> None:
        self.scope = scope
        self.tokens = tokens

    def report(
        self, node: Node | None, parent: Node, tokens: tuple[str | int, ...], label: str, rule: str
    ) -> None:
        """``label`` is the loader's dotted name below ``metadata.environment``."""
        name = f"metadata.environment{label}"
        separator = "" if rule.startswith(",") else " "
        message = sentence(f"{self.scope.prefix}`{name}`{separator}{rule}", _SPEC_ALLOWS)
        if node is None:
            self.scope.missing("metadata-environment-invalid", parent, tokens[:-1], str(tokens[-1]), message)
        else:
            self.scope.at("metadata-environment-invalid", node, tokens, message)

    def check(self, env: Node) -> None:
        t = self.tokens
        if env.kind != OBJECT:
            self.report(env, env, t, "", "must be an object")
            return
        workspace = env.get("workspace")
        if workspace is None or workspace.kind != OBJECT:
            self.report(workspace, env, (*t, "workspace"), ".workspace", "must be an object")
        else:
            wt = (*t, "workspace")
            kind = workspace.get("kind")
            if kind is None or kind.kind != STRING or kind.value not in SETUP_KINDS:
                self.report(
                    kind,
                    workspace,
                    (*wt, "kind"),
                    ".workspace.kind",
                    f"must be one of [{one_of(SETUP_KINDS)}]",
                )
            writable = workspace.get("writable")
            if writable is None or writable.kind != BOOLEAN:
                self.report(
                    writable, workspace, (*wt, "writable"), ".workspace.writable", "must be a boolean"
                )
        git = env.get("git")
        if git is not None:
            if git.kind != OBJECT:
                self.report(git, env, (*t, "git"), ".git", "must be an object")
            else:
                required = git.get("required")
                if required is None or required.kind != BOOLEAN:
                    self.report(required, git, (*t, "git", "required"), ".git.required", "must be a boolean")
        network = env.get("network")
        if network is not None:
            if network.kind != OBJECT:
                self.report(network, env, (*t, "network"), ".network", "must be an object")
            else:
                mode = network.get("mode")
                if mode is None or mode.kind != STRING or mode.value not in NETWORK_MODES:
                    self.report(
                        mode,
                        network,
                        (*t, "network", "mode"),
                        ".network.mode",
                        f"must be one of [{one_of(NETWORK_MODES)}]",
                    )
        self._check_list(env, "tools", "mode", TOOL_MODES)
        self._check_list(env, "envVars", "secret", None)

    def _check_list(self, env: Node, name: str, extra: str, extra_modes: tuple[str, ...] | None) -> None:
        """``tools`` and ``envVars``: arrays of ``{name, required, …}``; ``extra`` is ``mode`` (an
        enum) for tools and ``secret`` (a boolean) for environment variables."""
        node = env.get(name)
        if node is None:
            return
        t = (*self.tokens, name)
        if node.kind != ARRAY:
            self.report(node, env, t, f".{name}", "must be an array")
            return
        for k, element in enumerate(items_of(node)):
            et = (*t, k)
            label = f".{name}[{k}]"
            if element.kind != OBJECT:
                self.report(element, node, et, label, "must be an object")
                continue
            entry_name = element.get("name")
            if not is_nonempty_string(entry_name):
                self.report(entry_name, element, (*et, "name"), f"{label}.name", "must be a non-empty string")
            required = element.get("required")
            if required is None or required.kind != BOOLEAN:
                self.report(required, element, (*et, "required"), f"{label}.required", "must be a boolean")
            value = element.get(extra)
            if value is None:
                continue
            if extra_modes is not None:
                if value.kind != STRING or value.value not in extra_modes:
                    self.report(
                        value,
                        element,
                        (*et, extra),
                        f"{label}.{extra}",
                        f", if present, must be one of [{one_of(extra_modes)}]",
                    )
            elif value.kind != BOOLEAN:
                self.report(
                    value, element, (*et, extra), f"{label}.{extra}", ", if present, must be a boolean"
                )


# -- sandbox -------------------------------------------------------------------------------------------

_SANDBOX_NOTE = (
    "arc-skill-eval at the reference commit ignores it, but the spec (and later arc-skill-eval "
    "versions) reject it."
)


def check_sandbox(scope: Scope, case: Node) -> None:
    scope.require_enum(
        "sandbox-invalid",
        case,
        (),
        "sandbox",
        SANDBOX_MODES,
        f"`sandbox` must be one of [{one_of(SANDBOX_MODES)}]",
        "sandbox",
        optional=True,
        note=_SANDBOX_NOTE,
    )
    sandbox = case.get("sandbox")
    mocks = case.get("sandboxMocks")
    if mocks is None:
        return
    if mocks.kind != ARRAY:
        _mock_problem(scope, mocks, ("sandboxMocks",), "`sandboxMocks` must be an array of command mocks")
        return
    if mocks.items and (sandbox is None or (sandbox.kind == STRING and sandbox.value == "none")):
        scope.at(
            "sandbox-mocks-unused",
            mocks,
            ("sandboxMocks",),
            'Mocks apply only under "sandbox": "just-bash"; this case runs with the host shell unless the '
            "CLI passes --sandbox just-bash.",
            SiblingMember("sandbox", "just-bash").fields(),
        )
    seen: dict[str, int] = {}
    for k, mock in enumerate(items_of(mocks)):
        _check_mock(scope, mock, k, seen)


def _mock_problem(scope: Scope, node: Node, tokens: tuple[str | int, ...], text: str) -> None:
    scope.at("sandbox-mock-invalid", node, tokens, f"{text}; got {describe(node)}. {_SANDBOX_NOTE}")


def _check_mock(scope: Scope, mock: Node, k: int, seen: dict[str, int]) -> None:
    t = ("sandboxMocks", k)
    if mock.kind != OBJECT:
        _mock_problem(scope, mock, t, f"`sandboxMocks[{k}]` must be an object {{command, stdout?, …}}")
        return
    command = mock.get("command")
    name = string_of(command)
    if command is None or not name:  # absent, not a string, or empty
        text = f"`sandboxMocks[{k}].command` must be a non-empty string"
        if command is None:
            scope.missing(
                "sandbox-mock-invalid",
                mock,
                t,
                "command",
                f"{text}: the mock names no command. {_SANDBOX_NOTE}",
            )
        else:
            _mock_problem(scope, command, (*t, "command"), text)
    else:
        if any(ch.isspace() for ch in name):
            scope.at(
                "sandbox-mock-command-spaces",
                command,
                (*t, "command"),
                f"Mocks are registered by command name, so '{name}' (with whitespace) can never match; "
                f"write just '{name.split()[0] if name.split() else name}'.",
            )
        if name in seen:
            first = seen[name]
            scope.at(
                "sandbox-mock-duplicate",
                command,
                (*t, "command"),
                f"sandboxMocks[{first}] already mocks '{name}': this later mock replaces it.",
                {"first": first},
            )
        else:
            seen[name] = k
    for member in ("stdout", "stderr"):
        value = mock.get(member)
        if value is not None and value.kind != STRING:
            _mock_problem(
                scope, value, (*t, member), f"`sandboxMocks[{k}].{member}`, if present, must be a string"
            )
    exit_code = mock.get("exitCode")
    if exit_code is not None and exit_code.kind != NUMBER:
        _mock_problem(
            scope, exit_code, (*t, "exitCode"), f"`sandboxMocks[{k}].exitCode`, if present, must be a number"
        )
    files = mock.get("files")
    if files is None:
        return
    if files.kind != ARRAY:
        _mock_problem(scope, files, (*t, "files"), f"`sandboxMocks[{k}].files`, if present, must be an array")
        return
    for f, entry in enumerate(items_of(files)):
        ft = (*t, "files", f)
        label = f"`sandboxMocks[{k}].files[{f}]"
        if entry.kind != OBJECT:
            _mock_problem(scope, entry, ft, f"{label}` must be an object {{path, content}}")
            continue
        for member in ("path", "content"):
            value = entry.get(member)
            if value is None:
                scope.missing(
                    "sandbox-mock-invalid",
                    entry,
                    ft,
                    member,
                    f"{label}.{member}` must be a string: it is missing. {_SANDBOX_NOTE}",
                )
            elif value.kind != STRING:
                _mock_problem(scope, value, (*ft, member), f"{label}.{member}` must be a string")
