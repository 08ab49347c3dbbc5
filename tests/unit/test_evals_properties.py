"""Property tests for the evals.json contract.

* Loader parity: for generated suites (valid, near-miss and junk values in every field), the loader
  issues the rules report — as a multiset of (code, case, severity) — equal those of an independent
  restatement of the loader (``evals_oracle``), the severity included: a spec-allowed loader issue is
  an error exactly when its case also holds a form the spec rejects (evals-json.md §14).
* The schema accepts every suite the rules find no error in.
* Robustness: random JSON and mutated suites never raise, and every range lies inside the text.
"""

from __future__ import annotations

import json
from collections import Counter

import evals_oracle as oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from property_budget import examples

from evalfix_ls import schema
from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.detection import EVALS
from evalfix_ls.contracts.evals.report import CODES

SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["", " ", "x", "a b", "é😀"]),
)
junk = st.one_of(
    scalars,
    st.lists(scalars, max_size=2),
    st.dictionaries(st.sampled_from(["a", "kind", "type"]), scalars, max_size=2),
)


def opt(**members: st.SearchStrategy) -> st.SearchStrategy:
    """An object whose members are each present or absent."""
    return st.fixed_dictionaries({}, optional=members)


def pick(*values: object) -> st.SearchStrategy:
    return st.sampled_from(values)


