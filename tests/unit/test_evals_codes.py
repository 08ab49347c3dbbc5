"""Every code of evals-json.md §18: a document that raises it (with the exact pointers, cases and
severity) and one that does not. File-system codes are in test_evals_paths.py."""

from __future__ import annotations

from typing import NamedTuple

import evals_oracle as oracle
import pytest
from evals_support import assertions, case, findings_of, one, suite

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.contracts.evals.report import CODES
from evalfix_ls.workspace.files import FileText, decode_bytes


class Row(NamedTuple):
    code: str
    severity: str
    failing: str
    expected: list[tuple[str, int | None]]  # (pointer, case) of every finding with this code
    passing: str


A0 = "/evals/0/assertions/0"

ROWS = [
    # -- top level (§5)
    Row("root-not-object", "error", "[]", [("", None)], one()),
    Row("root-not-object", "error", '"evals"', [("", None)], one()),
    Row(
        "version-type",
        "error",
        '{"version": null, "skill_name": "s", "evals": []}',
        [("/version", None)],
        '{"version": "", "skill_name": "s", "evals": []}',
    ),
    Row("skill-name-required", "error", '{"evals": []}', [("", None)], '{"skill_name": "s", "evals": []}'),
    Row(
        "skill-name-required",
        "error",
        '{"skill_name": "", "evals": []}',
        [("/skill_name", None)],
        '{"skill_name": " ", "evals": []}',
    ),
    Row("evals-not-array", "error", '{"skill_name": "s"}', [("", None)], '{"skill_name": "s", "evals": []}'),
    Row("evals-not-array", "error", '{"skill_name": "s", "evals": {}}', [("/evals", None)], one()),
    Row("evals-empty", "information", '{"skill_name": "s", "evals": []}', [("/evals", None)], one()),
    Row(
        "trigger-eval-format",
        "information",
        '[{"query": "q", "should_trigger": true}]',
        [("", None)],
        '[{"id": 1, "prompt": "p"}]',
    ),
    Row(
        "trigger-eval-format", "information", '[{"prompt": "q", "should_trigger": false}]', [("", None)], "[]"
    ),
    Row(
        "key-ignored",
        "hint",
        '{"skill_name": "s", "notes": "", "evals": []}',
        [("/notes", None)],
        '{"$schema": "x", "version": "1", "skill_name": "s", "evals": []}',
    ),
    Row(
        "key-ignored",
        "hint",
        one('"name": "n", "eval_name": "e"'),
        [("/evals/0/name", 0), ("/evals/0/eval_name", 0)],
        one('"description": "d", "expected_output": "", "sandbox": "none"'),
    ),
    Row(
        "other-tool-suite",
        "hint",
        '{"skill": "s", "cases": [{"id": "a", "prompt": "p"}, {"id": "b"}]}',
        [("", None)],
        '{"skill": "s", "cases": [], "evals": []}',
    ),
    Row("other-tool-suite", "hint", '{"examples": []}', [("", None)], '{"skill_name": "s", "examples": []}'),
    # -- case (§6)
    Row(
        "case-not-object",
        "error",
        suite("3", "null", "[]"),
        [("/evals/0", 0), ("/evals/1", 1), ("/evals/2", 2)],
        one(),
    ),
    Row("id-required", "error", suite('{"prompt": "p"}'), [("/evals/0", 0)], suite(case(id_='""'))),
    Row(
        "id-required",
        "error",
        suite(case(id_="null"), case(id_="true"), case(id_="[]")),
        [("/evals/0/id", 0), ("/evals/1/id", 1), ("/evals/2/id", 2)],
        suite(case(id_="-1.5")),
    ),
    Row(
        "description-type",
        "error",
        one('"description": null'),
        [("/evals/0/description", 0)],
        one('"description": ""'),
    ),
    Row("prompt-required", "error", suite('{"id": 1}'), [("/evals/0", 0)], suite(case(prompt='" "'))),
    Row(
        "prompt-required",
        "error",
        suite(case(prompt='""'), case(prompt="1")),
        [("/evals/0/prompt", 0), ("/evals/1/prompt", 1)],
        one(),
    ),
    Row(
        "expected-output-type",
        "error",
        one('"expected_output": 1'),
        [("/evals/0/expected_output", 0)],
        one('"expected_output": ""'),
    ),
    Row("prompt-blank", "hint", suite(case(prompt='" \\t\\u3000"')), [("/evals/0/prompt", 0)], one()),
    Row(
        "id-style",
        "hint",
        suite(
            case(id_='"Default World"'),
            case(id_='""'),
            case(id_="-1"),
            case(id_="1.5"),
            case(id_="-0"),
            case(id_="1e400"),
            case(id_="9007199254740993"),
        ),
        [
            ("/evals/0/id", 0),
            ("/evals/1/id", 1),
            ("/evals/2/id", 2),
            ("/evals/3/id", 3),
            ("/evals/4/id", 4),
            ("/evals/5/id", 5),
            ("/evals/6/id", 6),
        ],
        suite(case(id_='"default-world"'), case(id_="0"), case(id_="9007199254740991"), case(id_='"a1-b2"')),
    ),
    Row(
        "id-artifact-collision",
        "hint",
        suite(case(id_='"a b"'), case(id_='"a/b"'), case(id_='"A-B"')),
        [("/evals/1/id", 1), ("/evals/2/id", 2)],
        suite(case(id_='"a-b"'), case(id_='"a-c"')),
    ),
    Row(
        "expectations-not-graded",
        "information",
        one('"expectations": ["it greets"]'),
        [("/evals/0/expectations", 0)],
        one('"assertions": ["it greets"]'),
    ),
    Row(
        "duplicate-id",
        "error",
        suite(case(id_="1"), case(id_='"1"'), case(id_="1.0")),
        [("/evals/1/id", 1), ("/evals/2/id", 2)],
        suite(case(id_="1"), case(id_='"01"'), case(id_='"1.0"')),
    ),
    Row(
        "duplicate-id-latent",
        "warning",
        suite(case(id_="1", prompt='""'), case(id_="1")),
        [("/evals/1/id", 1)],
        suite(case(id_="1"), case(id_="2", prompt='""')),
    ),
    # -- setup (§7)
    Row(
        "setup-not-object",
        "error",
        one('"setup": []'),
        [("/evals/0/setup", 0)],
        one('"setup": {"kind": "empty"}'),
    ),
    Row(
        "setup-kind-invalid",
        "error",
        one('"setup": {"kind": "Empty"}'),
        [("/evals/0/setup/kind", 0)],
        one('"setup": {"kind": "empty"}'),
    ),
    Row(
        "setup-kind-invalid",
        "error",
        one('"setup": {}'),
        [("/evals/0/setup", 0)],
        one('"setup": {"kind": "seeded", "sources": []}'),
    ),
    Row(
        "setup-sources-not-array",
        "error",
        one('"setup": {"kind": "seeded"}'),
        [("/evals/0/setup", 0)],
        one('"setup": {"kind": "empty", "sources": 3}'),
    ),
    Row(
        "setup-sources-not-array",
        "error",
        one('"setup": {"kind": "seeded", "sources": {}}'),
        [("/evals/0/setup/sources", 0)],
        one('"setup": {"kind": "seeded", "sources": []}'),
    ),
    Row(
        "setup-source-not-object",
        "error",
        one('"setup": {"kind": "seeded", "sources": [null, 1, true, []]}'),
        [
            ("/evals/0/setup/sources/0", 0),
            ("/evals/0/setup/sources/1", 0),
            ("/evals/0/setup/sources/2", 0),
            ("/evals/0/setup/sources/3", 0),
        ],
        one('"setup": {"kind": "seeded", "sources": [{"from": "a"}]}'),
    ),
    Row(
        "setup-source-from-required",
        "error",
        one('"setup": {"kind": "seeded", "sources": [{}, {"from": ""}]}'),
        [("/evals/0/setup/sources/0", 0), ("/evals/0/setup/sources/1/from", 0)],
        one('"setup": {"kind": "seeded", "sources": [{"from": " "}]}'),
    ),
    Row(
        "setup-source-to-type",
        "error",
        one('"setup": {"kind": "seeded", "sources": [{"from": "a", "to": null}]}'),
        [("/evals/0/setup/sources/0/to", 0)],
        one('"setup": {"kind": "seeded", "sources": [{"from": "a", "to": ""}]}'),
    ),
    Row(
        "setup-mount-mode-invalid",
        "error",
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": "FLATTEN"}'),
        [("/evals/0/setup/mountMode", 0)],
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": "preserve-path"}'),
    ),
    Row(
        "setup-mount-mode-invalid",
        "error",
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": null}'),
        [("/evals/0/setup/mountMode", 0)],
        one('"setup": {"kind": "empty", "mountMode": null}'),
    ),
    Row(
        "setup-fixture-not-object",
        "error",
        one('"setup": {"kind": "fixture"}'),
        [("/evals/0/setup", 0)],
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo", "source": "r"}}'),
    ),
    Row(
        "setup-fixture-not-object",
        "error",
        one('"setup": {"kind": "fixture", "fixture": "repo"}'),
        [("/evals/0/setup/fixture", 0)],
        one('"setup": {"kind": "seeded", "sources": [], "fixture": "repo"}'),
    ),
    Row(
        "setup-fixture-kind-invalid",
        "error",
        one('"setup": {"kind": "fixture", "fixture": {"source": "r"}}'),
        [("/evals/0/setup/fixture", 0)],
        one('"setup": {"kind": "fixture", "fixture": {"kind": "docs", "source": "r"}}'),
    ),
    Row(
        "setup-fixture-kind-invalid",
        "error",
        one('"setup": {"kind": "fixture", "fixture": {"kind": "git", "source": "r"}}'),
        [("/evals/0/setup/fixture/kind", 0)],
        one('"setup": {"kind": "fixture", "fixture": {"kind": "api", "source": "r"}}'),
    ),
    Row(
        "setup-fixture-source-required",
        "error",
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo"}}'),
        [("/evals/0/setup/fixture", 0)],
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo", "source": "x"}}'),
    ),
    Row(
        "setup-fixture-source-required",
        "error",
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo", "source": ""}}'),
        [("/evals/0/setup/fixture/source", 0)],
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo", "source": "x"}}'),
    ),
    Row(
        "setup-fixture-init-git-type",
        "error",
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo", "source": "x", "initGit": "yes"}}'),
        [("/evals/0/setup/fixture/initGit", 0)],
        one('"setup": {"kind": "fixture", "fixture": {"kind": "repo", "source": "x", "initGit": false}}'),
    ),
    Row(
        "sources-string-form",
        "warning",
        one('"setup": {"kind": "seeded", "sources": ["files/a", ""]}'),
        [("/evals/0/setup/sources/0", 0), ("/evals/0/setup/sources/1", 0)],
        one('"setup": {"kind": "seeded", "sources": [{"from": "files/a"}]}'),
    ),
    Row(
        "sources-object-form",
        "hint",
        one('"setup": {"kind": "seeded", "sources": [{"from": "a"}, {}]}'),
        [("/evals/0/setup/sources/0", 0), ("/evals/0/setup/sources/1", 0)],
        one('"setup": {"kind": "seeded", "sources": ["a"]}'),
    ),
    Row(
        "mount-mode-flatten",
        "warning",
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": "flatten"}'),
        [("/evals/0/setup/mountMode", 0)],
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": "flatten-contents"}'),
    ),
    Row(
        "mount-mode-flatten-contents",
        "hint",
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": "flatten-contents"}'),
        [("/evals/0/setup/mountMode", 0)],
        one('"setup": {"kind": "seeded", "sources": []}'),
    ),
    Row(
        "setup-key-unused",
        "hint",
        one('"setup": {"kind": "empty", "sources": [], "mountMode": "x", "fixture": 1}'),
        [("/evals/0/setup/sources", 0), ("/evals/0/setup/mountMode", 0), ("/evals/0/setup/fixture", 0)],
        one('"setup": {"kind": "seeded", "sources": [], "mountMode": "preserve-path"}'),
    ),
    Row(
        "sources-empty",
        "hint",
        one('"setup": {"kind": "seeded", "sources": []}'),
        [("/evals/0/setup/sources", 0)],
        one('"setup": {"kind": "seeded", "sources": [{"from": "a"}]}'),
    ),
    Row(
        "source-outside-evals",
        "warning",
        one(
            '"setup": {"kind": "seeded", "sources": [{"from": "../x", "to": "x"}, {"from": "/etc/hosts", '
            '"to": "h"}, '
            '{"from": "a/../../b", "to": "b"}]}'
        ),
        [
            ("/evals/0/setup/sources/0/from", 0),
            ("/evals/0/setup/sources/1/from", 0),
            ("/evals/0/setup/sources/2/from", 0),
        ],
        one('"setup": {"kind": "seeded", "sources": [{"from": "..env", "to": "env"}, {"from": "a/../b"}]}'),
    ),
    Row(
        "setup-destination-escapes",
        "warning",
        one(
            '"setup": {"kind": "seeded", "sources": [{"from": "a", "to": "../x"}, {"from": "../y"}, "/z", '
            '{"from": "b", "to": "..env"}]}, "files": ["../f"]'
        ),
        [
            ("/evals/0/setup/sources/0/to", 0),
            ("/evals/0/setup/sources/1/from", 0),
            ("/evals/0/setup/sources/2", 0),
            ("/evals/0/setup/sources/3/to", 0),
            ("/evals/0/files/0", 0),
        ],
        one(
            '"setup": {"kind": "seeded", "mountMode": "flatten-contents", "sources": [{"from": "../y"}, '
            '{"from": "a", "to": "."}]}, "files": ["a/b"]'
        ),
    ),
    # -- files (§8)
    Row("files-not-array", "error", one('"files": "files/a"'), [("/evals/0/files", 0)], one('"files": []')),
    Row(
        "files-item-type",
        "error",
        one('"files": [1, {"path": "a", "purpose": "p"}, "ok"]'),
        [("/evals/0/files/0", 0), ("/evals/0/files/1", 0)],
        one('"files": ["a", ""]'),
    ),
    Row("files-legacy", "hint", one('"files": ["files/a"]'), [("/evals/0/files", 0)], one('"files": []')),
    Row(
        "files-and-setup",
        "hint",
        one('"setup": {"kind": "empty"}, "files": ["a"]'),
        [("/evals/0/files", 0)],
        one('"files": ["a"]'),
    ),
    Row(
        "files-skill-root-relative",
        "hint",
        one('"files": ["evals/files/x"]'),
        [("/evals/0/files/0", 0)],
        one('"files": ["files/x"]'),
    ),
    # -- assertions (§9)
    Row(
        "assertions-not-array",
        "error",
        one('"assertions": "x"'),
        [("/evals/0/assertions", 0)],
        one('"assertions": []'),
    ),
    Row("assertion-empty", "error", assertions('""'), [(A0, 0)], assertions('" "')),
    Row("assertion-blank", "hint", assertions('" \\n"'), [(A0, 0)], assertions('"x"')),
    Row(
        "assertion-not-string-or-object",
        "error",
        assertions("null", "[]", "1", "true"),
        [(A0, 0), ("/evals/0/assertions/1", 0), ("/evals/0/assertions/2", 0), ("/evals/0/assertions/3", 0)],
        assertions('"claim"', '{"type": "json-valid", "path": "a.json"}'),
    ),
    Row(
        "script-type-invalid",
        "error",
        assertions('{"type": "File-Exists", "path": "a"}', '{"type": null}'),
        [(A0 + "/type", 0), ("/evals/0/assertions/1/type", 0)],
        assertions('{"type": "file-exists", "path": "a", "kind": "nonsense"}'),
    ),
    Row(
        "script-path-required",
        "error",
        assertions('{"type": "file-exists"}', '{"type": "json-valid", "path": ""}'),
        [(A0, 0), ("/evals/0/assertions/1/path", 0)],
        assertions('{"type": "json-valid", "path": " "}'),
    ),
    Row(
        "regex-pattern-required",
        "error",
        assertions(
            '{"type": "regex-match"}',
            '{"id": "o", "kind": "output", "method": "regex", "pattern": ""}',
            '{"id": "w", "kind": "workspace", "method": "file-contains", "path": "a", "pattern": 1}',
        ),
        [(A0, 0), ("/evals/0/assertions/1/pattern", 0), ("/evals/0/assertions/2/pattern", 0)],
        assertions('{"type": "regex-match", "pattern": " "}'),
    ),
    Row(
        "regex-flags-invalid",
        "error",
        assertions(
            '{"type": "regex-match", "pattern": "a", "flags": "x"}',
            '{"type": "regex-match", "pattern": "a", "flags": "gg"}',
            '{"id": "o", "kind": "output", "method": "regex", "pattern": "a", "flags": "uv"}',
        ),
        [(A0 + "/flags", 0), ("/evals/0/assertions/1/flags", 0), ("/evals/0/assertions/2/flags", 0)],
        assertions(
            '{"type": "regex-match", "pattern": "a", "flags": "dgimsuy"}',
            '{"type": "regex-match", "pattern": "", "flags": "x"}',
        ),
    ),
    Row(
        "regex-invalid",
        "error",
        assertions(
            '{"type": "regex-match", "pattern": "("}',
            '{"type": "regex-match", "pattern": "\\\\-", "flags": "u"}',
            '{"id": "w", "kind": "workspace", "method": "file-contains", "path": "a", "pattern": "(?P<n>x)"}',
        ),
        [(A0 + "/pattern", 0), ("/evals/0/assertions/1/pattern", 0), ("/evals/0/assertions/2/pattern", 0)],
        assertions(
            '{"type": "regex-match", "pattern": "\\\\-"}',
            '{"type": "regex-match", "pattern": "(?<n>x)\\\\k<n>"}',
        ),
    ),
    Row(
        "regex-flags-type",
        "error",
        assertions('{"type": "regex-match", "pattern": "a", "flags": null}'),
        [(A0 + "/flags", 0)],
        assertions('{"type": "regex-match", "pattern": "a", "flags": ""}'),
    ),
    Row(
        "regex-newer-syntax",
        "warning",
        assertions(
            '{"type": "regex-match", "pattern": "(?i:a)b"}',
            '{"id": "o", "kind": "output", "method": "regex", "pattern": "(?<y>a)|(?<y>b)"}',
        ),
        [(A0 + "/pattern", 0), ("/evals/0/assertions/1/pattern", 0)],
        assertions(
            '{"type": "regex-match", "pattern": "\\\\(?i:a\\\\)"}',
            '{"type": "regex-match", "pattern": "[(?i:]"}',
        ),
    ),
    Row(
        "regex-unchecked",
        "hint",
        assertions('{"type": "regex-match", "pattern": "' + "(" * 1000 + ")" * 1000 + '"}'),
        [(A0 + "/pattern", 0)],
        assertions('{"type": "regex-match", "pattern": "' + "(" * 100 + ")" * 100 + '"}'),
    ),
    Row(
        "regex-flag-g-ignored",
        "hint",
        assertions('{"type": "regex-match", "pattern": "a", "flags": "gi"}'),
        [(A0 + "/flags", 0)],
        assertions('{"type": "regex-match", "pattern": "a", "flags": "i"}'),
    ),
    Row(
        "regex-flag-y-anchors",
        "hint",
        assertions('{"id": "o", "kind": "output", "method": "regex", "pattern": "a", "flags": "y"}'),
        [(A0 + "/flags", 0)],
        assertions('{"type": "regex-match", "pattern": "a", "flags": "yy"}'),
    ),
    Row(
        "regex-target-invalid",
        "error",
        assertions(
            '{"type": "regex-match", "pattern": "a", "target": "greeting.txt"}',
            '{"type": "regex-match", "pattern": "a", "target": "assistant"}',
            '{"type": "regex-match", "pattern": "a", "target": {"path": "x"}}',
            '{"type": "regex-match", "pattern": "a", "target": null}',
        ),
        [
            (A0 + "/target", 0),
            ("/evals/0/assertions/1/target", 0),
            ("/evals/0/assertions/2/target", 0),
            ("/evals/0/assertions/3/target", 0),
        ],
        assertions(
            '{"type": "regex-match", "pattern": "a", "target": "assistant-text"}',
            '{"type": "regex-match", "pattern": "a", "target": {"file": "", "extra": 1}}',
        ),
    ),
    Row(
        "target-file-empty",
        "warning",
        assertions('{"type": "regex-match", "pattern": "a", "target": {"file": ""}}'),
        [(A0 + "/target/file", 0)],
        assertions('{"type": "regex-match", "pattern": "a", "target": {"file": "a"}}'),
    ),
    Row(
        "assertion-path-escapes",
        "warning",
        assertions(
            '{"type": "file-exists", "path": "../x"}',
            '{"type": "json-valid", "path": "/etc/x.json"}',
            '{"type": "regex-match", "pattern": "a", "target": {"file": "..env"}}',
            '{"id": "w", "kind": "workspace", "method": "json-valid", "path": "a/../../b"}',
        ),
        [
            (A0 + "/path", 0),
            ("/evals/0/assertions/1/path", 0),
            ("/evals/0/assertions/2/target/file", 0),
            ("/evals/0/assertions/3/path", 0),
        ],
        assertions('{"type": "file-exists", "path": "a/../b"}', '{"type": "file-exists", "path": "./x"}'),
    ),
    Row(
        "intent-kind-invalid",
        "error",
        assertions('{"text": "it greets"}', '{"kind": "x"}', '{"kind": null}'),
        [(A0, 0), ("/evals/0/assertions/1/kind", 0), ("/evals/0/assertions/2/kind", 0)],
        assertions('{"id": "o", "kind": "output", "method": "judge", "prompt": "p"}'),
    ),
    Row(
        "intent-id-required",
        "error",
        assertions(
            '{"kind": "output", "method": "judge"}', '{"id": "", "kind": "safety", "method": "custom"}'
        ),
        [(A0, 0), ("/evals/0/assertions/1/id", 0)],
        assertions('{"id": " ", "kind": "output", "method": "exact", "expected": ""}'),
    ),
    Row(
        "intent-must-pass-type",
        "error",
        assertions('{"id": "o", "kind": "output", "method": "exact", "expected": "", "mustPass": "true"}'),
        [(A0 + "/mustPass", 0)],
        assertions('{"id": "o", "kind": "output", "method": "exact", "expected": "", "mustPass": false}'),
    ),
    Row(
        "intent-severity-invalid",
        "error",
        assertions('{"id": "o", "kind": "output", "method": "exact", "expected": "", "severity": "warning"}'),
        [(A0 + "/severity", 0)],
        assertions('{"id": "o", "kind": "output", "method": "exact", "expected": "", "severity": "warn"}'),
    ),
    Row(
        "intent-method-invalid",
        "error",
        assertions('{"id": "o", "kind": "output"}', '{"id": "b", "kind": "behavior", "method": "judge"}'),
        [(A0, 0), ("/evals/0/assertions/1/method", 0)],
        assertions('{"id": "b", "kind": "behavior", "method": "command-forbidden", "value": "rm"}'),
    ),
    Row(
        "intent-judge-prompt-type",
        "error",
        assertions('{"id": "o", "kind": "output", "method": "judge", "prompt": null}'),
        [(A0 + "/prompt", 0)],
        assertions('{"id": "o", "kind": "output", "method": "regex", "pattern": "a", "prompt": null}'),
    ),
    Row(
        "intent-expected-required",
        "error",
        assertions(
            '{"id": "o", "kind": "output", "method": "exact"}',
            '{"id": "p", "kind": "output", "method": "exact", "expected": null}',
        ),
        [(A0, 0), ("/evals/0/assertions/1/expected", 0)],
        assertions('{"id": "o", "kind": "output", "method": "exact", "expected": ""}'),
    ),
    Row(
        "intent-path-required",
        "error",
        assertions(
            '{"id": "w", "kind": "workspace", "method": "file-exists"}',
            '{"id": "x", "kind": "workspace", "method": "nope", "path": ""}',
        ),
        [(A0, 0), ("/evals/0/assertions/1/path", 0)],
        assertions('{"id": "w", "kind": "workspace", "method": "snapshot-diff"}'),
    ),
    Row(
        "intent-value-type",
        "error",
        assertions('{"id": "b", "kind": "behavior", "method": "tool-call-required", "value": 1}'),
        [(A0 + "/value", 0)],
        assertions('{"id": "b", "kind": "behavior", "method": "tool-call-required", "value": ""}'),
    ),
    Row(
        "assertion-never-passes",
        "warning",
        assertions(
            '{"id": "b", "kind": "behavior", "method": "skill-read-required"}',
            '{"id": "s", "kind": "safety", "method": "custom"}',
            '{"id": "w", "kind": "workspace", "method": "snapshot-diff"}',
        ),
        [(A0 + "/kind", 0), ("/evals/0/assertions/1/kind", 0), ("/evals/0/assertions/2/method", 0)],
        assertions('{"id": "w", "kind": "workspace", "method": "file-exists", "path": "a"}'),
    ),
    Row(
        "judge-claim-ignored",
        "hint",
        assertions('{"id": "o", "kind": "output", "method": "judge", "claim": "c", "prompt": "p"}'),
        [(A0 + "/claim", 0)],
        assertions('{"id": "o", "kind": "output", "method": "regex", "pattern": "a", "claim": "c"}'),
    ),
    Row(
        "judge-prompt-missing",
        "hint",
        assertions('{"id": "o", "kind": "output", "method": "judge"}'),
        [(A0, 0)],
        assertions('{"id": "o", "kind": "output", "method": "judge", "expected": "e"}'),
    ),
    # -- metadata (§10)
    Row(
        "metadata-not-object",
        "error",
        one('"metadata": null'),
        [("/evals/0/metadata", 0)],
        one('"metadata": {}'),
    ),
    Row(
        "metadata-tags-type",
        "warning",
        suite(case('"metadata": {"tags": "x"}'), case('"metadata": {"tags": ["a", 1]}')),
        [("/evals/0/metadata/tags", 0), ("/evals/1/metadata/tags", 1)],
        one('"metadata": {"tags": []}'),
    ),
    Row(
        "metadata-difficulty-invalid",
        "warning",
        one('"metadata": {"difficulty": "Easy"}'),
        [("/evals/0/metadata/difficulty", 0)],
        one('"metadata": {"difficulty": "hard", "owner": 1}'),
    ),
    Row(
        "metadata-intent-type",
        "warning",
        one('"metadata": {"intent": null}'),
        [("/evals/0/metadata/intent", 0)],
        one('"metadata": {"intent": ""}'),
    ),
    Row(
        "metadata-environment-invalid",
        "warning",
        one(
            '"metadata": {"environment": {"workspace": {"kind": "x"}, "tools": [{"name": "git", '
            '"required": true, '
            '"mode": "fake"}], "envVars": [{"name": "T", "required": false, "secret": 1}], "network": {}}}'
        ),
        [
            ("/evals/0/metadata/environment/workspace", 0),
            ("/evals/0/metadata/environment/workspace/kind", 0),
            ("/evals/0/metadata/environment/tools/0/mode", 0),
            ("/evals/0/metadata/environment/envVars/0/secret", 0),
            ("/evals/0/metadata/environment/network", 0),
        ],
        one(
            '"metadata": {"environment": {"workspace": {"kind": "empty", "writable": true}, '
            '"git": {"required": false, "needsHistory": 1}, "network": {"mode": "mocked", '
            '"allowedHosts": 1}, '
            '"tools": [{"name": "git", "required": true, "mode": "shim"}], '
            '"envVars": [{"name": "T", "required": false, "secret": true}]}}'
        ),
    ),
    # -- sandbox (§11)
    Row(
        "sandbox-invalid",
        "warning",
        suite(case('"sandbox": "docker"'), case('"sandbox": null')),
        [("/evals/0/sandbox", 0), ("/evals/1/sandbox", 1)],
        one('"sandbox": "just-bash"'),
    ),
    Row(
        "sandbox-mock-invalid",
        "warning",
        one(
            '"sandbox": "just-bash", "sandboxMocks": [{"stdout": "x"}, 1, {"command": "git", '
            '"exitCode": "0", '
            '"files": [{"path": "a"}]}]'
        ),
        [
            ("/evals/0/sandboxMocks/0", 0),
            ("/evals/0/sandboxMocks/1", 0),
            ("/evals/0/sandboxMocks/2/exitCode", 0),
            ("/evals/0/sandboxMocks/2/files/0", 0),
        ],
        one(
            '"sandbox": "just-bash", "sandboxMocks": [{"command": "npm", "stdout": "", "stderr": "", '
            '"exitCode": 1, '
            '"files": [{"path": "/tmp/a", "content": ""}]}]'
        ),
    ),
    Row(
        "sandbox-mocks-unused",
        "hint",
        one('"sandboxMocks": [{"command": "npm"}]'),
        [("/evals/0/sandboxMocks", 0)],
        one('"sandbox": "none", "sandboxMocks": []'),
    ),
    Row(
        "sandbox-mock-duplicate",
        "hint",
        one(
            '"sandbox": "just-bash", "sandboxMocks": [{"command": "npm"}, {"command": "npm"}, '
            '{"command": "git"}]'
        ),
        [("/evals/0/sandboxMocks/1/command", 0)],
        one('"sandbox": "just-bash", "sandboxMocks": [{"command": "npm"}, {"command": "npx"}]'),
    ),
    Row(
        "sandbox-mock-command-spaces",
        "hint",
        one('"sandbox": "just-bash", "sandboxMocks": [{"command": "npm install"}]'),
        [("/evals/0/sandboxMocks/0/command", 0)],
        one('"sandbox": "just-bash", "sandboxMocks": [{"command": "npm"}]'),
    ),
    # -- produced by the pipeline for every contract (analysis.py)
    Row("json-invalid", "error", '\ufeff{"skill_name": "s", "evals": []}', [("", None)], one()),
    Row(
        "json-invalid",
        "error",
        '{"skill_name": "s", "evals": [{"id": NaN, "prompt": "p"}]}',
        [("", None)],
        one(),
    ),
    Row(
        "duplicate-key",
        "warning",
        suite('{"id": 1, "prompt": "", "prompt": "p"}'),
        [("/evals/0/prompt", None), ("/evals/0/prompt", None)],
        one(),
    ),
]

