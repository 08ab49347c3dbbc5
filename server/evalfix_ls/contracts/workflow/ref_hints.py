"""Warnings and hints about source refs beyond the reference's checks (workflow-fixtures.md §14):
refs leaving the repository that the reference accepts, URL-like and Windows-drive refs it reads as
relative paths, generated or historical locations spelled so that its prefix test misses them, and
historical/advisory cases with no current source anchor. Never errors."""

from __future__ import annotations

import re
from pathlib import Path

from ...parser.values import string_of
from ...workspace.view import FileSystemView
from .hint_collector import Hints
from .normalize import NormalizedCase
from .refs import (
    GENERATED_OR_HISTORICAL_PREFIXES,
    SOURCE_REF_OUTSIDE_REPO,
    generated_prefix,
    is_invalid_ref,
    lexical_normal,
    names_an_ancestor,
    outside_code,
    ref_exists,
    ref_path,
)
from .values import Located

_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_LOWER_HTTP = re.compile(r"^https?://")
_URI_PREFIX = re.compile(r"^(?:mailto|data|urn):", re.IGNORECASE)
_DRIVE_LETTER = re.compile(r"^[A-Za-z]:(?:/|$)")
_BARE_GENERATED_DIRS = frozenset(prefix.rstrip("/") for prefix in GENERATED_OR_HISTORICAL_PREFIXES)


def ref_hints(
    case: NormalizedCase, ref: Located, hints: Hints, root: Path | None, fs: FileSystemView
) -> None:
    path = ref_path(ref.value)
    if is_invalid_ref(path):
        return  # already an invalid_source_ref error
    case_index = None if ref.inherited else case.index
    if (_URL_SCHEME.match(path) and not _LOWER_HTTP.match(path)) or _URI_PREFIX.match(path):
        hints.add(
            "source_ref_url_like",
            f"'{ref.value}' looks like a URL; the reference only rejects lowercase http:// and https://, "
            "and treats this as a relative path. External facts belong in local docs or extensions",
            ref.anchor,
            case_index,
        )
    if outside_code(root, path, case.authority.is_source, fs) == SOURCE_REF_OUTSIDE_REPO:
        hints.add(
            SOURCE_REF_OUTSIDE_REPO, _outside_message(case, ref.value, path, root), ref.anchor, case_index
        )
    if _DRIVE_LETTER.match(path):
        hints.add(
            "source_ref_windows_path",
            f"'{ref.value}' looks like a Windows drive path; the reference treats it as a relative path",
            ref.anchor,
            case_index,
        )
    normal = lexical_normal(path)
    if case.authority.is_source and generated_prefix(path) is None:
        hidden = next(
            (
                candidate
                for candidate in (normal, normal.lower())
                if generated_prefix(candidate) is not None or candidate in _BARE_GENERATED_DIRS
            ),
            None,
        )
        if hidden is not None:
            hints.add(
                "source_ref_mirror_unnormalized",
                f"'{ref.value}' points into a generated or historical location ({hidden}) that the "
                "reference's prefix test does not catch; use historical/advisory authority or a source path",
                ref.anchor,
                case_index,
            )


def _outside_message(case: NormalizedCase, ref: str, path: str, root: Path | None) -> str:
    """Why the reference accepts a ref that leaves the repository, which the contract does not."""
    if not case.authority.is_source:
        why = f"the reference tests no path under source_ref_authority {case.authority.value!r}"
    elif names_an_ancestor(root, path):
        why = "it names a directory above the repository root, which the reference finds"
    else:
        why = "it climbs above the repository root and back in, so it depends on the checkout's folder name"
    return (
        f"source_ref leaves the repository root: {ref} — {why}; the contract wants repository-relative "
        "evidence: cite a path inside the repository"
    )


def historical_without_anchor(
    case: NormalizedCase, root: Path | None, fs: FileSystemView, hints: Hints
) -> None:
    authority = case.authority
    if root is None or authority.written is None:
        return
    node, anchor = authority.written
    word = string_of(node)
    if word not in ("historical", "advisory"):
        return
    for ref in case.source_refs:
        path = ref_path(ref.value)
        if is_invalid_ref(path) or generated_prefix(path) or generated_prefix(lexical_normal(path)):
            continue
        if ref_exists(root, path, fs):
            return
    hints.add(
        "historical_without_source_anchor",
        f"a {word} case still needs a current source anchor: none of its source_refs is an "
        "existing path outside generated or historical locations",
        anchor,
        case.index if authority.from_case else None,
    )
