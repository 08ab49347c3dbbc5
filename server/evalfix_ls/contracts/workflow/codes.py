"""Every workflow-fixture code with its severity, written once: the rules look their severity up
here (``WORKFLOW_CODES[code]``), the registry (``contracts.codes``) and the README table list it."""

from __future__ import annotations

from ...findings import Severity

ERR, WARN, INFO, HINT = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

# workflow-fixtures.md §17: the reference's reason codes (errors), then evalfix-ls's own.
WORKFLOW_CODES: dict[str, Severity] = {
    "missing_skill": ERR,
    "missing_id": ERR,
    "missing_input": ERR,
    "missing_coverage_tags": ERR,
    "invalid_coverage_tag": ERR,
    "missing_source_refs": ERR,
    "invalid_source_ref_authority": ERR,
    "invalid_source_ref": ERR,
    "source_ref_not_source_authority": ERR,
    "source_ref_missing": ERR,
    "missing_expected_outcome": ERR,
    "missing_boundary_evidence": ERR,
    "duplicate_case_id": ERR,
    "invalid_json": ERR,
    "fixture_unreadable": ERR,
    "fixture_outside_repository": ERR,
    "path_outside_repository": ERR,
    "json_syntax": WARN,
    "duplicate_json_key": WARN,
    "list_item_dropped": WARN,
    "list_value_ignored": WARN,
    "outcome_alias_shadowed": WARN,
    "case_array_shadowed": WARN,
    "file_too_large": WARN,
    "source_ref_outside_repo": WARN,
    "encoding_replaced": INFO,
    "skill_dir_mismatch": INFO,
    "authority_overrides_inherited": HINT,
    "authority_defaulted": HINT,
    "source_ref_url_like": HINT,
    "source_ref_windows_path": HINT,
    "source_ref_mirror_unnormalized": HINT,
    "historical_without_source_anchor": HINT,
    "id_synthesized": HINT,
    "legacy_alias_in_canonical": HINT,
    "coverage_tag_near_miss": HINT,
    "extensions_field_ignored": HINT,
    "extensions_not_object": HINT,
    "tags_without_cases": HINT,
    "failure_without_expected": HINT,
}
