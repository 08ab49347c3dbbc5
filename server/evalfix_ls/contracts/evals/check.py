"""The evals.json contract (specs/evals-json.md): arc-skill-eval's loader, rule by rule, plus the
spec-vs-loader warnings and the hints beyond both.

``check(ctx)`` reproduces ``readEvalsJson``'s validation (§4): the same checks in the same order with
the same short-circuits, one finding per loader issue, then duplicate ids (§12) for the cases with no
loader issue. Rules live in one module per part of the format:

* ``top_level`` — the file as a whole: root shape, top-level members, discovery, ``skill_name``;
* ``setup`` — ``setup`` and legacy ``files`` (§7, §8);
* ``assertions`` — judged strings, script and intent assertions, regexes (§9, §16);
* ``metadata`` — ``metadata``, ``sandbox``, ``sandboxMocks`` (§10, §11);
* ``paths`` — path semantics and arc-skill-eval's discovery (§2, §13);
* ``report`` — the code table, the enums (from ``schemas/evals.schema.json``) and scopes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...findings import Finding, Related
from ...js.values import js_id_string, js_number_to_string, js_trim
from ...parser.tree import ARRAY, NUMBER, OBJECT, STRING, Node
from ...parser.values import items_of, number_of, props_of, string_of
from ..case_cache import CaseFacts, CaseKeys
from ..fix_data import Replacement
from .assertions import check_assertions
from .metadata import check_metadata, check_sandbox
from .paths import SuitePaths
from .report import Scope, describe, quote, sentence
from .setup import check_files, check_setup
from .top_level import check_top_level
from .verdict import apply_case_verdict

if TYPE_CHECKING:
    from ..context import AnalysisContext

# Members the loader or the spec defines for a case.
CASE_KEYS = frozenset(
    {
        "id",
        "description",
        "prompt",
        "expected_output",
        "setup",
        "files",
        "assertions",
        "metadata",
        "sandbox",
        "sandboxMocks",
    }
)
EXPECTATIONS = "expectations"

_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NOT_FOLDER_SAFE = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_SAFE_INTEGER = 2**53 - 1


def check(ctx: AnalysisContext) -> list[Finding]:
    findings: list[Finding] = []
    root = ctx.tree.root
    if root is None:
        return findings
    top = Scope(findings, None, ())
    if not check_top_level(top, root, ctx):
        return findings
    evals = root.get("evals")
    if evals is None or evals.kind != ARRAY:
        top.at_member(
            "evals-not-array",
            evals,
            root,
            (),
            "evals",
            sentence(
                "`evals` must be an array.",
                'The suite has no `evals` member; add "evals": [ … cases … ].'
                if evals is None
                else f'Got {describe(evals)}; write "evals": [ … cases … ].',
            ),
        )
        return findings
    if not evals.items:
        top.at(
            "evals-empty",
            evals,
            ("evals",),
            "`evals` is empty: the suite loads, but nothing will run.",
        )
        return findings
    _check_cases(findings, evals, SuitePaths(ctx.path, ctx.fs, ctx.repo_root), ctx)
    return findings


# -- cases ---------------------------------------------------------------------------------------------


def _check_cases(findings: list[Finding], evals: Node, paths: SuitePaths, ctx: AnalysisContext) -> None:
    cache = ctx.case_cache
    if cache is None:
        _check_each_case(findings, evals, paths, ctx, None)
        return
    with cache.keys() as keys:
        _check_each_case(findings, evals, paths, ctx, keys)


def _check_each_case(
    findings: list[Finding], evals: Node, paths: SuitePaths, ctx: AnalysisContext, keys: CaseKeys | None
) -> None:
    """Every case in order, then the suite-wide id rules on it. A case the cache answers costs a
    key, a lookup and its entry in the id tables: no scope, no node, no call per rule (a keystroke
    runs this for every case of the suite)."""
    cache = ctx.case_cache
    if cache is None:
        keys = None
    # What a case's findings depend on besides its text and index (the path as a ``str``: its
    # hash is kept, a ``Path``'s is computed in Python on every lookup of a key holding it).
    context = (ctx.fs.generation, str(ctx.path))
    text = ctx.text
    ids = _SuiteIds(findings)
    for i, case in enumerate(items_of(evals)):
        if case.kind != OBJECT:
            Scope(findings, i, ("evals", i)).at(
                "case-not-object",
                case,
                (),
                sentence(
                    f"evals[{i}]: case must be a JSON object",
                    f'Got {describe(case)}; write {{"id": …, "prompt": …}}.',
                ),
            )
            continue
        key = None
        if keys is not None and cache is not None:
            key = keys.key(text, case, "evals", i, *context)
            hit = cache.get(key, case.start)
            if hit is not None:
                placed, facts = hit
                ctx.place(findings, placed)
                place = facts.id
                if place is not None and facts.id_string is not None and facts.folder is not None:
                    start, end = case.start + place[2], case.start + place[3]
                    ids.add(i, facts.loader_issues, facts.id_string, facts.folder, start, end)
                continue
        scope = Scope(findings, i, ("evals", i))
        before = len(findings)
        case_id = _case_id(_check_case(scope, case, paths))
        if key is not None and cache is not None:
            placed = cache.put(key, findings[before:], case.start, _facts(scope, case, case_id))
            del findings[before:]  # kept as the case's block, as a cache hit is
            ctx.place(findings, placed)
        if case_id is not None:
            node = case_id.node
            ids.add(i, scope.loader_issues, case_id.key, case_id.folder, node.start, node.end)


class _SuiteIds:
    """The suite-wide id rules, case after case: duplicate ids (§12: the loader's set holds the
    cases without loader issues; the others' repeats are latent) and artifact folders that
    collide. An id is held as its range: a finding about it needs no more."""

    __slots__ = ("findings", "registered", "seen", "folders")

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self.registered: dict[
            str, tuple[int, int, int]
        ] = {}  # String(id) → first clean case's (index, range)
        self.seen: dict[str, tuple[int, int, int]] = {}  # String(id) → first case with a string or number id
        # artifact folder (lowercase) → (String(id), index, range) of the first id using it
        self.folders: dict[str, tuple[str, int, int, int]] = {}

    def add(self, index: int, loader_issues: int, key: str, folder: str, start: int, end: int) -> None:
        reported = False
        if loader_issues == 0:
            first = self.registered.get(key)
            if first is None:
                self.registered[key] = (index, start, end)
            else:
                reported = True
                Scope(self.findings, index, ("evals", index)).emit(
                    "duplicate-id",
                    start,
                    end,
                    ("id",),
                    sentence(
                        f"evals[{index}]: duplicate id {key}",
                        f"evals[{first[0]}] already has this id; ids are compared as String(id), so "
                        '1 and "1" collide. Give each case its own id.',
                    ),
                    {"id": key, "first": first[0]},
                    (Related("first use of this id", first[1], first[2]),),
                )
        earlier = self.seen.get(key)
        if earlier is None:
            self.seen[key] = (index, start, end)
        elif not reported:
            Scope(self.findings, index, ("evals", index)).emit(
                "duplicate-id-latent",
                start,
                end,
                ("id",),
                f"evals[{earlier[0]}] has the same id ({key}). arc-skill-eval does not report it yet only "
                "because one of these cases has other loader issues; once they are fixed it fails as "
                "'duplicate id'.",
                {"id": key, "first": earlier[0]},
                (Related("first use of this id", earlier[1], earlier[2]),),
            )
        self._folder(index, key, folder, start, end)

    def _folder(self, index: int, key: str, folder: str, start: int, end: int) -> None:
        slot = folder.lower()  # case-insensitive file systems (macOS, Windows) merge letter case
        first = self.folders.get(slot)
        if first is None:
            self.folders[slot] = (key, index, start, end)
            return
        first_key, first_index, first_start, first_end = first
        if first_key == key:
            return  # the same id: duplicate-id / duplicate-id-latent speak for it
        Scope(self.findings, index, ("evals", index)).emit(
            "id-artifact-collision",
            start,
            end,
            ("id",),
            f"The ids {quote(first_key)} (evals[{first_index}]) and {quote(key)} both write artifacts to "
            f"'{folder}/'"
            + (" on case-insensitive file systems" if folder != _artifact_folder(first_key) else "")
            + ": one run overwrites the other.",
            {"folder": folder, "first": first_index},
            (Related("the other id using this folder", first_start, first_end),),
        )


@dataclass(frozen=True, slots=True)
class _CaseId:
    """A case's id as the suite-wide rules compare it: ``String(id)`` and its artifact folder."""

    node: Node
    key: str
    folder: str


def _case_id(id_node: Node | None) -> _CaseId | None:
    key = js_id_string(id_node)
    if id_node is None or key is None:
        return None
    return _CaseId(id_node, key, _artifact_folder(key))


def _facts(scope: Scope, case: Node, case_id: _CaseId | None) -> CaseFacts:
    """What the cache keeps of a checked case besides its findings (``CaseFacts``)."""
    if case_id is None:
        return CaseFacts(scope.loader_issues, None)
    node = case_id.node
    place = (node.kind, node.value, node.start - case.start, node.end - case.start)
    return CaseFacts(scope.loader_issues, place, case_id.key, case_id.folder)


def _check_case(scope: Scope, case: Node, paths: SuitePaths) -> Node | None:
    """Check one case object; return its id node when the id is a string or number."""
    first = len(scope.findings)
    valid_id = _check_case_members(scope, case, paths)
    apply_case_verdict(scope, first)
    return valid_id


def _check_case_members(scope: Scope, case: Node, paths: SuitePaths) -> Node | None:
    p = scope.prefix
    id_node = case.get("id")
    valid_id = None
    if id_node is None or (id_node.kind != STRING and id_node.kind != NUMBER):
        scope.at_member(
            "id-required",
            id_node,
            case,
            (),
            "id",
            sentence(
                f"{p}`id` must be a string or number",
                'Give the case an id such as "default-world"'
                + ("" if id_node is None else f"; got {describe(id_node)}")
                + ".",
            ),
        )
    else:
        valid_id = id_node
        _check_id_style(scope, id_node)
    scope.optional_type(
        "description-type", case, (), "description", STRING, f"{p}`description`, if present, must be a string"
    )
    prompt = scope.require_string(
        "prompt-required",
        case,
        (),
        "prompt",
        f"{p}`prompt` must be a non-empty string",
        "The prompt is the user message the agent receives",
    )
    prompt_text = string_of(prompt)
    if prompt is not None and prompt_text is not None and not js_trim(prompt_text):
        scope.at(
            "prompt-blank",
            prompt,
            ("prompt",),
            "The prompt is only whitespace: the loader accepts it, but the agent receives an empty message.",
        )
    scope.optional_type(
        "expected-output-type",
        case,
        (),
        "expected_output",
        STRING,
        f"{p}`expected_output`, if present, must be a string",
        "it is a note for readers (the grader does not use it).",
    )
    setup = case.get("setup")
    if setup is not None:
        check_setup(scope, setup, paths)
    files = case.get("files")
    if files is not None:
        check_files(scope, files, setup is not None, paths)
    assertions = case.get("assertions")
    if assertions is not None:
        check_assertions(scope, assertions)
    metadata = case.get("metadata")
    if metadata is not None:
        check_metadata(scope, metadata)
    if case.has("sandbox") or case.has("sandboxMocks"):
        check_sandbox(scope, case)
    for name, member in props_of(case).items():
        if name in CASE_KEYS:
            continue
        if name == EXPECTATIONS:
            if member.value is not None:  # recovery found no value: nothing to turn into assertions
                _expectations(scope, member.value, assertions is not None)
        else:
            scope.at_key(
                "key-ignored",
                member,
                (name,),
                f"`{name}` is not a case field of the spec or arc-skill-eval: the loader drops it.",
                {"key": name},
            )
    return valid_id


def _expectations(scope: Scope, value: Node, has_assertions: bool) -> None:
    strings = [text for item in items_of(value) if (text := string_of(item)) is not None]
    scope.at(
        "expectations-not-graded",
        value,
        (EXPECTATIONS,),
        "arc-skill-eval never reads `expectations` (skill-creator's name): "
        + ("these claims are not graded" if has_assertions else "this case runs with no assertions")
        + ". Turn them into string `assertions`.",
        {"assertions": strings},
    )


def _check_id_style(scope: Scope, id_node: Node) -> None:
    value = string_of(id_node)
    if value is not None:
        if _KEBAB.fullmatch(value):
            return
        reason = "is empty" if value == "" else "is not lowercase kebab-case"
        slug = "-".join(re.findall(r"[a-z0-9]+", value.lower()))
        scope.at(
            "id-style",
            id_node,
            ("id",),
            f"The id {quote(value)} {reason}: readable kebab-case slugs (e.g. 'default-world') make the "
            "artifact folders eval-<id>/ self-documenting.",
            Replacement(slug).fields() if slug else None,
        )
        return
    number = number_of(id_node)
    if number is None:
        return
    if math.isfinite(number) and number.is_integer() and 0 <= number <= _MAX_SAFE_INTEGER:
        if math.copysign(1.0, number) > 0:  # -0 prints as 0 but is not what the author wrote
            return
    scope.at(
        "id-style",
        id_node,
        ("id",),
        f"The numeric id {js_number_to_string(number)} is not a non-negative integer up to 2^53-1 "
        "(negative, fractional, -0, imprecise or Infinity); use a whole number or a kebab-case string.",
    )


def _artifact_folder(key: str) -> str:
    # The CLI replaces every UTF-16 code unit outside [A-Za-z0-9_.-] by "-" (an emoji gives "--").
    return "eval-" + _NOT_FOLDER_SAFE.sub(lambda m: "--" if ord(m.group()) > 0xFFFF else "-", key)
