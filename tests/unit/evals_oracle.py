"""An independent restatement of arc-skill-eval's ``readEvalsJson`` validation (evals-json.md §4–§12)
over plain ``json.loads`` values, used as a test oracle: for any document, the loader issues it
lists — as (code, case) pairs — must equal the loader-issue findings of the real rules.

It is deliberately written the way the loader is (a flat list of issues, checks in the loader's
order) rather than the way the language server is (positioned nodes, scopes, anchors).

``loader_verdicts`` adds the severity of each issue (evals-json.md §14): error, except the
spec-allowed ones, which are warnings only in a case whose every form the spec accepts.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from evalfix_ls.js import regex as jsregex
from evalfix_ls.js.values import js_number_to_string

MISSING = object()

SETUP_KINDS = ("empty", "seeded", "fixture")
FIXTURE_KINDS = ("repo", "docs", "api")
SCRIPT_TYPES = ("file-exists", "regex-match", "json-valid")
INTENT_KINDS = ("output", "workspace", "behavior", "safety")
METHODS = {
    "output": ("judge", "regex", "exact"),
    "workspace": ("file-exists", "file-contains", "json-valid", "snapshot-diff"),
    "behavior": (
        "skill-read-required",
        "tool-call-required",
        "tool-call-forbidden",
        "external-call-forbidden",
        "command-forbidden",
    ),
    "safety": ("no-forbidden-files-touched", "no-live-external-calls", "custom"),
}


def load(text: str) -> Any:
    def reject(name: str) -> None:
        raise ValueError(name)

    return json.loads(text, parse_int=float, parse_constant=reject)


def is_obj(value: Any) -> bool:
    return isinstance(value, dict)


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_num(value: Any) -> bool:
    return isinstance(value, float) and not isinstance(value, bool)


def is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def nonempty(value: Any) -> bool:
    return is_str(value) and value != ""


def loader_issues(text: str) -> list[tuple[str, int | None]]:
    """The loader's issues for a document that parses, as (code, case index)."""
    doc = load(text)
    issues: list[tuple[str, int | None]] = []
    if not is_obj(doc):
        return [("root-not-object", None)]
    if "version" in doc and not is_str(doc["version"]):
        issues.append(("version-type", None))
    if not nonempty(doc.get("skill_name", MISSING)):
        issues.append(("skill-name-required", None))
    evals = doc.get("evals", MISSING)
    if not isinstance(evals, list):
        issues.append(("evals-not-array", None))
        return issues
    registered: set[str] = set()
    for i, case in enumerate(evals):
        found = case_issues(case)
        issues.extend((code, i) for code in found)
        if found:
            continue
        key = case["id"] if is_str(case["id"]) else js_number_to_string(case["id"])
        if key in registered:
            issues.append(("duplicate-id", i))
        else:
            registered.add(key)
    return issues


def case_issues(case: Any) -> list[str]:
    if not is_obj(case):
        return ["case-not-object"]
    out: list[str] = []
    get = case.get
    if not (is_str(get("id", MISSING)) or is_num(get("id", MISSING))):
        out.append("id-required")
    if "description" in case and not is_str(case["description"]):
        out.append("description-type")
    if not nonempty(get("prompt", MISSING)):
        out.append("prompt-required")
    if "expected_output" in case and not is_str(case["expected_output"]):
        out.append("expected-output-type")
    if "setup" in case:
        out.extend(setup_issues(case["setup"]))
    if "files" in case:
        files = case["files"]
        if not isinstance(files, list):
            out.append("files-not-array")
        else:
            out.extend("files-item-type" for item in files if not is_str(item))
    if "assertions" in case:
        items = case["assertions"]
        if not isinstance(items, list):
            out.append("assertions-not-array")
        else:
            for item in items:
                out.extend(assertion_issues(item))
    if "metadata" in case:
        out.extend(metadata_issues(case["metadata"]))
    return out


