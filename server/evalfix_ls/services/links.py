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

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..contracts.detection import EVALS, WORKFLOW
from ..parser.tree import ARRAY, OBJECT, STRING, Node, path_at
from .cases import iter_cases
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


def document_links(document: DocumentView, facts: WorkspaceFacts) -> list[Link]:
    return [link for link in _candidates(document, facts) if facts.exists(link.target)]


def definition(document: DocumentView, facts: WorkspaceFacts, offset: int) -> Link | None:
    """Where the path under ``offset`` leads: a linked path, or a file assertion's seeded source."""
    for link in document_links(document, facts):
        if link.start <= offset <= link.end:
            return link
    return _seeded_source_of_assertion_path(document, facts, offset)


def _candidates(document: DocumentView, facts: WorkspaceFacts) -> Iterator[Link]:
    root = document.root
    if root is None or root.kind != OBJECT or document.path is None:
        return
    if document.kind == EVALS:
        yield from _evals_links(document, facts)
    elif document.kind == WORKFLOW:
        yield from _workflow_links(document, facts)


def _evals_links(document: DocumentView, facts: WorkspaceFacts) -> Iterator[Link]:
    evals_dir = document.path.parent
    skill_name = document.root.get("skill_name")
    if skill_name is not None and skill_name.kind == STRING:
        yield Link(
            skill_name.start, skill_name.end, evals_dir.parent / "SKILL.md", tooltip="the skill's SKILL.md"
        )
    for case in iter_cases(EVALS, document.root):
        if case.node.kind != OBJECT:
            continue
        for node in _evals_path_nodes(case.node):
            target = facts.resolve(node.value, evals_dir)
            if target is not None:
                yield Link(node.start, node.end, target, tooltip="relative to evals/")


def _evals_path_nodes(case: Node) -> Iterator[Node]:
    setup = case.get("setup")
    if setup is not None and setup.kind == OBJECT:
        sources = setup.get("sources")
        for item in sources.items if sources is not None and sources.kind == ARRAY else ():
            value = item.get("from") if item.kind == OBJECT else item
            if value is not None and value.kind == STRING and value.value:
                yield value
        fixture = setup.get("fixture")
        source = fixture.get("source") if fixture is not None and fixture.kind == OBJECT else None
        if source is not None and source.kind == STRING and source.value:
            yield source
    files = case.get("files")
    for item in files.items if files is not None and files.kind == ARRAY else ():
        if item.kind == STRING and item.value:
            yield item


def _workflow_links(document: DocumentView, facts: WorkspaceFacts) -> Iterator[Link]:
    root = document.root
    skill = skill_of(document.rel_path)
    skill_node = root.get("skill")
    if (
        skill is not None
        and facts.repo_root is not None
        and skill_node is not None
        and skill_node.kind == STRING
    ):
        target = facts.repo_root / "skills" / skill / "SKILL.md"
        yield Link(skill_node.start, skill_node.end, target, tooltip="the skill's SKILL.md")
    holders = [root] + [case.node for case in iter_cases(WORKFLOW, root) if case.node.kind == OBJECT]
    for holder in holders:
        refs = holder.get("source_refs")
        for item in refs.items if refs is not None and refs.kind == ARRAY else ():
            if item.kind == STRING and item.value.strip():
                link = _source_ref_link(item, facts)
                if link is not None:
                    yield link


def _source_ref_link(item: Node, facts: WorkspaceFacts) -> Link | None:
    ref, _, anchor = item.value.strip().partition("#")
    target = facts.resolve(ref) if ref else None
    if target is None:
        return None
    line = heading_line(facts, target, anchor) if anchor else None
    return Link(item.start, item.end, target, line, "repository-relative source ref")


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
    if node is None or node.kind != STRING or len(steps) < 3 or steps[0].key != "evals":
        return None
    if steps[-1].key not in ("path", "file"):
        return None
    case = steps[1].container.items[steps[1].key] if isinstance(steps[1].key, int) else None
    setup = case.get("setup") if case is not None and case.kind == OBJECT else None
    if setup is None or setup.kind != OBJECT or _string(setup.get("kind")) != "seeded":
        return None
    flatten = _string(setup.get("mountMode")) in ("flatten-contents", "flatten")
    wanted = node.value.strip("/")
    sources = setup.get("sources")
    for item in sources.items if sources is not None and sources.kind == ARRAY else ():
        source = _string(item.get("from") if item.kind == OBJECT else item)
        if not source:
            continue
        to = _string(item.get("to")) if item.kind == OBJECT else None
        dest = (to if to is not None else ("." if flatten else source)).strip("/")
        rest = _below(wanted, "" if dest in ("", ".") else dest)
        if rest is None:
            continue
        target = facts.resolve(source if not rest else f"{source}/{rest}", document.path.parent)
        if target is not None and facts.exists(target):
            return Link(node.start, node.end, target, tooltip="seeded from evals/")
    return None


def _below(path: str, prefix: str) -> str | None:
    if not prefix:
        return path
    if path == prefix:
        return ""
    return path[len(prefix) + 1 :] if path.startswith(prefix + "/") else None


def _string(node: Node | None) -> str | None:
    return node.value if node is not None and node.kind == STRING else None
