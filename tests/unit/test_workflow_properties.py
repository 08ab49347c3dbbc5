"""Property tests: mutated fixtures — the real corpus files when ``../shared/corpus`` is present,
synthetic ones otherwise — never raise, produce in-range findings, and match the reference
(transliterated in ``workflow_oracle``) on the multiset of (error code, case)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import CORPUS, materialize
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples
from workflow_oracle import reference_errors
from workflow_support import BASE, EXISTING, make_repo

from evalfix_ls.analysis import analyze
from evalfix_ls.contracts.workflow.normalize import normalize_file
from evalfix_ls.findings import Severity
from evalfix_ls.parser.tree import resolve_pointer
from evalfix_ls.workspace.view import FileSystemView

CORPUS_FILES = CORPUS / "spec-first"
# Runs everywhere on synthetic payloads; where ../shared exists its fixtures are the payloads
# (so .ci/run's conformance pass runs it again with them).
pytestmark = pytest.mark.corpus_extra
FILE_LEVEL = {"invalid_json", "fixture_unreadable"}

TRICKY_STRINGS = [
    "",
    " ",
    "\ufeff",
    "\u001f",
    "\u0085",
    "\u00a0",
    "\u200b",
    "trigger",
    "boundary",
    "failure",
    "expected",
    "Trigger",
    "failure\n",
    "routing",
    "x",
    "中文名称",
    "!!!",
    "source",
    "historical",
    "advisory",
    "Source",
    "skills/demo/SKILL.md",
    "skills/demo/SKILL.md/",
    "skills/demo/SKILL.md#a#b",
    "skills/demo/",
    "docs/plans/plan.md",
    "docs/plans/nope.md",
    ".claude/skills/demo/SKILL.md",
    "./docs/plans/plan.md",
    "/abs",
    "#frag",
    "https://x",
    "HTTPS://x",
    "C:/x.md",
    "a\\b",
    "..",
    "../",
    "../..",
    "skills/../..",
    "../x.md",
    "docs/plans/../../x.md",
    ".",
    "./",
    "skills//demo/SKILL.md",
    "..#a",
    "../x\u0000",
    "toString",
    "case-1",
    "plan-request",
]
MEMBER_NAMES = [
    "id",
    "name",
    "input",
    "user_intent",
    "input_shape",
    "intent",
    "expected_outcome",
    "expected",
    "expected_posture",
    "expected_signal",
    "expected_decision",
    "expected_failure",
    "expected_output",
    "expected_next_action",
    "coverage_tags",
    "source_refs",
    "source_ref_authority",
    "boundary_note",
    "forbidden_signals",
    "negative_signal",
    "extensions",
    "skill",
    "cases",
    "examples",
    "schema_version",
    "toString",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-3, max_value=3)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.sampled_from(TRICKY_STRINGS)
    | st.text(max_size=6)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(MEMBER_NAMES), children, max_size=3)
    ),
    max_leaves=8,
)


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every dict and list inside ``value`` (the root included)."""
    found = []
    stack = [(value, path)]
    while stack:
        current, at = stack.pop()
        if isinstance(current, dict):
            found.append(at)
            stack.extend((child, (*at, key)) for key, child in current.items())
        elif isinstance(current, list):
            found.append(at)
            stack.extend((child, (*at, index)) for index, child in enumerate(current))
    return found


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    payload = copy.deepcopy(base)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        containers = _containers(payload)
        if not containers:
            return draw(json_values)
        target = _at(payload, draw(st.sampled_from(sorted(containers, key=str))))
        new_value = draw(json_values)
        if isinstance(target, dict):
            key = draw(
                st.sampled_from(sorted(target) + MEMBER_NAMES) if target else st.sampled_from(MEMBER_NAMES)
            )
            if draw(st.booleans()) and key in target:
                del target[key]
            else:
                target[key] = new_value
        elif target:
            index = draw(st.integers(min_value=0, max_value=len(target) - 1))
            target[index] = new_value
        else:
            target.append(new_value)
    return payload


