"""``setup`` (WorkspaceSetup) and the legacy ``files`` shorthand (evals-json.md §7, §8, §13.1)."""

from __future__ import annotations

import json

from ...findings import Severity
from ...parser.tree import ARRAY, BOOLEAN, OBJECT, STRING, Node
from ...parser.values import items_of, props_of, string_of
from ..fix_data import EquivalentSetup, OneOf, Replacement, WrittenPath
from .paths import SuitePaths, escapes_workspace, leaves_directory
from .report import (
    FIXTURE_KINDS,
    LOADER_MOUNT_MODES,
    SETUP_KINDS,
    SPEC_ONLY_MOUNT_MODE,
    Scope,
    describe,
    enum_problem,
    one_of,
    quote,
    sentence,
)

# The members each setup kind reads; anything else in `setup` is unused (hint setup-key-unused).
_USED_BY_KIND = {
    "empty": frozenset({"kind"}),
    "seeded": frozenset({"kind", "sources", "mountMode"}),
    "fixture": frozenset({"kind", "fixture"}),
}
_PRESERVE_PATH = "preserve-path"
_FLATTEN_CONTENTS = "flatten-contents"


def check_setup(scope: Scope, setup: Node, paths: SuitePaths) -> None:
    p = scope.prefix
    if setup.kind != OBJECT:
        scope.at(
            "setup-not-object",
            setup,
            ("setup",),
            sentence(
                f"{p}`setup` must be an object",
                f'Got {describe(setup)}; write e.g. {{"kind": "empty"}} or '
                '{"kind": "seeded", "sources": [{"from": "files/input"}]}.',
            ),
            OneOf(SETUP_KINDS, {"kind": "empty"}).fields(),
        )
        return
    kind = scope.require_enum(
        "setup-kind-invalid",
        setup,
        ("setup",),
        "kind",
        SETUP_KINDS,
        f"{p}`setup.kind` must be one of [{one_of(SETUP_KINDS)}]",
        "setup kind",
    )
    if kind is None:
        return
    if kind == "seeded":
        _check_seeded(scope, setup, paths)
    elif kind == "fixture":
        _check_fixture(scope, setup)
    used = _USED_BY_KIND.get(kind, frozenset({"kind"}))
    for name, member in props_of(setup).items():
        if name not in used:
            scope.at_key(
                "setup-key-unused",
                member,
                ("setup", name),
                f"`setup.{name}` is not used by a '{kind}' setup; arc-skill-eval ignores it.",
                {"key": name, "kind": kind},
            )


def _check_seeded(scope: Scope, setup: Node, paths: SuitePaths) -> None:
    p = scope.prefix
    mode_node = setup.get("mountMode")
    mode = _PRESERVE_PATH
    if mode_node is not None:
        if mode_node.kind == STRING and mode_node.value in LOADER_MOUNT_MODES:
            mode = mode_node.value
            if mode == _FLATTEN_CONTENTS:
                scope.at(
                    "mount-mode-flatten-contents",
                    mode_node,
                    ("setup", "mountMode"),
                    "'flatten-contents' is arc-skill-eval's flattening mode (the spec writes 'flatten', "
                    "which the loader rejects): keep it. Sources land in '.' unless they give `to`.",
                )
        else:
            issue = f"{p}`setup.mountMode`, if present, must be one of [{one_of(LOADER_MOUNT_MODES)}]"
            if mode_node.kind == STRING and mode_node.value == SPEC_ONLY_MOUNT_MODE:
                mode = SPEC_ONLY_MOUNT_MODE
                scope.at(
                    "mount-mode-flatten",
                    mode_node,
                    ("setup", "mountMode"),
                    sentence(
                        issue,
                        "The spec allows 'flatten', but arc-skill-eval rejects it: use 'flatten-contents'.",
                    ),
                    Replacement(_FLATTEN_CONTENTS).fields(),
                )
            else:
                explanation, data = enum_problem(mode_node, LOADER_MOUNT_MODES, "mount mode")
                scope.at(
                    "setup-mount-mode-invalid",
                    mode_node,
                    ("setup", "mountMode"),
                    sentence(issue, explanation),
                    data,
                )

    sources = setup.get("sources")
    if sources is None or sources.kind != ARRAY:
        scope.at_member(
            "setup-sources-not-array",
            sources,
            setup,
            ("setup",),
            "sources",
            sentence(
                f"{p}`setup.sources` must be an array",
                "A seeded setup lists what to copy from evals/: "
                '"sources": [{"from": "files/input"}]'
                + ("" if sources is None else f"; got {describe(sources)}")
                + ".",
            ),
        )
        return
    if not sources.items:
        scope.at(
            "sources-empty",
            sources,
            ("setup", "sources"),
            '`setup.sources` is empty: nothing is copied. Use {"kind": "empty"} if that is intended.',
            Replacement({"kind": "empty"}).fields(),
        )
    for j, source in enumerate(items_of(sources)):
        _check_source(scope, source, j, mode, paths)


