"""What each eval-suite finding code (``evals/evals.json``, the file-level codes included) means
and how to fix it; ``contracts.rule_docs`` gathers both families."""

from __future__ import annotations

from ...findings import RuleDoc

EVALS_RULE_DOCS: dict[str, RuleDoc] = {
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
    "other-tool-suite": RuleDoc(
        "the root is `{skill, cases: [...]}` (a `cases` or `examples` array, no `skill_name` or `evals`): "
        "another tool's eval file, which the loader rejects",
        'If another tool owns it, map it off (`[files] "<path>" = "none"`); else write an eval suite.',
    ),
}