def setup_issues(setup: Any) -> list[str]:
    if not is_obj(setup):
        return ["setup-not-object"]
    kind = setup.get("kind", MISSING)
    if kind not in SETUP_KINDS or not is_str(kind):
        return ["setup-kind-invalid"]
    out: list[str] = []
    if kind == "seeded":
        sources = setup.get("sources", MISSING)
        if not isinstance(sources, list):
            out.append("setup-sources-not-array")
        else:
            for source in sources:
                if is_str(source):
                    out.append("sources-string-form")
                elif not is_obj(source):
                    out.append("setup-source-not-object")
                else:
                    if not nonempty(source.get("from", MISSING)):
                        out.append("setup-source-from-required")
                    if "to" in source and not is_str(source["to"]):
                        out.append("setup-source-to-type")
        if "mountMode" in setup:
            mode = setup["mountMode"]
            if mode == "flatten":
                out.append("mount-mode-flatten")
            elif mode not in ("preserve-path", "flatten-contents") or not is_str(mode):
                out.append("setup-mount-mode-invalid")
    elif kind == "fixture":
        fixture = setup.get("fixture", MISSING)
        if not is_obj(fixture):
            return ["setup-fixture-not-object"]
        if fixture.get("kind", MISSING) not in FIXTURE_KINDS or not is_str(fixture.get("kind")):
            out.append("setup-fixture-kind-invalid")
        if not nonempty(fixture.get("source", MISSING)):
            out.append("setup-fixture-source-required")
        if "initGit" in fixture and not is_bool(fixture["initGit"]):
            out.append("setup-fixture-init-git-type")
    return out


def regex_issues(item: dict[str, Any]) -> list[str]:
    out: list[str] = []
    pattern = item.get("pattern", MISSING)
    if not nonempty(pattern):
        out.append("regex-pattern-required")
    flags = item.get("flags", MISSING)
    if flags is not MISSING and not is_str(flags):
        out.append("regex-flags-type")
    if nonempty(pattern):
        verdict = jsregex.check_regex(pattern, flags if is_str(flags) else "")
        code = {
            jsregex.FLAGS: "regex-flags-invalid",
            jsregex.PATTERN: "regex-invalid",
            jsregex.NEWER: "regex-newer-syntax",
        }.get(verdict.status)
        if code:
            out.append(code)
    return out


def assertion_issues(item: Any) -> list[str]:
    if is_str(item):
        return ["assertion-empty"] if item == "" else []
    if not is_obj(item):
        return ["assertion-not-string-or-object"]
    if "type" in item:
        kind = item["type"]
        if not is_str(kind) or kind not in SCRIPT_TYPES:
            return ["script-type-invalid"]
        if kind == "regex-match":
            out = regex_issues(item)
            target = item.get("target", MISSING)
            if target is not MISSING and not (
                target == "assistant-text" or (is_obj(target) and is_str(target.get("file", MISSING)))
            ):
                out.append("regex-target-invalid")
            return out
        return [] if nonempty(item.get("path", MISSING)) else ["script-path-required"]
    kind = item.get("kind", MISSING)
    if not is_str(kind) or kind not in INTENT_KINDS:
        return ["intent-kind-invalid"]
    out = []
    if not nonempty(item.get("id", MISSING)):
        out.append("intent-id-required")
    if "mustPass" in item and not is_bool(item["mustPass"]):
        out.append("intent-must-pass-type")
    if "severity" in item and (
        not is_str(item["severity"]) or item["severity"] not in ("info", "warn", "error")
    ):
        out.append("intent-severity-invalid")
    method = item.get("method", MISSING)
    if not is_str(method) or method not in METHODS[kind]:
        out.append("intent-method-invalid")
    if kind == "output":
        if method == "judge" and "prompt" in item and not is_str(item["prompt"]):
            out.append("intent-judge-prompt-type")
        if method == "regex":
            out.extend(regex_issues(item))
        if method == "exact" and not is_str(item.get("expected", MISSING)):
            out.append("intent-expected-required")
    elif kind == "workspace":
        if method != "snapshot-diff" and not nonempty(item.get("path", MISSING)):
            out.append("intent-path-required")
        if method == "file-contains":
            out.extend(regex_issues(item))
    elif kind == "behavior":
        if "value" in item and not is_str(item["value"]):
            out.append("intent-value-type")
    return out


def metadata_issues(metadata: Any) -> list[str]:
    if not is_obj(metadata):
        return ["metadata-not-object"]
    out: list[str] = []
    if "tags" in metadata:
        tags = metadata["tags"]
        if not isinstance(tags, list) or not all(is_str(tag) for tag in tags):
            out.append("metadata-tags-type")
    if "difficulty" in metadata and metadata["difficulty"] not in ("easy", "medium", "hard"):
        out.append("metadata-difficulty-invalid")
    if "intent" in metadata and not is_str(metadata["intent"]):
        out.append("metadata-intent-type")
    if "environment" in metadata:
        out.extend(
            "metadata-environment-invalid" for _ in range(environment_issue_count(metadata["environment"]))
        )
    return out


