"""Document links and go-to-definition for every path a fixture names.

* evals.json: ``setup.sources[]`` (a string or ``{"from": …}``), ``files[]`` and
  ``setup.fixture.source`` relative to the suite's ``evals/`` folder; ``skill_name`` → the skill's
  ``SKILL.md``; a file assertion's ``path`` → the seeded source it comes from, where the setup says;
* workflow fixtures: ``source_refs`` (top level and per case) relative to the repository, a
  ``#heading`` anchor resolved to the heading's line (``markdown_anchors``, as completion inserts
  it); ``skill`` → the skill's ``SKILL.md``.

Only targets that exist inside the repository are linked: a missing one already has a diagnostic,
and nothing outside the repository is ever touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..contracts.detection import EVALS, WORKFLOW
from ..parser.tree import OBJECT, STRING, Node, path_at
from ..parser.values import member_value, string_of
from .case_memo import CaseMemo
from .cases import PathString, case_origins, case_path_strings, flattens, is_assertion_path, source_refs
from .document import DocumentView
from .markdown_anchors import file_headings, find_heading
from .workspace_facts import WorkspaceFacts, skill_of


@dataclass(frozen=True, slots=True)
class Link:
    start: int  # the string value's range (quotes included)
    end: int
    target: Path
    line: int | None = None  # 0-based line of a resolved #anchor
    tooltip: str = ""


def document_links(
    document: DocumentView, facts: WorkspaceFacts, memo: CaseMemo[list[Link]] | None = None
) -> list[Link]:
    """``memo`` (kept per document by the caller) gives back the links of each case the previous
    request saw, moved, while the file system's facts are those it saw."""
    root, path = document.root, document.path
    if root is None or root.kind != OBJECT or path is None or document.kind not in (EVALS, WORKFLOW):
        return []
    kind = document.kind
    if kind == EVALS:
        top = _skill_link(root, path.parent)
        base: Path | None = path.parent
    else:
        top = [*_workflow_top_links(root, document.rel_path, facts), *_ref_links(source_refs(root), facts)]
        base = None
    out = [link for link in top if facts.exists(link.target)]
    context = (kind, base, facts.repo_root, facts.fs, facts.fs.generation)
    with (memo or CaseMemo()).round(context) as cases:
        for _index, origin, delta in case_origins(kind, root):
            found = cases.result(origin, lambda node: _case_links(kind, node, base, facts))
            out += found if not delta else [_moved(link, delta) for link in found]
    return out


def _moved(link: Link, delta: int) -> Link:
    return Link(link.start + delta, link.end + delta, link.target, link.line, link.tooltip)


def _case_links(kind: str, case: Node, evals_dir: Path | None, facts: WorkspaceFacts) -> list[Link]:
    """The links of one case (an object) to what exists."""
    if case.kind != OBJECT:
        return []
    strings = case_path_strings(kind, case)
    found = (
        _evals_path_links(strings, evals_dir, facts) if evals_dir is not None else _ref_links(strings, facts)
    )
    return [link for link in found if facts.exists(link.target)]


def definition(document: DocumentView, facts: WorkspaceFacts, offset: int) -> Link | None:
    """Where the path under ``offset`` leads: a linked path, or a file assertion's seeded source."""
    for link in document_links(document, facts):
        if link.start <= offset <= link.end:
            return link
    return _seeded_source_of_assertion_path(document, facts, offset)


def _skill_link(root: Node, evals_dir: Path) -> list[Link]:
    skill_name = root.get("skill_name")
    if skill_name is None or skill_name.kind != STRING:
        return []
    return [
        Link(skill_name.start, skill_name.end, evals_dir.parent / "SKILL.md", tooltip="the skill's SKILL.md")
    ]


def _evals_path_links(
    sources: Iterable[PathString], evals_dir: Path, facts: WorkspaceFacts
) -> Iterator[Link]:
    for source in sources:
        target = facts.resolve(source.value, evals_dir) if source.value else None
        if target is not None:
            yield Link(source.node.start, source.node.end, target, tooltip="relative to evals/")


def _workflow_top_links(root: Node, rel_path: str | None, facts: WorkspaceFacts) -> Iterator[Link]:
    skill = skill_of(rel_path)
    skill_node = root.get("skill")
    if (
        skill is not None
        and facts.repo_root is not None
        and skill_node is not None
        and skill_node.kind == STRING
    ):
        target = facts.repo_root / "skills" / skill / "SKILL.md"
        yield Link(skill_node.start, skill_node.end, target, tooltip="the skill's SKILL.md")


def _ref_links(refs: Iterable[PathString], facts: WorkspaceFacts) -> Iterator[Link]:
    for ref in refs:
        link = _source_ref_link(ref, facts) if ref.value.strip() else None
        if link is not None:
            yield link


def _source_ref_link(ref: PathString, facts: WorkspaceFacts) -> Link | None:
    path, _, anchor = ref.value.strip().partition("#")
    target = facts.resolve(path) if path else None
    if target is None:
        return None
    line = heading_line(facts, target, anchor) if anchor else None
    return Link(ref.node.start, ref.node.end, target, line, "repository-relative source ref")


def heading_line(facts: WorkspaceFacts, target: Path, anchor: str) -> int | None:
    """The 0-based line of the Markdown heading ``anchor`` names (None if none)."""
    if not facts.exists(target):
        return None
    heading = find_heading(file_headings(facts, target), anchor)
    return heading.line if heading is not None else None


def _seeded_source_of_assertion_path(
    document: DocumentView, facts: WorkspaceFacts, offset: int
) -> Link | None:
    """A ``file-exists`` / ``json-valid`` / ``target.file`` path → the file in ``evals/`` that the
    case's seeded setup copies there (preserve-path: ``to`` defaults to ``from``; flatten-contents:
    the source folder's contents land in ``to``, default the workspace root)."""
    if document.kind != EVALS or document.path is None:
        return None
    steps, node, _member = path_at(document.root, offset)
    wanted = string_of(node)
    if node is None or wanted is None or not is_assertion_path(tuple(step.key for step in steps)):
        return None
    case = steps[2].container  # the case the path lies in (steps[1] went into it)
    target = _seeded_source(case, wanted.strip("/"), document.path.parent, facts)
    return Link(node.start, node.end, target, tooltip="seeded from evals/") if target is not None else None


def _seeded_source(case: Node, wanted: str, evals_dir: Path, facts: WorkspaceFacts) -> Path | None:
    """The existing file in ``evals_dir`` that the case's seeded setup copies to ``wanted``."""
    setup = member_value(case, "setup")
    if string_of(member_value(setup, "kind")) != "seeded":
        return None
    flatten = flattens(setup)
    for source in case_path_strings(EVALS, case):
        if source.field != "sources" or not source.value:
            continue
        to = string_of(member_value(source.entry, "to"))
        dest = (to if to is not None else ("." if flatten else source.value)).strip("/")
        rest = _below(wanted, "" if dest in ("", ".") else dest)
        if rest is None:
            continue
        target = facts.resolve(source.value if not rest else f"{source.value}/{rest}", evals_dir)
        if target is not None and facts.exists(target):
            return target
    return None


def _below(path: str, prefix: str) -> str | None:
    if not prefix:
        return path
    if path == prefix:
        return ""
    return path[len(prefix) + 1 :] if path.startswith(prefix + "/") else None
