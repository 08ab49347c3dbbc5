"""Source-ref checks of the reference (workflow-fixtures.md §6) and the path arithmetic they need.

Existence is decided as Node's ``fs.existsSync(path.join(repoRoot, ref))`` decides it: the joined
path is normalized lexically (``.`` dropped, ``..`` resolved, repeated ``/`` collapsed) but a
trailing ``/`` is kept, so ``SKILL.md/`` names a directory that does not exist.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from ...workspace.view import FileSystemView

# The reference's GENERATED_OR_HISTORICAL_SOURCE_PATTERNS, as prefixes of the raw pre-# text.
GENERATED_OR_HISTORICAL_PREFIXES = (
    ".claude/",
    ".codex/",
    ".agents/skills/",
    "docs/plans/",
    "docs/validation/",
)
_HTTP_URL = re.compile(r"^https?://")  # lowercase only, exactly as the reference tests it

INVALID_SOURCE_REF = "invalid_source_ref"
NOT_SOURCE_AUTHORITY = "source_ref_not_source_authority"
SOURCE_REF_MISSING = "source_ref_missing"
PATH_OUTSIDE_REPOSITORY = "path_outside_repository"
SOURCE_REF_OUTSIDE_REPO = "source_ref_outside_repo"


def ref_path(ref: str) -> str:
    """``ref.split('#')[0]``: the part that is checked."""
    return ref.split("#", 1)[0]


def is_invalid_ref(path: str) -> bool:
    """Empty, a lowercase ``http(s)://`` URL, POSIX-absolute, or containing a backslash."""
    return not path or bool(_HTTP_URL.match(path)) or path.startswith("/") or "\\" in path


def generated_prefix(path: str) -> str | None:
    return next((prefix for prefix in GENERATED_OR_HISTORICAL_PREFIXES if path.startswith(prefix)), None)


def node_join(root: Path | str, relative: str) -> str:
    """Node's ``path.posix.join(root, relative)``: lexical normalization that keeps a trailing
    slash (Python's ``normpath`` drops it)."""
    joined = f"{Path(root).as_posix()}/{relative}"
    normalized = posixpath.normpath(joined)
    if normalized.startswith("//"):  # normpath keeps a leading "//"; Node collapses it
        normalized = "/" + normalized.lstrip("/")
    if joined.endswith("/") and not normalized.endswith("/"):
        normalized += "/"
    return normalized


def ref_exists(root: Path, path: str, fs: FileSystemView) -> bool:
    """``fs.existsSync(path.join(root, path))`` (symbolic links followed; a path with a NUL or any
    other path the OS refuses does not exist) — for a path inside the repository only: one that
    leaves it is never tested (False)."""
    return fs.exists(node_join(root, path), root=root)


def ref_leaves(root: Path | None, path: str, fs: FileSystemView) -> bool:
    """True when ``path.join(root, path)`` resolves outside the repository (``..`` or a link).
    Without a root (an unsaved buffer) only ``..`` can be seen to leave."""
    if root is None:
        return climbs_above(path)
    return fs.leaves(node_join(root, path), root)


def climbs_above(path: str) -> bool:
    """The path, normalized lexically, starts by climbing above where it is joined (``../x``,
    ``a/../..``), even if it comes back in (``../repo/x`` depends on the checkout's name)."""
    normal = lexical_normal(path)
    return normal == ".." or normal.startswith("../")


def names_an_ancestor(root: Path | None, path: str) -> bool:
    """True when ``path.join(root, path)`` is a directory above the root (``..``, ``../..``,
    ``a/../..``, ``../``): it exists whenever the root does, so the reference's existence test
    passes — known without asking the file system anything outside the repository."""
    if root is None:
        return all(part == ".." for part in lexical_normal(path).split("/"))
    base = Path(root).absolute().as_posix()
    joined = node_join(base, path).rstrip("/") or "/"
    base = posixpath.normpath(base)
    return joined != base and (joined == "/" or base.startswith(joined + "/"))


def outside_code(root: Path | None, path: str, authority_is_source: bool, fs: FileSystemView) -> str | None:
    """What evalfix-ls says of a ref that leaves the repository (workflow-fixtures.md §2.1b, §6,
    §13 and specs/README.md's severity policy), or None for a ref that stays inside.

    * ``path_outside_repository`` (error): under ``source``, a target the reference tests for
      existence and evalfix-ls never does (``../x``, a link leading out) — rejected by the
      contract, and by the reference whenever it is missing;
    * ``source_ref_outside_repo`` (warning): what the reference accepts and the contract does not —
      any such ref under ``historical``/``advisory`` or an invalid authority (the reference tests
      nothing there), a directory above the root under ``source`` (``..``: it exists), and a
      path that climbs above the root before coming back in."""
    leaves = ref_leaves(root, path, fs)
    if leaves and authority_is_source and not names_an_ancestor(root, path):
        return PATH_OUTSIDE_REPOSITORY
    if leaves or climbs_above(path):
        return SOURCE_REF_OUTSIDE_REPO
    return None


def ref_errors(
    ref: str, authority_is_source: bool, root: Path | None, fs: FileSystemView
) -> list[tuple[str, str]]:
    """The reference's step 7 for one ref: ``(reason_code, message)`` pairs in its order.

    Existence is only decided when the repository root is known (an unsaved buffer has none).
    A ref that leaves the repository is never tested for existence, so a crafted ref cannot probe
    the machine's files: under ``source`` it is an error (``path_outside_repository``,
    workflow-fixtures.md §2.1b) unless it names a directory above the root, which exists; the
    reference tests nothing under another authority, so there it is no error (``outside_code``)."""
    path = ref_path(ref)
    if is_invalid_ref(path):
        return [(INVALID_SOURCE_REF, f"source_ref must be repo-relative POSIX path: {ref}")]
    errors = []
    if authority_is_source and generated_prefix(path) is not None:
        errors.append((NOT_SOURCE_AUTHORITY, f"source_ref requires historical/advisory authority: {ref}"))
    if ref_leaves(root, path, fs):
        if outside_code(root, path, authority_is_source, fs) == PATH_OUTSIDE_REPOSITORY:
            errors.append((PATH_OUTSIDE_REPOSITORY, _outside_message(ref)))
    elif authority_is_source and root is not None and not ref_exists(root, path, fs):
        errors.append((SOURCE_REF_MISSING, f"source_ref path does not exist: {ref}"))
    return errors


def _outside_message(ref: str) -> str:
    return (
        f"source_ref leaves the repository: {ref} — it resolves (through '..' or a symbolic link) "
        "outside the repository root; the contract wants repository-relative evidence, so cite a path "
        "inside the repository (evalfix-ls never tests paths outside it)"
    )


def lexical_normal(path: str) -> str:
    """``.``/``..`` resolved and ``//`` collapsed, relative (``..`` segments that leave the root
    are kept); a trailing slash is dropped."""
    return posixpath.normpath(path) if path else path