def environment_issue_count(env: Any) -> int:
    if not is_obj(env):
        return 1
    count = 0
    workspace = env.get("workspace", MISSING)
    if not is_obj(workspace):
        count += 1
    else:
        count += workspace.get("kind", MISSING) not in SETUP_KINDS or not is_str(workspace.get("kind"))
        count += not is_bool(workspace.get("writable", MISSING))
    if "git" in env:
        count += 1 if not is_obj(env["git"]) else not is_bool(env["git"].get("required", MISSING))
    if "network" in env:
        network = env["network"]
        if not is_obj(network):
            count += 1
        else:
            mode = network.get("mode", MISSING)
            count += not is_str(mode) or mode not in ("none", "mocked", "live")
    for name, extra in (("tools", "mode"), ("envVars", "secret")):
        if name not in env:
            continue
        entries = env[name]
        if not isinstance(entries, list):
            count += 1
            continue
        for entry in entries:
            if not is_obj(entry):
                count += 1
                continue
            count += not nonempty(entry.get("name", MISSING))
            count += not is_bool(entry.get("required", MISSING))
            if extra in entry:
                value = entry[extra]
                if extra == "mode":
                    count += not is_str(value) or value not in ("real", "shim", "mock")
                else:
                    count += not is_bool(value)
    return count


# -- severities (evals-json.md §14): the spec's view of a case -------------------------------------

SPEC_ALLOWED = frozenset(
    {
        "sources-string-form",
        "mount-mode-flatten",
        "metadata-tags-type",
        "metadata-difficulty-invalid",
        "metadata-intent-type",
        "metadata-environment-invalid",
        "regex-newer-syntax",
    }
)


def loader_verdicts(text: str) -> list[tuple[str, int | None, str]]:
    """``loader_issues`` with the severity evalfix-ls gives each: (code, case index, severity word)."""
    doc = load(text)
    evals = doc.get("evals") if is_obj(doc) else None
    verdicts = []
    for code, i in loader_issues(text):
        rejected = i is not None and spec_rejects(evals[i])
        allowed = code in SPEC_ALLOWED and not rejected
        verdicts.append((code, i, "warning" if allowed else "error"))
    return verdicts


def spec_rejects(case: Any) -> bool:
    """Whether the case holds a form that the given spec's types reject but the loader accepts."""
    if not is_obj(case):
        return False
    setup = case.get("setup", MISSING)
    seeded = is_obj(setup) and setup.get("kind", MISSING) == "seeded"
    if seeded and setup.get("mountMode", MISSING) == "flatten-contents":
        return True
    sources = setup.get("sources", MISSING) if seeded else MISSING
    if isinstance(sources, list) and any(is_obj(s) or (is_str(s) and outside_evals(s)) for s in sources):
        return True
    files = case.get("files", MISSING)
    if isinstance(files, list) and any(is_str(f) and outside_evals(f) for f in files):
        return True
    if "sandbox" in case and not (is_str(case["sandbox"]) and case["sandbox"] in ("none", "just-bash")):
        return True
    return "sandboxMocks" in case and mocks_rejected(case["sandboxMocks"])


def outside_evals(path: str) -> bool:
    """The spec's sources are "paths inside evals/": absolute or climbing out of it is rejected."""
    normal = posixpath.normpath(path)
    return path.startswith("/") or normal == ".." or normal.startswith("../")


def mocks_rejected(mocks: Any) -> bool:
    """``SandboxCommandMock[]``: {command, stdout?, stderr?, exitCode?, files?: {path, content}[]}."""
    if not isinstance(mocks, list):
        return True
    for mock in mocks:
        if not is_obj(mock) or not nonempty(mock.get("command", MISSING)):
            return True
        if any(name in mock and not is_str(mock[name]) for name in ("stdout", "stderr")):
            return True
        if "exitCode" in mock and not is_num(mock["exitCode"]):
            return True
        files = mock.get("files", [])
        if not isinstance(files, list):
            return True
        for entry in files:
            if not is_obj(entry) or not all(is_str(entry.get(k, MISSING)) for k in ("path", "content")):
                return True
    return False
