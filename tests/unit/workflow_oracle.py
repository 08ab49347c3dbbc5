"""A test oracle: the reference normalizer and validator (``eval-fixture-normalizer.js``, commit
``2f2d6c7``) transliterated line by line onto plain Python values from ``json.loads``.

It knows nothing of positions, so it is much simpler than the implementation, and the property
tests compare the two on the multiset of (reason code, case index) — the parity promise of
specs/README.md. JavaScript details kept: ``trim`` (§9.1), truthiness (``[]``/``{}`` truthy),
``String()`` of values, ``path.join`` existence, presence vs ``undefined``.
"""

from __future__ import annotations

import json
import math
import os
import posixpath
import re
from pathlib import Path
from typing import Any

from evalfix_ls.js.values import js_number_to_string, js_trim

CANONICAL = "spec-first.workflow-eval-fixtures.v1"
AUTHORITIES = {"source", "historical", "advisory"}
PATTERNS = (".claude/", ".codex/", ".agents/skills/", "docs/plans/", "docs/validation/")


class Throws(Exception):
    """The reference throws (JSON.parse, property read on null, String() of an object)."""


def loads(text: str) -> Any:
    def reject(constant: str) -> Any:
        raise Throws(constant)

    if text[:1] == "\ufeff":
        raise Throws("BOM")
    try:
        return json.loads(text, parse_constant=reject)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise Throws(str(exc)) from exc


def truthy(value: Any) -> bool:
    if value is None or value is False or value is UNDEFINED:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True  # lists and dicts, empty or not


def non_empty_string(value: Any) -> bool:
    return isinstance(value, str) and len(js_trim(value)) > 0


def js_str(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number_to_string(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if item is None else js_str(item) for item in value)
    if "toString" in value:
        raise Throws("String() of an object with its own toString")
    return "[object Object]"


def get(entry: Any, name: str) -> Any:
    """``entry[name]``: undefined (a sentinel) unless entry is an object holding the member."""
    if entry is None:
        raise Throws("property read on null")
    if isinstance(entry, dict) and name in entry:
        return entry[name]
    return UNDEFINED


class _Undefined:
    pass


UNDEFINED: Any = _Undefined()


def string_array(value: Any) -> list[str]:
    if value is UNDEFINED or value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if non_empty_string(item)]
    return [value] if non_empty_string(value) else []


def unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def slugify(value: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", js_trim(value).lower())
    return re.sub(r"^-|-$", "", slug)


def first_present_string(values: list[Any]) -> str:
    return next((value for value in values if non_empty_string(value)), "")


def non_empty_expected(value: Any) -> bool:
    if non_empty_string(value):
        return True
    if isinstance(value, list):
        return any(non_empty_expected(item) for item in value)
    if isinstance(value, dict):
        return any(non_empty_expected(item) for item in value.values())
    return False


def normalize(payload: Any, rel_path: str | None) -> list[dict[str, Any]]:
    if payload is None:
        raise Throws("payload.cases on null")
    cases_value, examples_value = get(payload, "cases"), get(payload, "examples")
    cases = (
        cases_value
        if isinstance(cases_value, list)
        else examples_value
        if isinstance(examples_value, list)
        else []
    )
    skill = get(payload, "skill")
    if not truthy(skill):
        match = re.match(r"^skills/([^/]+)/", rel_path) if rel_path else None
        skill = match.group(1) if match else None
    file_refs = string_array(get(payload, "source_refs"))
    file_tags = string_array(get(payload, "coverage_tags"))
    file_authority = get(payload, "source_ref_authority")
    file_authority = file_authority if truthy(file_authority) else "source"
    out = []
    for index, entry in enumerate(cases):
        authority = get(entry, "source_ref_authority")
        authority = authority if truthy(authority) else file_authority
        negative = get(entry, "negative_signal")
        out.append(
            {
                "skill": skill,
                "id": _case_id(entry, index),
                "input": first_present_string(
                    [get(entry, n) for n in ("input", "user_intent", "input_shape", "intent")]
                ),
                "expected_outcome": _outcome(entry),
                "coverage_tags": unique(file_tags + string_array(get(entry, "coverage_tags"))),
                "source_refs": unique(file_refs + string_array(get(entry, "source_refs"))),
                "source_ref_authority": authority,
                "boundary_note": first_present_string([get(entry, "boundary_note")]),
                "forbidden_signals": unique(
                    string_array(get(entry, "forbidden_signals"))
                    + string_array([] if negative is UNDEFINED else negative)
                ),
                "source_file": rel_path,
            }
        )
    return out


def _case_id(entry: Any, index: int) -> str:
    if non_empty_string(get(entry, "id")):
        return get(entry, "id")
    if non_empty_string(get(entry, "name")):
        return slugify(get(entry, "name"))
    return f"case-{index + 1}"


def _outcome(entry: Any) -> Any:
    for name in ("expected_outcome", "expected", "expected_posture", "expected_signal"):
        if get(entry, name) is not UNDEFINED:
            return get(entry, name)
    starters = ("expected_decision", "expected_failure", "expected_output")
    if any(get(entry, name) is not UNDEFINED for name in starters):
        return {
            name: get(entry, name)
            for name in (*starters, "expected_next_action")
            if get(entry, name) is not UNDEFINED
        }
    return None


def exists(root: Path, path: str) -> bool:
    joined = f"{root.as_posix()}/{path}"
    normal = posixpath.normpath(joined)
    if joined.endswith("/") and not normal.endswith("/"):
        normal += "/"
    try:
        os.stat(normal)
    except (OSError, ValueError):
        return False
    return True


def outside_unknown(root: Path, path: str) -> bool:
    """The one code the specs assign where the reference's own does not apply (workflow-fixtures.md
    §2.1b, §14): ``path.join(root, path)`` really lies outside the repository (``..``, links) and is
    not a directory above the root — one the reference would test for existence and evalfix-ls never
    does — so ``path_outside_repository`` replaces ``source_ref_missing`` (and an accepted target
    outside is rejected all the same). A directory above the root always exists: no error."""
    lexical_root = posixpath.normpath(root.absolute().as_posix())
    joined = posixpath.normpath(f"{lexical_root}/{path}")
    try:
        inside = _within(os.path.realpath(joined), os.path.realpath(root))
    except ValueError:  # an embedded NUL: no link can be followed, the lexical path decides
        inside = _within(joined, lexical_root)
    above_root = joined == "/" or lexical_root.startswith(joined.rstrip("/") + "/")
    return not inside and not above_root


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def validate_case(entry: dict[str, Any], root: Path | None) -> list[str]:
    errors = []
    if not non_empty_string(entry["skill"]):
        errors.append("missing_skill")
    if not non_empty_string(entry["id"]):
        errors.append("missing_id")
    if not non_empty_string(entry["input"]):
        errors.append("missing_input")
    if not entry["coverage_tags"]:
        errors.append("missing_coverage_tags")
    else:
        errors += [
            "invalid_coverage_tag"
            for tag in entry["coverage_tags"]
            if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", tag)
        ]
    if not entry["source_refs"]:
        errors.append("missing_source_refs")
    authority = entry["source_ref_authority"]
    if not (isinstance(authority, str) and authority in AUTHORITIES):
        js_str(authority)  # the message converts it, which may throw
        errors.append("invalid_source_ref_authority")
    for ref in entry["source_refs"]:
        path = ref.split("#")[0]
        if not path or re.match(r"^https?://", path) or path.startswith("/") or "\\" in path:
            errors.append("invalid_source_ref")
            continue
        if authority == "source":
            errors += ["source_ref_not_source_authority" for prefix in PATTERNS if path.startswith(prefix)]
            if root is not None and outside_unknown(root, path):
                errors.append("path_outside_repository")
            elif root is not None and not exists(root, path):
                errors.append("source_ref_missing")
    no_outcome = not non_empty_expected(entry["expected_outcome"])
    if "trigger" in entry["coverage_tags"] and no_outcome:
        errors.append("missing_expected_outcome")
    if "expected" in entry["coverage_tags"] and no_outcome:
        errors.append("missing_expected_outcome")
    if (
        "boundary" in entry["coverage_tags"]
        and no_outcome
        and not non_empty_string(entry["boundary_note"])
        and not entry["forbidden_signals"]
    ):
        errors.append("missing_boundary_evidence")
    return errors


def validate(
    cases_by_file: list[tuple[str, list[dict[str, Any]]]], root: Path | None
) -> dict[str, list[tuple[str, int]]]:
    """``validateNormalizedCases`` over files in batch order: (code, case index) per file."""
    seen: set[str] = set()
    out: dict[str, list[tuple[str, int]]] = {}
    for rel, cases in cases_by_file:
        found = out.setdefault(rel, [])
        for index, entry in enumerate(cases):
            found += [(code, index) for code in validate_case(entry, root)]
            key = f"{js_str(entry['skill'])}:{entry['id']}"
            if key in seen:
                found.append(("duplicate_case_id", index))
            else:
                seen.add(key)
    return out


def reference_errors(text: str, rel_path: str, root: Path | None) -> list[tuple[str, int | None]]:
    """What the reference reports for one file validated alone: its (code, case) pairs, or one
    file-level code when it throws."""
    try:
        payload = loads(text)
    except Throws:
        return [("invalid_json", None)]
    try:
        cases = normalize(payload, rel_path)
        return validate([(rel_path, cases)], root)[rel_path]
    except Throws:
        return [("fixture_unreadable", None)]
