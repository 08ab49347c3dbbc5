"""What each finding code means and how to fix it: the rule metadata that SARIF's ``rules``
(``--format sarif``) carries. ``when`` is the README's rules table, word for word (a test keeps
the two equal); ``fix`` says what to change in the fixture."""

from __future__ import annotations

from typing import NamedTuple


class RuleDoc(NamedTuple):
    when: str  # what is wrong (Markdown)
    fix: str  # how to fix it (Markdown)


RULE_DOCS: dict[str, RuleDoc] = {
    "file-unreadable": RuleDoc(
        "the file cannot be read",
        (
            "Make the file a readable regular file (check permissions, broken symlinks, or a directory "
            "named `evals.json`)."
        ),
    ),
    "file-outside-repository": RuleDoc(
        "the file resolves (through a symbolic link or `..`) outside the repository root: not read",
        (
            "Keep the fixture inside the repository (replace the link by the file), or run the check with "
            "`--root` at a directory that contains it."
        ),
    ),
    "json-invalid": RuleDoc(
        "`JSON.parse` would fail (BOM, `NaN`, comments, trailing commas, …)",
        (
            "Make the file plain JSON as `JSON.parse` reads it: remove the byte-order mark, comments and "
            "trailing commas, quote every key, and write `null` or a number instead of `NaN`/`Infinity`."
        ),
    ),
    "root-not-object": RuleDoc(
        "root is not an object",
        'Make the whole file one object: `{"skill_name": "…", "evals": [ … ]}`.',
    ),
    "version-type": RuleDoc(
        "`version` present, not a string",
        'Write `version` as a string (`"1"`, not `1`), or remove it.',
    ),
    "skill-name-required": RuleDoc(
        '`skill_name` missing, not a string, or `""`',
        'Add `"skill_name": "<skill>"` with the skill\'s name (the `name` in `SKILL.md`).',
    ),
    "evals-not-array": RuleDoc(
        "`evals` missing or not an array",
        'Add `"evals": [ … ]`, an array of case objects.',
    ),
    "case-not-object": RuleDoc(
        "an `evals` element is not an object",
        "Make every element of `evals` an object with at least `id` and `prompt`.",
    ),
    "id-required": RuleDoc(
        "`id` missing or neither string nor number",
        "Give the case an `id`: a string (kebab-case, unique in the file) or a number.",
    ),
    "description-type": RuleDoc(
        "`description` present, not a string",
        "Write `description` as a string, or remove it.",
    ),
    "prompt-required": RuleDoc(
        '`prompt` missing, not a string, or `""`',
        "Give the case a non-empty string `prompt`: what the user asks the agent.",
    ),
    "expected-output-type": RuleDoc(
        "`expected_output` present, not a string",
        "Write `expected_output` as a string, or remove it.",
    ),
    "setup-not-object": RuleDoc(
        "`setup` present, not an object",
        'Write `setup` as an object such as `{"kind": "empty"}`, or remove it.',
    ),
    "setup-kind-invalid": RuleDoc(
        "`setup.kind` not `empty` / `seeded` / `fixture`",
        "Set `setup.kind` to exactly `empty`, `seeded` or `fixture` (lowercase).",
    ),
    "setup-sources-not-array": RuleDoc(
        "seeded: `sources` missing or not an array",
        'Give a seeded setup `"sources": [ … ]`, an array of `{"from": "…"}` objects.',
    ),
    "setup-source-not-object": RuleDoc(
        "seeded: `sources[j]` is a number, boolean, `null` or array",
        'Write each source as an object `{"from": "files/x", "to": "x"}`.',
    ),
    "setup-source-from-required": RuleDoc(
        'object source: `from` missing, not a string, or `""`',
        "Give the source a non-empty string `from`: a path relative to `evals/`.",
    ),
    "setup-source-to-type": RuleDoc(
        "object source: `to` present, not a string",
        "Write `to` as a string path, or remove it.",
    ),
    "setup-mount-mode-invalid": RuleDoc(
        "seeded: `mountMode` present and not `preserve-path` / `flatten-contents` / `flatten`",
        "Set `mountMode` to `preserve-path` or `flatten-contents` (or `flatten`), or remove it.",
    ),
    "setup-fixture-not-object": RuleDoc(
        "fixture kind: `fixture` missing or not an object",
        'Give a fixture setup `"fixture": {"kind": "repo", "source": "…"}`.',
    ),
    "setup-fixture-kind-invalid": RuleDoc(
        "`fixture.kind` not `repo` / `docs` / `api`",
        "Set `fixture.kind` to exactly `repo`, `docs` or `api`.",
    ),
    "setup-fixture-source-required": RuleDoc(
        '`fixture.source` missing, not a string, or `""`',
        "Give the fixture a non-empty string `source`: a path relative to `evals/`.",
    ),
    "setup-fixture-init-git-type": RuleDoc(
        "`fixture.initGit` present, not a boolean",
        "Write `initGit` as `true` or `false` (a boolean, not a string).",
    ),
    "files-not-array": RuleDoc(
        "`files` present, not an array",
        "Write `files` as an array of path strings, or move to `setup` (`kind: seeded`).",
    ),
    "files-item-type": RuleDoc(
        "`files[f]` not a string",
        "Write each `files` entry as a path string relative to `evals/`.",
    ),
    "assertions-not-array": RuleDoc(
        "`assertions` present, not an array",
        "Write `assertions` as an array of strings or assertion objects.",
    ),
    "assertion-empty": RuleDoc(
        'string assertion `""`',
        "Write what the judge should check, or remove the empty assertion.",
    ),
    "assertion-not-string-or-object": RuleDoc(
        "assertion is a number, boolean, `null` or array",
        ('Write the assertion as a string (judged) or an object (`{"type": "file-exists", "path": "…"}`).'),
    ),
    "script-type-invalid": RuleDoc(
        "`type` present, not `file-exists` / `regex-match` / `json-valid`",
        "Set `type` to exactly `file-exists`, `regex-match` or `json-valid`.",
    ),
    "script-path-required": RuleDoc(
        'file-exists / json-valid: `path` missing, not a string, or `""`',
        "Give the assertion a non-empty string `path`, relative to the workspace.",
    ),
    "regex-pattern-required": RuleDoc(
        'regex-match, output regex, file-contains: `pattern` missing, not a string, or `""`',
        "Give the assertion a non-empty string `pattern` (a JavaScript regular expression without slashes).",
    ),
    "regex-flags-invalid": RuleDoc(
        "pattern non-empty, `flags` a string that breaks the flag grammar",
        "Use only the flags `d`, `g`, `i`, `m`, `s`, `u`, `v`, `y`, each once, and not `u` with `v`.",
    ),
    "regex-invalid": RuleDoc(
        "pattern non-empty, flags fine, `new RegExp` throws in every supported Node",
        (
            "Fix the pattern so that `new RegExp(pattern, flags)` accepts it (escape special characters, "
            "close groups and classes)."
        ),
    ),
    "regex-flags-type": RuleDoc(
        "`flags` present, not a string",
        'Write `flags` as a string such as `"i"`, or remove it.',
    ),
    "regex-target-invalid": RuleDoc(
        '`target` present, neither `"assistant-text"` nor `{file: string}`',
        'Set `target` to `"assistant-text"` or `{"file": "path"}`, or remove it.',
    ),
    "intent-kind-invalid": RuleDoc(
        "object without `type`: `kind` missing or not `output` / `workspace` / `behavior` / `safety`",
        (
            "Give the object a `type` (script assertion) or a `kind` of `output`, `workspace`, `behavior`"
            " or `safety`."
        ),
    ),
    "intent-id-required": RuleDoc(
        'intent: `id` missing, not a string, or `""`',
        "Give the intent assertion a non-empty string `id`.",
    ),
    "intent-must-pass-type": RuleDoc(
        "intent: `mustPass` present, not a boolean",
        "Write `mustPass` as `true` or `false`, or remove it.",
    ),
    "intent-severity-invalid": RuleDoc(
        "intent: `severity` present, not `info` / `warn` / `error`",
        "Set `severity` to `info`, `warn` or `error`, or remove it.",
    ),
    "intent-method-invalid": RuleDoc(
        "intent: `method` missing or not in the kind's set",
        "Set `method` to one the assertion's kind supports (the message lists them).",
    ),
    "intent-judge-prompt-type": RuleDoc(
        "output judge: `prompt` present, not a string",
        "Write the judge's `prompt` as a string, or remove it.",
    ),
    "intent-expected-required": RuleDoc(
        "output exact: `expected` not a string",
        "Give an exact output assertion a string `expected`.",
    ),
    "intent-path-required": RuleDoc(
        'workspace, method not `snapshot-diff`: `path` missing, not a string, or `""`',
        "Give the workspace assertion a non-empty string `path`.",
    ),
    "intent-value-type": RuleDoc(
        "behavior: `value` present, not a string",
        "Write `value` as a string, or remove it.",
    ),
    "metadata-not-object": RuleDoc(
        "`metadata` present, not an object",
        "Write `metadata` as an object, or remove it.",
    ),
    "duplicate-id": RuleDoc(
        "a clean case repeats the `String(id)` of an earlier clean case",
        (
            "Give the case an id no earlier case uses (ids are compared as JavaScript prints them: `1` "
            'and `"1"` collide).'
        ),
    ),
    "json-syntax": RuleDoc(
        "a further JSON syntax error (JSON.parse stops at the first; recovery shows the rest)",
        (
            "Fix this syntax error too; `JSON.parse` stops at the first one, so the others surface one by"
            " one otherwise."
        ),
    ),
    "duplicate-key": RuleDoc(
        "an object repeats a member name (each occurrence; JSON.parse keeps the last)",
        "Keep one member of that name; `JSON.parse` silently keeps only the last value.",
    ),
    "file-too-large": RuleDoc(
        "the file is over 50 MB and is not analysed",
        "Split the file; files over 50 MB are not analysed.",
    ),
    "sources-string-form": RuleDoc(
        "seeded: `sources[j]` is a string (spec form, loader rejects)",
        'Write the source as an object `{"from": "…"}`: the loader rejects plain strings.',
    ),
    "mount-mode-flatten": RuleDoc(
        'seeded: `mountMode: "flatten"` (spec value, loader rejects)',
        "Use `flatten-contents`: the loader rejects `flatten`.",
    ),
    "metadata-tags-type": RuleDoc(
        "`metadata.tags` present, not an array of strings",
        "Write `metadata.tags` as an array of strings.",
    ),
    "metadata-difficulty-invalid": RuleDoc(
        "`metadata.difficulty` present, not `easy` / `medium` / `hard`",
        "Set `metadata.difficulty` to `easy`, `medium` or `hard`.",
    ),
    "metadata-intent-type": RuleDoc(
        "`metadata.intent` present, not a string",
        "Write `metadata.intent` as a string.",
    ),
    "metadata-environment-invalid": RuleDoc(
        "one of the `metadata.environment` rules fails",
        "Fix `metadata.environment` as the message says.",
    ),
    "regex-newer-syntax": RuleDoc(
        "pattern rejected by Node 20, accepted by Node 24 (ES2025)",
        "Rewrite the pattern without ES2025 syntax if the suite must run on Node 20.",
    ),
    "duplicate-id-latent": RuleDoc(
        "same `String(id)` as an earlier case, not reported by the loader because of other loader issues",
        "Give the case a unique id; the duplicate shows up once the case's other problems are fixed.",
    ),
    "sandbox-invalid": RuleDoc(
        '`sandbox` present, not `"none"` / `"just-bash"`',
        'Set `sandbox` to `"none"` or `"just-bash"`, or remove it.',
    ),
    "sandbox-mock-invalid": RuleDoc(
        "a `sandboxMocks` shape violation",
        'Fix the mock as the message says: `{"command": "name", "stdout": "…"}`.',
    ),
    "assertion-never-passes": RuleDoc(
        "behavior, safety, or workspace `snapshot-diff` assertion",
        (
            "Replace it with an assertion the runner can grade (a judged string, an output or a workspace"
            " check)."
        ),
    ),
    "target-file-empty": RuleDoc(
        '`target: {"file": ""}`',
        'Name the file in `target.file`, or use `"assistant-text"`.',
    ),
    "assertion-path-escapes": RuleDoc(
        "`path` / `target.file` absolute or starting with `..`",
        "Use a path relative to the workspace that stays inside it.",
    ),
    "path-not-found": RuleDoc(
        "a `files` entry or source path missing relative to `evals/`",
        "Create the file or correct the path; paths are relative to the `evals/` directory.",
    ),
    "path-outside-repository": RuleDoc(
        (
            "a source or `files` path, or the `SKILL.md` beside `evals/`, resolves outside the repository "
            "root (through `..` or a symbolic link): never read or tested for existence"
        ),
        "Refer to a path inside the repository; evalfix-ls never looks outside it.",
    ),
    "source-outside-evals": RuleDoc(
        "a source path absolute or leaving `evals/`",
        "Move the source below `evals/` and refer to it with a relative path.",
    ),
    "setup-destination-escapes": RuleDoc(
        "a copy destination absolute or starting with `..` (run throws)",
        "Use a relative destination that stays inside the workspace.",
    ),
    "files-skill-root-relative": RuleDoc(
        "`files` entry `evals/…` that exists only relative to the skill root",
        "Drop the leading `evals/`: `files` entries are relative to `evals/` itself.",
    ),
    "encoding-replaced": RuleDoc(
        "invalid UTF-8 replaced by U+FFFD",
        "Save the file as UTF-8.",
    ),
    "expectations-not-graded": RuleDoc(
        "the case has `expectations`",
        "Move what `expectations` says into `assertions`, which the runner grades.",
    ),
    "trigger-eval-format": RuleDoc(
        "root array of `{query or prompt, should_trigger}`",
        "Nothing to fix if this is a trigger eval; arc-skill-eval's loader does not read this format.",
    ),
    "evals-empty": RuleDoc(
        '`"evals": []`',
        "Add cases, or remove the file.",
    ),
    "not-discovered": RuleDoc(
        (
            "arc-skill-eval would not discover the file: no `SKILL.md` beside `evals/`, a dot-directory "
            "or ignored directory on the path, or inside another discovered skill"
        ),
        (
            "Put a `SKILL.md` beside `evals/`, outside dot-directories and ignored directories, if "
            "arc-skill-eval should find the suite."
        ),
    ),
    "skill-name-mismatch": RuleDoc(
        "(optional) `skill_name` differs from the `name` in `SKILL.md` front matter",
        "Use the same name in `skill_name` and in `SKILL.md`.",
    ),
    "mount-mode-flatten-contents": RuleDoc(
        '`mountMode: "flatten-contents"` (loader form, not in the spec)',
        "Nothing to fix for the loader; the user spec spells it `flatten`.",
    ),
    "sources-object-form": RuleDoc(
        "object source (loader form, not in the spec)",
        "Nothing to fix for the loader; the user spec writes sources as strings.",
    ),
    "setup-key-unused": RuleDoc(
        "a `setup` member the chosen kind does not use",
        "Remove the member, or pick the setup kind that uses it.",
    ),
    "sources-empty": RuleDoc(
        'seeded with `"sources": []`',
        'Add sources, or use `{"kind": "empty"}`.',
    ),
    "files-legacy": RuleDoc(
        "non-empty `files`",
        'Move the entries to `setup: {"kind": "seeded", "sources": [ … ]}`.',
    ),
    "files-and-setup": RuleDoc(
        "both `setup` and `files`",
        "Keep one of them; `setup` wins.",
    ),
    "id-style": RuleDoc(
        'id `""`, not kebab-case, or a number that is not a safe non-negative integer',
        "Use a kebab-case string id (`lowercase-words`).",
    ),
    "id-artifact-collision": RuleDoc(
        "two ids map to the same artifact folder",
        "Rename one of the ids so that their artifact folders differ.",
    ),
    "prompt-blank": RuleDoc(
        "whitespace-only `prompt`",
        "Write the prompt.",
    ),
    "assertion-blank": RuleDoc(
        "whitespace-only string assertion",
        "Write what the judge should check, or remove the assertion.",
    ),
    "judge-claim-ignored": RuleDoc(
        "`claim` on an output judge assertion",
        "Move the claim into `prompt` or `expected`; an output judge ignores `claim`.",
    ),
    "judge-prompt-missing": RuleDoc(
        "output judge without `prompt` and `expected`",
        "Give the judge a `prompt` or an `expected` answer.",
    ),
    "regex-flag-g-ignored": RuleDoc(
        "`g` in flags",
        "Remove `g`; the match is tested once.",
    ),
    "regex-flag-y-anchors": RuleDoc(
        "`y` in flags",
        "Remove `y` unless the match must start at index 0.",
    ),
    "regex-unchecked": RuleDoc(
        "the validator cannot decide (too large)",
        "Simplify the pattern so it can be checked.",
    ),
    "sandbox-mocks-unused": RuleDoc(
        'mocks without `sandbox: "just-bash"`',
        'Set `sandbox: "just-bash"`, or remove the mocks.',
    ),
    "sandbox-mock-duplicate": RuleDoc(
        "two mocks for the same command",
        "Keep one mock per command.",
    ),
    "sandbox-mock-command-spaces": RuleDoc(
        "mock `command` contains whitespace",
        "Put only the command name in `command`.",
    ),
    "key-ignored": RuleDoc(
        "a root or case member neither the loader nor the spec knows",
        "Remove the member or correct its spelling.",
    ),
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
        "tested: `path_outside_repository`)",
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
            "a source ref resolves outside the repository root (through `..` or a symbolic link): its "
            "existence is not tested, so `source_ref_missing` is not decided"
        ),
        "Refer to a path inside the repository; evalfix-ls never looks outside it.",
    ),
    "source_ref_outside_repo": RuleDoc(
        (
            "the normalized path leaves the repository root (`../x`); the contract wants "
            "repository-relative paths"
        ),
        "Cite a path inside the repository.",
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
