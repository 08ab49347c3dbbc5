"""The suite file as a whole (specs/evals-json.md §4's file-level checks, §2 and §13): the root's
shape, the top-level members, another tool's eval file, arc-skill-eval's discovery of the file and
``skill_name`` against SKILL.md."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...js.values import js_number_to_string
from ...parser.tree import ARRAY, OBJECT, STRING, Node
from ...parser.values import items_of, number_of, props_of, string_of
from ..detection import is_other_tool_suite
from ..fix_data import Replacement, WrittenPath
from .paths import discovery_problems, skill_md_name
from .report import Scope, describe, quote, sentence

if TYPE_CHECKING:
    from ..context import AnalysisContext

# Members the loader or the spec defines. `$schema` is for editors (JSON Schema association).
ROOT_KEYS = frozenset({"version", "skill_name", "evals", "$schema"})


def check_top_level(top: Scope, root: Node, ctx: AnalysisContext) -> bool:
    """The file-level findings, in the loader's order; False when the root is no object (then
    nothing else can be checked)."""
    path = ctx.path
    if path is not None:
        _check_discovery(top, root, path, ctx)
    if root.kind != OBJECT:
        _root_not_object(top, root)
        return False
    _check_top_members(top, root)
    _check_other_tool_suite(top, root, ctx.rel_path)
    if path is not None:
        _check_skill_name(top, root, path, ctx)
    return True


def _root_not_object(top: Scope, root: Node) -> None:
    trigger = root.kind == ARRAY and _looks_like_trigger_evals(root)
    top.at(
        "root-not-object",
        root,
        (),
        sentence(
            "Top-level value must be a JSON object.",
            f'Got {describe(root)}; an eval suite is {{"skill_name": …, "evals": [ … ]}}.',
        ),
    )
    if trigger:
        top.at(
            "trigger-eval-format",
            root,
            (),
            "This is a skill-creator trigger-eval set ([{query, should_trigger}]), a different format: "
            "arc-skill-eval reads evals/evals.json as {skill_name, evals: [ … ]}. Store trigger evals "
            "under another file name (e.g. trigger-evals.json).",
        )


def _looks_like_trigger_evals(root: Node) -> bool:
    return any(
        item.kind == OBJECT and item.has("should_trigger") and (item.has("query") or item.has("prompt"))
        for item in items_of(root)
    )


def _check_top_members(top: Scope, root: Node) -> None:
    version = root.get("version")
    if version is not None and version.kind != STRING:
        number = number_of(version)
        top.at(
            "version-type",
            version,
            ("version",),
            sentence(
                "`version`, if present, must be a string.",
                f'Got {describe(version)}; write it as a string (e.g. "1") or remove it.',
            ),
            None if number is None else Replacement(js_number_to_string(number)).fields(),
        )
    top.require_string(
        "skill-name-required",
        root,
        (),
        "skill_name",
        "`skill_name` must be a non-empty string.",
        "Name the skill under test (the `name` in its SKILL.md)",
    )
    for name, member in props_of(root).items():
        if name not in ROOT_KEYS:
            top.at_key(
                "key-ignored",
                member,
                (name,),
                f"`{name}` is not part of the suite format: arc-skill-eval ignores it "
                "(it reads version, skill_name and evals).",
                {"key": name},
            )


def _check_other_tool_suite(top: Scope, root: Node, rel_path: str | None) -> None:
    """``{skill, cases: […]}`` (other eval tools write it): the loader's two file-level errors say
    what is missing, not why; this says what the file looks like and how to leave it to its tool."""
    if not is_other_tool_suite(root):
        return
    array = "cases" if root.has("cases") else "examples"
    count = len(items_of(root.get(array)))
    glob = rel_path or "path/to/evals/evals.json"
    top.emit(
        "other-tool-suite",
        root.start,
        root.start + 1,
        (),
        f"This looks like another tool's eval file ({{skill, {array}: [...]}} with {count} "
        f"{'case' if count == 1 else 'cases'}, no `skill_name` or `evals`), not an arc-skill-eval "
        "suite: arc-skill-eval's discovery reads every evals/evals.json and its loader rejects this "
        "one. If it belongs to another tool, map it off in configuration (.evalfix.toml: "
        f'[files] "{glob}" = "none"); otherwise rename `{array}` to `evals` and add `skill_name`.',
        {"glob": glob, "array": array},
    )


def _check_discovery(top: Scope, root: Node, path: Path, ctx: AnalysisContext) -> None:
    skill_md = path.parent.parent / "SKILL.md"
    if path.parent.name == "evals" and ctx.fs.leaves(skill_md, ctx.repo_root):
        top.emit(
            "path-outside-repository",
            root.start,
            root.start + 1,
            (),
            "The SKILL.md beside evals/ leaves the repository: it is a symbolic link to a path outside the "
            "repository root, so it was not read (nor whether it exists tested): discovery and the "
            "skill name are not checked against it.",
            WrittenPath("../SKILL.md").fields(),
        )
    problems = discovery_problems(path, ctx.repo_root, ctx.fs)
    if problems:
        top.emit(
            "not-discovered",
            root.start,
            root.start + 1,
            (),
            "arc-skill-eval's discovery would not find this suite: "
            + "; ".join(problems)
            + ". It runs only when this file is given explicitly.",
            {"reasons": problems},
        )


def _check_skill_name(top: Scope, root: Node, path: Path, ctx: AnalysisContext) -> None:
    skill_name = root.get("skill_name")
    name = string_of(skill_name)
    if skill_name is None or name is None or name == "":
        return
    declared = skill_md_name(path.parent.parent, ctx.fs, ctx.repo_root)
    if declared is not None and declared != name:
        top.at(
            "skill-name-mismatch",
            skill_name,
            ("skill_name",),
            f"`skill_name` is {quote(name)} but SKILL.md names the skill {quote(declared)}; "
            "they should match (arc-skill-eval does not compare them).",
            Replacement(declared).fields(),
        )
