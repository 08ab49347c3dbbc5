"""Property test across files (workflow-fixtures.md §7): a repository of a few fixture files, checked
as ``--check`` does, gets per file the (error code, case) multiset the oracle gives when every file
is validated in one call in batch order — so ``duplicate_case_id`` lands on the later file in UTF-16
code-unit order, with declared, inferred, falsy and non-string skills, ``name`` slugs and ``case-N``
ids, and files that cannot be normalized (they contribute no ids)."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import workflow_oracle as oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples
from workflow_support import make_repo

from evalfix_ls.batch.run import check_paths
from evalfix_ls.findings import Severity

# Names whose order differs between code points and UTF-16 code units (U+FFFF vs an emoji), and
# the orderings of §7 ("-" < "." < digits < uppercase < "_" < lowercase, sub-folders).
PATHS = [
    "skills/demo/evals/a.json",
    "skills/demo/evals/examples-2.json",
    "skills/demo/evals/examples.json",
    "skills/demo/evals/sub/x.json",
    "skills/demo/evals/\uffff.json",
    "skills/demo/evals/\U0001f600.json",
    "skills/demo/evals/_x.json",
    "skills/demo/evals/B.json",
    "skills/demo/docs/evals/y.json",
    "skills/other/evals/x.json",
    "skills/evals/x.json",
]
ids = st.sampled_from(["a", "b", "case-1", "case-2", "A", "", " ", 5, None])
names = st.sampled_from(["A", "a", "Case 1", "!!!", "中文", "", 3, None])
skills = st.sampled_from(["demo", "other", "evals", "Demo", "null", "5", "", None, False, 0, 5, ["demo"]])
cases = st.fixed_dictionaries(
    {
        "input": st.just("i"),
        "coverage_tags": st.just(["failure"]),
        "source_refs": st.just(["skills/demo/SKILL.md"]),
    },
    optional={"id": ids, "name": names},
)
payloads = st.fixed_dictionaries(
    {"schema_version": st.just("spec-first.workflow-eval-fixtures.v1")}, optional={"skill": skills}
).flatmap(
    lambda top: st.lists(cases | st.none() | st.just("x"), max_size=3).map(lambda c: {**top, "cases": c})
)
repositories = st.dictionaries(st.sampled_from(PATHS), payloads, min_size=1, max_size=4)


def utf16(rel: str) -> bytes:
    return rel.encode("utf-16-be", "surrogatepass")


def reference(files: dict[str, Any], root: Path) -> dict[str, Counter[tuple[str, int | None]]] | None:
    """The oracle's verdicts per file, all files validated together in batch order; None when the
    validation throws (``String()`` of a skill object: the contract test crashes)."""
    expected: dict[str, Counter[tuple[str, int | None]]] = {}
    batch = []
    for rel in sorted(files, key=utf16):
        try:
            batch.append((rel, oracle.normalize(files[rel], rel)))
        except oracle.Throws:
            expected[rel] = Counter([("fixture_unreadable", None)])
    try:
        found = oracle.validate(batch, root)
    except oracle.Throws:
        return None
    return expected | {rel: Counter(pairs) for rel, pairs in found.items()}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=repositories)
def test_duplicates_across_files_match_the_reference(files: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(
            Path(tmp) / "repo", {rel: json.dumps(p, ensure_ascii=False) for rel, p in files.items()}
        )
        ours = {
            file.path.relative_to(repo).as_posix(): Counter(
                (f.code, f.case) for f in file.analysis.findings if f.severity == Severity.ERROR
            )
            for file in check_paths([repo], root=repo).files
        }
        expected = reference(files, repo)
        if expected is not None:
            assert ours == expected
