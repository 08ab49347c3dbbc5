"""Files and folders moved: the edits that keep every fixture pointing at the same files.

``plan_moves`` is the whole of ``workspace/willRenameFiles`` without the protocol: given the moves
(old and new absolute paths; a folder moves everything below it) and the fixture files of one
repository (their current text), it returns the string replacements to make, per file, in
code-point offsets of that text. Each field is resolved as its contract resolves it:

* workflow fixtures: ``source_refs`` (top level and per case) relative to the repository root; a
  ``#heading`` anchor is kept as it is;
* eval suites: ``setup.sources[]`` (a string or ``{"from": …}``), ``setup.fixture.source`` and the
  legacy ``files[]`` relative to the suite's ``evals/`` folder — and when a copy lands where its
  source is named (``files``, a preserve-path source without ``to``), the assertion paths of the
  case that name files below that destination (``path``, ``target.file``) follow it.

A moved eval suite's own relative paths are recomputed against its new folder. A path is rewritten
only when it would otherwise resolve somewhere else afterwards: nothing else is touched, and paths
that leave the repository (never read by evalfix-ls) are left alone.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..config.model import Config
from ..contracts.detection import EVALS, UNKNOWN, WORKFLOW, Walk, detect_kind, walking_repository
from ..contracts.workflow.refs import is_invalid_ref
from ..parser import parse
from ..parser.tree import OBJECT, Node
from ..parser.values import items_of, member_value, string_of
from ..workspace.confine import is_inside
from ..workspace.view import relative_posix
from .cases import PathString, assertion_path_nodes, case_path_strings, flattens, iter_cases, path_strings
from .fixes.edits import json_text


@dataclass(frozen=True, slots=True)
class Move:
    old: Path  # absolute, normalised
    new: Path

    @classmethod
    def of(cls, old: Path, new: Path) -> Move:
        return cls(Path(os.path.normpath(old)), Path(os.path.normpath(new)))


@dataclass(frozen=True, slots=True)
class FixtureFile:
    """One fixture file as it is now: where it lies, its contract, its text and parsed root."""

    path: Path  # absolute, before the moves
    kind: str  # EVALS or WORKFLOW (anything else has no paths to follow)
    text: str
    root: Node | None


@dataclass(frozen=True, slots=True)
class Replacement:
    start: int  # a string value, quotes included (code points)
    end: int
    new_text: str  # the new JSON string


class Moves:
    """Where a path lies after the moves (the innermost moved folder or file holding it wins).
    Compared as strings: this runs for every file of a repository."""

    def __init__(self, moves: Iterable[Move]) -> None:
        ordered = sorted(moves, key=lambda move: -len(move.old.parts))
        self._moves = [(os.fspath(move.old), os.fspath(move.new)) for move in ordered]
        self._names = {move.old.name for move in ordered}

    def __bool__(self) -> bool:
        return bool(self._moves)

    def after(self, path: Path) -> Path:
        text = os.fspath(path)
        for old, new in self._moves:
            if text == old:
                return Path(new)
            if text.startswith(old) and text[len(old) : len(old) + 1] == os.sep:
                return Path(new + text[len(old) :])
        return path

    def moves_file(self, path: Path) -> bool:
        return self.after(path) != path

    def may_be_named_in(self, text: str) -> bool:
        """False only when ``text`` cannot name a moved path: a path reaches into a moved folder
        or file only by naming it (``..`` climbs out, never in), unless a ``\\u`` escape spells
        a letter of it."""
        return "\\u" in text or any(name in text for name in self._names)


def fixture_files(
    paths: Iterable[Path],
    repo_root: Path,
    moves: Moves,
    text_of: Callable[[Path], str | None],
    config_for: Callable[[Path], Config],
    is_open: Callable[[Path], bool],
) -> Iterator[FixtureFile]:
    """The fixture files among ``paths`` (a walk of the repository plus the open and configured
    files) that may hold a path to rewrite, with their contract. ``text_of`` gives the open
    buffer's text, else the file's on disk (None: unreadable); only fixtures that name a moved
    path, or that move themselves, are parsed. Each file gets the contract the analysis gives it
    (``config_for(path)``: its ``files`` mapping, else the rules in the repository's walk regime),
    so a file the checker leaves alone is never rewritten."""
    walks = _Walks(repo_root)
    for path in dict.fromkeys(Path(os.path.normpath(p)) for p in paths):
        text = text_of(path)
        if text is None or not (moves.moves_file(path) or moves.may_be_named_in(text)):
            continue
        tree = parse(text)
        config = config_for(path)
        kind = config.kind_for(path) or detect_kind(
            relative_posix(path, repo_root),
            tree.root,
            explicit=is_open(path),
            path=path,
            walking=walks.of(config.walk),
        )
        if kind != UNKNOWN:
            yield FixtureFile(path, kind, text, tree.root)


class _Walks:
    """Whether the repository walks, under each ``workflow_walk`` setting met (None: the
    normalizer's presence decides), looked up on disk once per plan."""

    def __init__(self, repo_root: Path) -> None:
        self._repo_root = repo_root
        self._found: dict[Walk | None, Walk] = {}

    def of(self, forced: Walk | None) -> Walk:
        walk = self._found.get(forced)
        if walk is None:
            walk = self._found[forced] = walking_repository(self._repo_root, None, forced)
        return walk


def plan_moves(
    moves: Moves, repo_root: Path, fixtures: Iterable[FixtureFile]
) -> dict[Path, list[Replacement]]:
    """The replacements per fixture file (files with none are left out), in text order."""
    repo_root = Path(os.path.normpath(repo_root))
    planned: dict[Path, list[Replacement]] = {}
    for fixture in fixtures:
        if fixture.root is None or fixture.root.kind != OBJECT:
            continue
        if fixture.kind == WORKFLOW:
            found = list(_workflow_replacements(fixture.root, moves, repo_root))
        elif fixture.kind == EVALS:
            found = list(_suite_replacements(fixture, moves, repo_root))
        else:
            continue
        if found:
            planned[fixture.path] = sorted(found, key=lambda r: r.start)
    return planned


# -- workflow fixtures: repository-relative source refs ----------------------------------------------


def _workflow_replacements(root: Node, moves: Moves, repo_root: Path) -> Iterator[Replacement]:
    for ref in path_strings(WORKFLOW, root):
        path, hash_sign, anchor = ref.value.partition("#")
        if is_invalid_ref(path):  # URLs, absolute paths: not files of the repository
            continue
        moved = _moved_relative(path, repo_root, repo_root, moves)
        if moved is not None:
            yield _replace(ref.node, moved + hash_sign + anchor)


# -- eval suites: paths relative to evals/ ----------------------------------------------------------


def _suite_replacements(fixture: FixtureFile, moves: Moves, repo_root: Path) -> Iterator[Replacement]:
    evals_dir = Path(os.path.normpath(fixture.path.parent))
    new_evals_dir = moves.after(Path(os.path.normpath(fixture.path))).parent
    for case in iter_cases(EVALS, fixture.root):
        if case.node.kind != OBJECT:
            continue
        destinations: list[tuple[str, str]] = []  # copy destinations that follow their source
        for source in case_path_strings(EVALS, case.node):
            if not source.value:
                continue
            moved = _moved_relative(source.value, evals_dir, repo_root, moves, new_evals_dir)
            if moved is None:
                continue
            yield _replace(source.node, moved)
            if _lands_as_named(case.node, source):
                destinations.append((posixpath.normpath(source.value), posixpath.normpath(moved)))
        if destinations:
            yield from _assertion_replacements(case.node, destinations)


def _lands_as_named(case: Node, source: PathString) -> bool:
    """Whether the copy of ``source`` lands in the workspace under the name the source has (so
    assertion paths name it too): a legacy ``files`` entry is both the source and the destination;
    a seeded, preserve-path ``sources`` entry without its own ``to`` too."""
    if source.field == "files":
        return True
    if source.field != "sources" or (source.entry.kind == OBJECT and source.entry.has("to")):
        return False
    setup = member_value(case, "setup")
    return string_of(member_value(setup, "kind")) == "seeded" and not flattens(setup)


def _assertion_replacements(case: Node, destinations: list[tuple[str, str]]) -> Iterator[Replacement]:
    for item in items_of(case.get("assertions")):
        if item.kind != OBJECT:
            continue
        for node in assertion_path_nodes(item):
            path = string_of(node)
            if not path:
                continue
            moved = _moved_destination(path, destinations)
            if moved is not None:
                yield _replace(node, moved)


def _moved_destination(path: str, destinations: list[tuple[str, str]]) -> str | None:
    normal = posixpath.normpath(path.strip("/"))
    for old, new in destinations:
        if normal == old:
            return new
        if normal.startswith(old + "/"):
            return new + normal[len(old) :]
    return None


# -- path arithmetic --------------------------------------------------------------------------------


def _moved_relative(
    path: str, base: Path, repo_root: Path, moves: Moves, new_base: Path | None = None
) -> str | None:
    """``path`` (relative to ``base``) rewritten relative to ``new_base`` (default: ``base``) so
    that it names the same file after the moves; None when it needs no change or lies outside the
    repository before or after."""
    new_base = new_base or base
    target = Path(os.path.normpath(base / path))
    new_target = moves.after(target)
    outside = not is_inside(os.fspath(new_target), os.fspath(repo_root))
    if outside or Path(os.path.normpath(new_base / path)) == new_target:
        return None
    rewritten = Path(os.path.relpath(new_target, new_base)).as_posix()
    return rewritten + "/" if path.endswith("/") and not rewritten.endswith("/") else rewritten


def _replace(node: Node, value: str) -> Replacement:
    return Replacement(node.start, node.end, json_text(value))  # a lone surrogate stays an escape