def _check_source(scope: Scope, source: Node, j: int, mode: str, paths: SuitePaths) -> None:
    p = scope.prefix
    tokens = ("setup", "sources", j)
    written = string_of(source)
    if written is not None:
        scope.at(
            "sources-string-form",
            source,
            tokens,
            sentence(
                f"{p}`setup.sources[{j}]` must be an object",
                "The spec writes sources as strings, but arc-skill-eval rejects them: "
                f'use {{"from": {json.dumps(written, ensure_ascii=False)}}}.',
            ),
            Replacement({"from": written}).fields(),
        )
        # As the spec means it: preserve-path copies the path to the same place, flatten to the root.
        dest = written if mode != SPEC_ONLY_MOUNT_MODE else "."
        check_copy_paths(scope, source, tokens, written, dest, paths)
        return
    if source.kind != OBJECT:
        scope.at(
            "setup-source-not-object",
            source,
            tokens,
            sentence(
                f"{p}`setup.sources[{j}]` must be an object",
                f"Got {describe(source)}; write "
                '{"from": "<path inside evals/>", "to": "<workspace path>"}.',
            ),
        )
        return
    scope.at(
        "sources-object-form",
        source,
        tokens,
        "Object sources {from, to} are arc-skill-eval's form (the spec's type shows strings, which the "
        "loader rejects): keep it.",
    )
    from_node = scope.require_string(
        "setup-source-from-required",
        source,
        tokens,
        "from",
        f"{p}`setup.sources[{j}].from` must be a non-empty string",
        "`from` is the path to copy, relative to the evals/ directory",
    )
    to_node = source.get("to")
    scope.optional_type(
        "setup-source-to-type",
        source,
        tokens,
        "to",
        STRING,
        f"{p}`setup.sources[{j}].to`, if present, must be a string",
        "`to` is a path relative to the workspace (omit it for the default).",
    )
    from_path = string_of(from_node)
    if from_node is None or from_path is None:
        return
    if to_node is not None:
        to_path = string_of(to_node)
        if to_path is not None and escapes_workspace(to_path):
            _destination_escapes(scope, to_node, (*tokens, "to"), to_path)
        check_copy_paths(scope, from_node, (*tokens, "from"), from_path, None, paths)
    else:
        dest = from_path if mode == _PRESERVE_PATH else "."
        check_copy_paths(scope, from_node, (*tokens, "from"), from_path, dest, paths)


def check_copy_paths(
    scope: Scope,
    node: Node,
    tokens: tuple[str | int, ...],
    source: str,
    destination: str | None,
    paths: SuitePaths,
) -> None:
    """Warnings on one copy whose source (and, when ``destination`` is the same string, destination)
    is ``node``: escaping destination (takes precedence), source outside evals/, missing source."""
    if destination is not None and destination == source and escapes_workspace(destination):
        _destination_escapes(scope, node, tokens, destination)
        if leaves_directory(source):  # reported as the escape, still a path the spec rejects
            scope.spec_rejects("source-outside-evals", tokens)
    elif leaves_directory(source):
        scope.at(
            "source-outside-evals",
            node,
            tokens,
            f"{quote(source)} lies outside the evals/ directory: the spec says sources are paths inside "
            "evals/ (arc-skill-eval copies from anywhere on the host, so the run depends on that machine).",
        )
    if not paths.checkable:
        return
    if paths.leaves_repository(source):
        scope.at(
            "path-outside-repository",
            node,
            tokens,
            f"{quote(source)} leaves the repository: it resolves (through '..', an absolute path or a "
            "symbolic link) outside the repository root, so evalfix-ls neither reads it nor tests whether "
            "it exists. Copy what the case needs below evals/.",
            WrittenPath(source).fields(),
        )
    elif not paths.exists_in_evals(source):
        scope.at(
            "path-not-found",
            node,
            tokens,
            f"{quote(source)} does not exist relative to the evals/ directory: the copy fails at run time.",
            WrittenPath(source).fields(),
        )


def _destination_escapes(scope: Scope, node: Node, tokens: tuple[str | int, ...], destination: str) -> None:
    scope.at(
        "setup-destination-escapes",
        node,
        tokens,
        f"The copy destination {quote(destination)} leaves the workspace (absolute or starting with '..'): "
        "the run throws 'Workspace setup destination escapes workspace'.",
    )