def mostly(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """``strategy`` four times out of five, else junk (``one_of`` would pick evenly; an integer draw
    shrinks towards 0, so shrinking also moves towards the structured value)."""
    return st.integers(0, 4).flatmap(lambda roll: junk if roll == 4 else strategy)


strings = pick("", " ", "x", "files/a", "../x", "/abs", "evals/files/x", "..env")
half_junk = st.one_of(strings, junk)
patterns = mostly(pick("a", "(", "\\-", "(?i:a)", "(?<y>a)|(?<y>b)", "", "[", "\\d+", "\\k<n>"))
flags = st.one_of(pick("", "i", "u", "x", "gg", "uv", "gy", "dgimsy"), junk)
targets = mostly(st.one_of(pick("assistant-text", "greeting.txt"), opt(file=mostly(strings))))
sources = mostly(
    st.one_of(st.fixed_dictionaries({"from": mostly(strings)}, optional={"to": half_junk}), strings)
)
fixtures = mostly(
    opt(
        kind=mostly(pick("repo", "docs", "api", "git")), source=mostly(strings), initGit=mostly(st.booleans())
    )
)
setups = mostly(
    pick("seeded", "fixture", "empty", "Empty").flatmap(
        lambda kind: st.fixed_dictionaries(
            {
                "kind": st.just(kind),
                "sources": mostly(st.lists(sources, min_size=1, max_size=3)),
                "fixture": fixtures,
            },
            optional={"mountMode": mostly(pick("preserve-path", "flatten-contents", "flatten", "FLATTEN"))},
        )
    )
)
kinds_and_methods = st.sampled_from(
    [(kind, method) for kind, methods in oracle.METHODS.items() for method in methods]
    + [("workspace", "exists"), ("x", "judge"), ("output", "file-exists")]
)
script_assertions = st.fixed_dictionaries(
    {"type": mostly(pick("regex-match", "file-exists", "json-valid", "File-Exists")), "pattern": patterns},
    optional={"path": mostly(strings), "flags": flags, "target": targets},
)
intent_assertions = st.builds(
    lambda kind_method, required, rest: {
        "kind": kind_method[0],
        "method": kind_method[1],
        **required,
        **rest,
    },
    kinds_and_methods,
    st.fixed_dictionaries(
        {"id": mostly(pick("a", "", " ")), "pattern": patterns, "prompt": half_junk, "value": half_junk}
    ),
    opt(
        kind=junk,
        method=junk,
        mustPass=st.one_of(st.booleans(), junk),
        severity=st.one_of(pick("info", "warn", "error", "warning"), junk),
        expected=half_junk,
        flags=st.one_of(pick("", "i", "x", "gg", "uv", "gy"), junk),
        path=mostly(strings),
        text=strings,
        claim=strings,
    ),
)
assertion_items = st.one_of(
    pick("", " ", "The reply greets"),
    script_assertions,
    script_assertions,
    intent_assertions,
    intent_assertions,
    junk,
)
entries = mostly(
    opt(
        name=mostly(pick("git", "")),
        required=mostly(st.booleans()),
        mode=mostly(pick("real", "fake")),
        secret=mostly(st.booleans()),
    )
)
environments = mostly(
    opt(
        workspace=mostly(opt(kind=mostly(pick("empty", "seeded", "x")), writable=mostly(st.booleans()))),
        git=mostly(opt(required=mostly(st.booleans()))),
        network=mostly(opt(mode=mostly(pick("none", "mocked", "live", "x")))),
        tools=mostly(st.lists(entries, max_size=2)),
        envVars=mostly(st.lists(entries, max_size=2)),
    )
)
metadata = mostly(
    opt(
        tags=mostly(st.lists(mostly(strings), max_size=2)),
        difficulty=mostly(pick("easy", "hard", "Easy")),
        intent=mostly(strings),
        environment=environments,
    )
)
ids = mostly(pick(1, "1", 1.0, 0, -0.0, "a", "A", "a b", "", 1e300, "case-1"))
cases = mostly(
    st.fixed_dictionaries(
        {"id": ids, "prompt": mostly(pick("Say hi 😀", " ", ""))},
        optional={
            "description": mostly(strings),
            "expected_output": mostly(strings),
            "setup": setups,
            "files": mostly(st.lists(mostly(strings), max_size=3)),
            "assertions": mostly(st.lists(assertion_items, min_size=1, max_size=6)),
            "metadata": metadata,
            "sandbox": mostly(pick("none", "just-bash", "docker")),
            "sandboxMocks": mostly(st.lists(mostly(opt(command=mostly(pick("npm", "npm i")), stdout=junk)))),
            "expectations": junk,
        },
    )
)
documents = mostly(
    st.fixed_dictionaries(
        {"skill_name": mostly(pick("demo", "")), "evals": mostly(st.lists(cases, min_size=1, max_size=6))},
        optional={"version": mostly(pick("1", "")), "notes": junk},
    )
)


def loader_findings(text: str) -> Counter[tuple[str, int | None, str]]:
    found = analyze(text, kind=EVALS).findings
    return Counter((f.code, f.case, f.severity.word) for f in found if f.code in CODES and CODES[f.code][1])


@SETTINGS
@given(documents)
def test_loader_issue_multiset_matches_the_oracle(doc: object) -> None:
    text = json.dumps(doc, ensure_ascii=False)
    assert loader_findings(text) == Counter(oracle.loader_verdicts(text))


# Clean cases with ids from a small pool: most documents hold a duplicate the loader registers
# (a junk-heavy case stops before its id is registered, so ``documents`` rarely reaches the rule).
clean_cases = st.fixed_dictionaries(
    {"id": pick(1, "1", 1.0, "a", "b", -0.0, 0), "prompt": pick("Say hi 😀", "p")},
    optional={"assertions": st.lists(pick("judged", {"type": "file-exists", "path": "out.txt"}), max_size=2)},
)
clean_documents = st.fixed_dictionaries(
    {"skill_name": st.just("demo"), "evals": st.lists(clean_cases, min_size=2, max_size=6)}
)


@SETTINGS
@given(clean_documents)
def test_duplicate_ids_match_the_oracle(doc: object) -> None:
    text = json.dumps(doc, ensure_ascii=False)
    expected = Counter(oracle.loader_verdicts(text))
    assert loader_findings(text) == expected
    keys = [oracle_id_key(case["id"]) for case in doc["evals"]]  # type: ignore[index]
    duplicates = len(keys) - len(set(keys))
    assert sum(n for (code, _, _), n in expected.items() if code == "duplicate-id") == duplicates


def oracle_id_key(value: object) -> str:
    """JavaScript's ``String(id)`` for the ids drawn above (1.0 → "1", -0 → "0")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _single_case(members: dict[str, object]) -> str:
    return json.dumps(
        {"skill_name": "demo", "evals": [{"id": "c", "prompt": "p", **members}]}, ensure_ascii=False
    )


@SETTINGS
@given(st.lists(assertion_items, min_size=1, max_size=8))
def test_assertion_issues_match_the_oracle(items: list[object]) -> None:
    text = _single_case({"assertions": items})
    assert loader_findings(text) == Counter(oracle.loader_verdicts(text))


@SETTINGS
@given(setups, st.one_of(st.lists(mostly(strings), max_size=3), junk), metadata)
def test_setup_files_and_metadata_issues_match_the_oracle(setup: object, files: object, meta: object) -> None:
    text = _single_case({"setup": setup, "files": files, "metadata": meta})
    assert loader_findings(text) == Counter(oracle.loader_verdicts(text))


# Cases built to mix the spec-only forms (string sources, `flatten`, typed metadata, newer regexes)
# with the loader-only and spec-rejected ones (object sources, `flatten-contents`, sandbox values,
# mocks, paths outside evals/), each present or not, so every combination and its mirror comes up.
verdict_sources = st.lists(
    st.one_of(
        pick("files/a", "../shared/a", "/abs/a"), opt(**{"from": pick("files/b", "../b"), "to": pick("x")})
    ),
    min_size=1,
    max_size=3,
)
verdict_cases = st.fixed_dictionaries(
    {"id": st.builds(str, st.integers(0, 3)), "prompt": st.just("p")},
    optional={
        "setup": st.builds(
            lambda sources, mode: {"kind": "seeded", "sources": sources, **mode},
            verdict_sources,
            opt(mountMode=pick("flatten", "flatten-contents", "preserve-path", "x")),
        ),
        "files": st.lists(pick("files/a", "../a"), max_size=2),
        "metadata": opt(difficulty=pick("Easy", "easy"), tags=pick("t", ["t"]), intent=pick(1, "i")),
        "assertions": st.lists(
            st.fixed_dictionaries({"type": st.just("regex-match"), "pattern": pick("(?i:a)", "a", "(")}),
            max_size=2,
        ),
        "sandbox": pick("none", "just-bash", "docker", None),
        "sandboxMocks": st.lists(opt(command=pick("npm", ""), exitCode=pick(0, "0")), max_size=2),
    },
)


@SETTINGS
@given(st.lists(verdict_cases, min_size=1, max_size=3))
def test_neither_accepts_verdicts_match_the_oracle(items: list[object]) -> None:
    text = json.dumps({"skill_name": "demo", "evals": items}, ensure_ascii=False)
    assert loader_findings(text) == Counter(oracle.loader_verdicts(text))


_VALIDATOR = Draft202012Validator(schema.load(schema.EVALS_SCHEMA))


@SETTINGS
@given(documents)
def test_schema_accepts_every_suite_without_errors(doc: object) -> None:
    text = json.dumps(doc, ensure_ascii=False)
    has_error = any(f.severity.word == "error" for f in analyze(text, kind=EVALS).findings)
    if not has_error:
        assert list(_VALIDATOR.iter_errors(json.loads(text))) == []


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False), st.integers(), st.text(max_size=8)),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "prompt", "evals", "setup", "kind", "type", "x"]), children, max_size=4
        )
    ),
    max_leaves=30,
)


def assert_ranges_inside(text: str) -> None:
    analysis = analyze(text, kind=EVALS)
    for finding in analysis.findings:
        assert 0 <= finding.start <= finding.end <= len(text), finding


@SETTINGS
@given(json_values)
def test_random_json_never_raises(value: object) -> None:
    assert_ranges_inside(json.dumps(value))


@SETTINGS
@given(documents, st.data())
def test_mutated_suites_never_raise(doc: object, data: st.DataObject) -> None:
    text = json.dumps(doc, ensure_ascii=False)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        action = data.draw(pick("insert", "delete", "replace"))
        piece = data.draw(
            st.sampled_from(['"', "{", "}", "[", "]", ",", ":", "\\", "\n", "😀", "NaN", "\ufeff"])
        )
        if action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    assert_ranges_inside(text)