def corpus_payloads() -> list[tuple[str, Any]]:
    files = sorted((CORPUS_FILES / "skills").rglob("*.json")) if CORPUS_FILES.is_dir() else []
    chosen = [path for path in files if path.stat().st_size < 40_000]
    return [
        (path.relative_to(CORPUS_FILES).as_posix(), json.loads(path.read_text(encoding="utf-8")))
        for path in chosen
    ]


SYNTHETIC = [
    ("skills/demo/evals/cases.json", BASE),
    (
        "skills/demo/evals/legacy.json",
        {
            "schema_version": "prompt-examples/v1",
            "skill": "demo",
            "source_refs": ["skills/demo/SKILL.md"],
            "coverage_tags": ["routing"],
            "examples": [
                {
                    "name": "A Case",
                    "user_intent": "u",
                    "expected_posture": "p",
                    "coverage_tags": ["boundary"],
                },
                {
                    "id": "b",
                    "input_shape": "s",
                    "expected_decision": "",
                    "expected_next_action": "n",
                    "coverage_tags": ["trigger"],
                },
            ],
        },
    ),
]
PAYLOADS = corpus_payloads() or SYNTHETIC


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    if CORPUS_FILES.is_dir():
        materialize(CORPUS_FILES, root)
        (root / ".git").mkdir()
        for rel in EXISTING:  # the synthetic refs too, so both kinds of base resolve
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).touch()
        return root
    return make_repo(root)


def check_invariants(text: str, rel: str, repo: Path) -> list:
    analysis = analyze(text, path=repo / rel, repo_root=repo, fs=FileSystemView(), workspace=None)
    tree = analysis.tree
    cases = normalize_file(tree.root, rel).cases if tree is not None and not tree.errors else []
    for finding in analysis.findings:
        assert 0 <= finding.start <= finding.end <= len(text), finding
        if not tree.errors:  # a recovered tree may lack the value of a member it reports on
            assert resolve_pointer(tree.root, finding.pointer) is not None, finding
        if finding.case is not None:
            assert 0 <= finding.case < len(cases), finding
    file_level = [f for f in analysis.findings if f.code in FILE_LEVEL]
    if file_level:
        assert [f for f in analysis.findings if f.severity == Severity.ERROR] == file_level
    return analysis.findings


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_mutations_match_the_reference(repo: Path, data: st.DataObject) -> None:
    rel, base = data.draw(st.sampled_from(PAYLOADS))
    payload = data.draw(mutated(base))
    text = json.dumps(payload, ensure_ascii=False, indent=1)
    findings = check_invariants(text, rel, repo)
    ours = Counter((f.code, f.case) for f in findings if f.severity == Severity.ERROR)
    assert ours == Counter(reference_errors(text, rel, repo))


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_text_damage_never_raises(repo: Path, data: st.DataObject) -> None:
    """Cut, splice or insert characters anywhere: invalid JSON is one error, never an exception."""
    rel, base = data.draw(st.sampled_from(PAYLOADS))
    text = json.dumps(base, ensure_ascii=False, indent=1)
    at = data.draw(st.integers(min_value=0, max_value=len(text)))
    cut = data.draw(st.integers(min_value=0, max_value=20))
    insert = data.draw(st.sampled_from(["", ",", "}", "]", '"', "null", "\ufeff", "NaN", "//", "\n"]))
    damaged = text[:at] + insert + text[at + cut :]
    findings = check_invariants(damaged, rel, repo)
    ours = Counter((f.code, f.case) for f in findings if f.severity == Severity.ERROR)
    assert ours == Counter(reference_errors(damaged, rel, repo))


@pytest.mark.parametrize(("rel", "payload"), PAYLOADS, ids=[rel for rel, _ in PAYLOADS])
def test_unmutated_files_match_the_reference(repo: Path, rel: str, payload: Any) -> None:
    text = json.dumps(payload, ensure_ascii=False, indent=1)
    ours = Counter(
        (f.code, f.case) for f in check_invariants(text, rel, repo) if f.severity == Severity.ERROR
    )
    assert ours == Counter(reference_errors(text, rel, repo)) == Counter()
