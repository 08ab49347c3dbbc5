"""What each workflow-fixture finding code means and how to fix it; ``contracts.rule_docs``
gathers both families."""

from __future__ import annotations

from ...findings import RuleDoc

WORKFLOW_RULE_DOCS: dict[str, RuleDoc] = {
    "missing_skill": RuleDoc(
        "effective `skill` is not a non-empty string",
        "Set `skill` (on the case or at the top level) to the skill's directory name.",
    ),
    "missing_id": RuleDoc(
        'the id derived from `name` slugifies to `""`',
        "Give the case an `id`, or a `name` that contains letters or digits.",
    ),
    "missing_input": RuleDoc(
        "no non-empty string among `input`, `user_intent`, `input_shape`, `intent`",
        "Give the case a non-empty `input`: what the user asks.",
    ),
    "missing_coverage_tags": RuleDoc(
        "the tag union (top level + case, non-empty strings only) is empty",
        'Add `coverage_tags`, such as `["trigger"]` or `["boundary"]`.',
    ),
    "invalid_coverage_tag": RuleDoc(
        "a tag in the union fails `/^[a-z0-9][a-z0-9-]*$/` (one per tag)",
        "Write the tag in lowercase letters, digits and hyphens, starting with a letter or digit.",
    ),
    "missing_source_refs": RuleDoc(
        "the ref union is empty",
        "Add `source_refs`: repository paths of the evidence for the case.",
    ),
    "invalid_source_ref_authority": RuleDoc(
        "effective authority not `source` / `historical` / `advisory`",
        "Set `source_ref_authority` to `source`, `historical` or `advisory`.",
    ),
    "invalid_source_ref": RuleDoc(
        "pre-`#` part empty, lowercase `http(s)://`, absolute, or containing `\\` (any authority)",
        "Use a repository-relative path with forward slashes (no URL, no absolute path, no backslash).",
    ),
    "source_ref_not_source_authority": RuleDoc(
        (
            "authority `source` and the raw path starts with `.claude/`, `.codex/`, `.agents/skills/`, "
            "`docs/plans/`, `docs/validation/`"
        ),
        "Point at the source file, or set `source_ref_authority` to `historical` or `advisory`.",
    ),
    "source_ref_missing": RuleDoc(
        "authority `source` and `path.join(root, path)` does not exist (a path leaving the repository is not "
        "tested: `path_outside_repository` / `source_ref_outside_repo`)",
        "Create the file, correct the path, or mark the ref `historical`.",
    ),
    "missing_expected_outcome": RuleDoc(
        "tag `trigger` (and, separately, tag `expected`) with an empty outcome",
        "Add `expected_outcome`: what the skill should do.",
    ),
    "missing_boundary_evidence": RuleDoc(
        "tag `boundary`, empty outcome, no `boundary_note`, no forbidden/negative signals",
        "Add `expected_outcome`, a `boundary_note` or `forbidden_signals`.",
    ),
    "duplicate_case_id": RuleDoc(
        "`skill:id` already seen earlier in batch order (all fixture files)",
        "Give the case an id unique across the skill's fixture files.",
    ),
    "invalid_json": RuleDoc(
        "`JSON.parse` would fail (the only finding for the file)",
        (
            "Make the file plain JSON as `JSON.parse` reads it: remove the byte-order mark, comments and "
            "trailing commas."
        ),
    ),
    "fixture_unreadable": RuleDoc(
        "read failure, `null` root, or a `null` case element (the only finding for the file)",
        "Make the file readable, its root an object and no case `null`.",
    ),
    "json_syntax": RuleDoc(
        "a further JSON syntax error (JSON.parse stops at the first; recovery shows the rest)",
        "Fix this syntax error too; `JSON.parse` stops at the first one.",
    ),
    "duplicate_json_key": RuleDoc(
        "an object has the same member name twice (after unescaping); the earlier values are discarded",
        "Keep one member of that name; `JSON.parse` keeps only the last value.",
    ),
    "list_item_dropped": RuleDoc(
        (
            "an element of `coverage_tags`, `source_refs`, `forbidden_signals` or `negative_signal` (case"
            " or top level) that is not a non-empty string: silently dropped"
        ),
        "Remove the item, or write it as a non-empty string.",
    ),
    "list_value_ignored": RuleDoc(
        "one of those members holds a number, boolean, object or blank string: counts as an empty list",
        "Write the member as an array of non-empty strings (or one non-empty string).",
    ),
    "outcome_alias_shadowed": RuleDoc(
        (
            "the outcome member that wins precedence (§4.6) is empty while a later alias is non-empty: "
            "the later one is ignored"
        ),
        "Fill the winning outcome member, or remove it so that the alias counts.",
    ),
    "case_array_shadowed": RuleDoc(
        (
            "`cases` is an array and `examples` is a non-empty array (examples ignored), or `cases` is "
            "present but not an array while `examples` is used"
        ),
        "Keep one case array, named `cases`.",
    ),
    "file_too_large": RuleDoc(
        "the file is over 50 MB and is not analysed",
        "Split the file; files over 50 MB are not analysed.",
    ),
    "source_ref_outside_repo": RuleDoc(
        (
            "a ref the reference accepts although it leaves the repository root: under `historical`/"
            "`advisory` (or an invalid authority) any such ref, under `source` a directory above the "
            "root (`..`, `a/../..`, which exists), and a path that climbs above the root and back in "
            "(`../<checkout>/x`)"
        ),
        "Cite a path inside the repository, relative to its root.",
    ),
    "encoding_replaced": RuleDoc(
        "invalid UTF-8 was replaced by U+FFFD (as Node reads the file)",
        "Save the file as UTF-8.",
    ),
    "skill_dir_mismatch": RuleDoc(
        (
            "a declared non-empty string `skill` differs from the directory `skills/<dir>/`: its ids "
            "collide with that skill's, while readiness counts it under `<dir>`"
        ),
        "Set `skill` to the directory name, or move the file to that skill's directory.",
    ),
    "authority_overrides_inherited": RuleDoc(
        (
            "a case's JS-truthy authority differs from the file's effective authority and the file has "
            "top-level refs: the case authority also governs those refs (under `historical`/`advisory` "
            "they are no longer checked)"
        ),
        "Set the authority where the refs are, or give the case its own refs.",
    ),
    "authority_defaulted": RuleDoc(
        '`source_ref_authority` present but falsy (`""`, `null`, `false`, `0`): treated as absent',
        "Set `source_ref_authority` to a value, or remove it.",
    ),
    "source_ref_url_like": RuleDoc(
        (
            "a ref whose pre-`#` part looks like a URL the reference does not catch: a scheme followed by"
            " `://` other than lowercase `http`/`https` (`HTTPS://`, `Http://`, `ftp://`, `file://`), or "
            "`mailto:`, `data:`, `urn:` in any case"
        ),
        "Cite a repository file, not a URL.",
    ),
    "source_ref_windows_path": RuleDoc(
        "a drive-letter path such as `C:/x` (a relative path to the reference)",
        "Use a repository-relative path with forward slashes.",
    ),
    "source_ref_mirror_unnormalized": RuleDoc(
        (
            "under `source`: the lexically normalized path (`.`/`..` resolved, `//` collapsed), or its "
            "lowercase form, starts with a generated/historical prefix while the raw string does not; or "
            "the ref is exactly `docs/plans`, `docs/validation`, `.claude`, `.codex`, `.agents/skills`"
        ),
        "Cite the source path itself, or mark the ref `historical`.",
    ),
    "fixture_outside_repository": RuleDoc(
        "the file resolves (through a symbolic link or `..`) outside the repository root: not read",
        (
            "Keep the fixture inside the repository (replace the link by the file), or run the check with "
            "`--root` at a directory that contains it."
        ),
    ),
    "path_outside_repository": RuleDoc(
        (
            "authority `source` and the ref resolves outside the repository root (`../x`, a symbolic link "
            "leading out) to anything but a directory above the root: never tested for existence; the "
            "contract wants repository-relative evidence (replaces `source_ref_missing` for such refs)"
        ),
        "Refer to a path inside the repository; evalfix-ls never looks outside it.",
    ),
    "historical_without_source_anchor": RuleDoc(
        (
            "authority `historical`/`advisory` and none of the case's refs is an existing path outside "
            "the generated/historical prefixes"
        ),
        "Add a ref to an existing source file.",
    ),
    "id_synthesized": RuleDoc(
        (
            "the case has no non-empty string `id`; its id comes from `name` or its position (`case-N`), "
            "which changes when the name or order changes"
        ),
        "Give the case an explicit string `id`.",
    ),
    "legacy_alias_in_canonical": RuleDoc(
        (
            "in a canonical file: `examples` instead of `cases`, or a case using `name` (without `id`), "
            "`user_intent`, `input_shape`, `intent`, `expected`, `expected_posture`, `expected_signal`, "
            "the composite members, or `negative_signal`"
        ),
        "Use the canonical member names (`cases`, `id`, `input`, `expected_outcome`, …).",
    ),
    "coverage_tag_near_miss": RuleDoc(
        (
            "a well-formed tag within edit distance 2 of `trigger`, `boundary`, `failure` or `expected` "
            "but not equal (e.g. `triggers`, `boundry`): it counts for no bucket"
        ),
        "Spell the bucket tag exactly: `trigger`, `boundary`, `failure` or `expected`.",
    ),
    "extensions_field_ignored": RuleDoc(
        (
            "`extensions` contains a member that feeds a validated field when written on the case (`id`, "
            "`name`, `input`, `user_intent`, `input_shape`, `intent`, `expected_outcome`, `expected`, "
            "`expected_posture`, `expected_signal`, `expected_decision`, `expected_failure`, "
            "`expected_output`, `expected_next_action`, `coverage_tags`, `source_refs`, "
            "`source_ref_authority`, `boundary_note`, `forbidden_signals`, `negative_signal`): inside "
            "`extensions` it counts for nothing"
        ),
        "Move the member from `extensions` onto the case.",
    ),
    "extensions_not_object": RuleDoc(
        "`extensions` is a string, number, boolean or array (spread into odd keys)",
        "Write `extensions` as an object.",
    ),
    "tags_without_cases": RuleDoc(
        (
            "the file has top-level `coverage_tags` but no `cases`/`examples` array: it contributes no "
            "case to any bucket (e.g. `yao-trigger-cases.json`)"
        ),
        "Add a `cases` array, or move the tags onto cases.",
    ),
    "failure_without_expected": RuleDoc(
        (
            "a case tagged `failure` with an empty outcome, no `boundary_note` and no forbidden/negative "
            'signals: the contract says failure cases "should still carry enough local expected fields"'
        ),
        "Add `expected_outcome`, a `boundary_note` or `forbidden_signals` to the failure case.",
    ),
}