# Codes raised only with a file on disk: see test_evals_paths.py.
FILE_SYSTEM_CODES = {"path-not-found", "path-outside-repository", "not-discovered", "skill-name-mismatch"}
# Codes about the file rather than its content: tested below through FileText.
FILE_CODES = {"file-unreadable", "file-too-large", "encoding-replaced"}


@pytest.mark.parametrize("row", ROWS, ids=[f"{row.code}-{i}" for i, row in enumerate(ROWS)])
def test_code_raised_exactly_where_expected(row: Row) -> None:
    found = [(f.pointer, f.case) for f in findings_of(row.failing) if f.code == row.code]
    assert found == row.expected
    severities = {f.severity.word for f in findings_of(row.failing) if f.code == row.code}
    assert severities == {row.severity}


@pytest.mark.parametrize("row", ROWS, ids=[f"{row.code}-{i}" for i, row in enumerate(ROWS)])
def test_code_absent_from_the_passing_example(row: Row) -> None:
    assert row.code not in {f.code for f in findings_of(row.passing)}


def test_every_code_of_the_table_is_exercised() -> None:
    covered = {row.code for row in ROWS} | FILE_SYSTEM_CODES | FILE_CODES
    assert set(CODES) - covered == set()


def test_code_table_severities_follow_the_policy() -> None:
    # Loader issues are errors except the ones the spec allows (evals-json.md §14 inventory).
    downgraded = {code for code, (severity, loader) in CODES.items() if loader and severity.word != "error"}
    assert downgraded == oracle.SPEC_ALLOWED
    errors_beyond_loader = {
        code for code, (severity, loader) in CODES.items() if not loader and severity.word == "error"
    }
    assert errors_beyond_loader == set()


@pytest.mark.parametrize(
    ("file_text", "code", "severity"),
    [
        (FileText("", error="Permission denied"), "file-unreadable", "error"),
        (FileText("", too_large=True), "file-too-large", "warning"),
        (decode_bytes(b'{"skill_name": "s\xe9", "evals": []}'), "encoding-replaced", "information"),
    ],
)
def test_file_level_codes(file_text: FileText, code: str, severity: str) -> None:
    analysis = analyze(file_text.text, kind=EVALS, file_text=file_text)
    assert [(f.code, f.severity.word, f.case) for f in analysis.findings if f.code == code] == [
        (code, severity, None)
    ]
    clean = analyze(one(), kind=EVALS, file_text=decode_bytes(one().encode()))
    assert code not in {f.code for f in clean.findings}