def _check_fixture(scope: Scope, setup: Node) -> None:
    p = scope.prefix
    fixture = setup.get("fixture")
    if fixture is None or fixture.kind != OBJECT:
        scope.at_member(
            "setup-fixture-not-object",
            fixture,
            setup,
            ("setup",),
            "fixture",
            sentence(
                f"{p}`setup.fixture` must be an object",
                'A fixture setup needs "fixture": {"kind": "repo", "source": "…"}'
                + ("" if fixture is None else f"; got {describe(fixture)}")
                + ".",
            ),
        )
        return
    tokens = ("setup", "fixture")
    scope.require_enum(
        "setup-fixture-kind-invalid",
        fixture,
        tokens,
        "kind",
        FIXTURE_KINDS,
        f"{p}`setup.fixture.kind` must be one of [{one_of(FIXTURE_KINDS)}]",
        "fixture kind",
    )
    scope.require_string(
        "setup-fixture-source-required",
        fixture,
        tokens,
        "source",
        f"{p}`setup.fixture.source` must be a non-empty string",
        "`source` names where the fixture comes from",
    )
    scope.optional_type(
        "setup-fixture-init-git-type",
        fixture,
        tokens,
        "initGit",
        BOOLEAN,
        f"{p}`setup.fixture.initGit`, if present, must be a boolean",
        "write true or false.",
        OneOf((True, False)).fields(),
    )


# -- files ---------------------------------------------------------------------------------------------


def check_files(scope: Scope, files: Node, has_setup: bool, paths: SuitePaths) -> None:
    p = scope.prefix
    if files.kind != ARRAY:
        written = string_of(files)
        scope.at(
            "files-not-array",
            files,
            ("files",),
            sentence(
                f"{p}`files`, if present, must be an array of strings",
                f'Got {describe(files)}; write paths relative to evals/, e.g. ["files/input"].',
            ),
            None if written is None else Replacement([written]).fields(),
        )
        return
    items = items_of(files)
    if not items:
        return
    strings: list[str] = []
    for f, item in enumerate(items):
        entry = string_of(item)
        if entry is None:
            path = string_of(item.get("path")) if item.kind == OBJECT else None
            scope.at(
                "files-item-type",
                item,
                ("files", f),
                sentence(
                    f"{p}files[{f}] must be a string",
                    f"Got {describe(item)}; each entry is a path relative to the evals/ directory.",
                ),
                None if path is None else Replacement(path).fields(),  # skill-creator's {path, purpose}
            )
            continue
        strings.append(entry)
        _check_file_entry(scope, item, entry, f, paths)
    scope.at(
        "files-legacy",
        files,
        ("files",),
        "`files` is the legacy shorthand for a seeded setup; the spec prefers `setup` for new cases "
        '(equivalent: "setup": {"kind": "seeded", "sources": [{"from": f, "to": f}, …]}).',
        EquivalentSetup({"kind": "seeded", "sources": [{"from": s, "to": s} for s in strings]}).fields(),
    )
    if has_setup:
        scope.at(
            "files-and-setup",
            files,
            ("files",),
            "Both `setup` and `files` are present: both are applied, `setup` first, then `files`. "
            "Move these paths into `setup` to keep one description of the workspace.",
        )


def _check_file_entry(scope: Scope, item: Node, entry: str, f: int, paths: SuitePaths) -> None:
    tokens = ("files", f)
    skill_relative = entry.startswith("evals/")
    if skill_relative and paths.checkable:
        if not paths.exists_in_evals(entry) and paths.exists_in_skill(entry):
            scope.at(
                "files-skill-root-relative",
                item,
                tokens,
                f"{quote(entry)} is relative to the skill root (skill-creator's convention), but "
                f"arc-skill-eval resolves `files` against evals/, i.e. evals/{entry}, which does not exist. "
                f"Write {quote(entry[len('evals/') :])}.",
                Replacement(entry[len("evals/") :]).fields(),
            )
            return
    elif skill_relative:
        scope.at(
            "files-skill-root-relative",
            item,
            tokens,
            f"{quote(entry)} starts with evals/: arc-skill-eval resolves `files` against the evals/ "
            f"directory, so this names evals/{entry}. If it is relative to the skill root, write "
            f"{quote(entry[len('evals/') :])}.",
            Replacement(entry[len("evals/") :]).fields(),
            severity=Severity.HINT,  # unverifiable without a file on disk
        )
    # A files entry is both the source and the destination (preserve-path).
    check_copy_paths(scope, item, tokens, entry, entry, paths)
