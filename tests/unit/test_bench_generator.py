"""The benchmark suite generator (bench/harness/generate.py) makes what the benchmarks claim to measure:
valid evals.json suites of the requested size, and planted violations at known ranges."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evalfix_ls.analysis import analyze
from evalfix_ls.findings import Severity
from evalfix_ls.parser import parse
from evalfix_ls.parser.tree import resolve_pointer
from evalfix_ls.workspace.view import FileSystemView

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `bench` is a top-level folder of the checkout, not an installed package
    sys.path.insert(0, str(ROOT))

from bench.harness.generate import (  # noqa: E402
    PLANTS,
    SIZES,
    generate_suite,
    lsp_position,
    parse_sizes,
    write_suite_tree,
)

SCHEMA = json.loads((ROOT / "schemas" / "evals.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def suite_200k():
    return generate_suite(SIZES["200k"])


def _assertions(data: dict[str, Any]) -> Iterator[Any]:
    for case in data["evals"]:
        yield from case.get("assertions", [])


@pytest.mark.parametrize("label", ["20k", "200k"])
def test_suite_has_the_requested_size_and_is_deterministic(label: str) -> None:
    target = SIZES[label]
    suite = generate_suite(target)
    # At least the target, overshooting by less than one case (cases are well under 8 KiB).
    assert target <= suite.size < target + 8 * 1024
    assert suite.size == len(suite.text.encode("utf-8"))
    assert generate_suite(target).text == suite.text
    assert generate_suite(target, seed=1).text != suite.text
    data = json.loads(suite.text)
    assert len(data["evals"]) == suite.case_count
    # The text is exactly what json.dumps prints, so offsets computed from it are real offsets.
    assert json.dumps(data, indent=2, ensure_ascii=False) + "\n" == suite.text


def test_suite_mixes_the_features_the_bench_promises(suite_200k) -> None:
    data = json.loads(suite_200k.text)
    assertions = list(_assertions(data))
    script_types = {a["type"] for a in assertions if isinstance(a, dict) and "type" in a}
    intent_kinds = {(a["kind"], a["method"]) for a in assertions if isinstance(a, dict) and "kind" in a}
    assert script_types == {"file-exists", "regex-match", "json-valid"}
    assert {kind for kind, _ in intent_kinds} >= {"output", "workspace"}
    assert {method for _, method in intent_kinds} >= {"judge", "regex", "exact", "file-contains"}
    assert any(isinstance(a, str) for a in assertions)
    targets = [a.get("target") for a in assertions if isinstance(a, dict) and a.get("type") == "regex-match"]
    assert "assistant-text" in targets and any(isinstance(t, dict) for t in targets)
    assert any(isinstance(a, dict) and a.get("flags") for a in assertions)
    setup_kinds = {case["setup"]["kind"] for case in data["evals"] if "setup" in case}
    assert setup_kinds == {"empty", "seeded", "fixture"}
    assert any("files" in case for case in data["evals"])
    assert any("environment" in case.get("metadata", {}) for case in data["evals"])
    assert any(isinstance(case["id"], int) for case in data["evals"])
    prompts = "".join(case["prompt"] for case in data["evals"])
    assert any("\u4e00" <= ch <= "\u9fff" for ch in prompts)  # CJK
    assert any(ord(ch) > 0xFFFF for ch in prompts)  # astral (emoji): two UTF-16 units


def test_clean_suite_is_valid(suite_200k, tmp_path: Path) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(suite_200k.text))
    path = write_suite_tree(tmp_path, suite_200k)
    analysis = analyze(suite_200k.text, path=path, repo_root=tmp_path, fs=FileSystemView())
    assert analysis.kind == "evals"
    errors = [f for f in analysis.findings if f.severity == Severity.ERROR]
    assert errors == []


def test_noisy_tree_names_files_that_are_missing(suite_200k, tmp_path: Path) -> None:
    """``sources=False`` (bench.traffic's noisy suites): the same suite, whose cases now name
    directories that are not there — findings the clean tree does not have."""
    clean = write_suite_tree(tmp_path / "clean", suite_200k)
    noisy = write_suite_tree(tmp_path / "noisy", suite_200k, sources=False)
    count = [
        len(analyze(suite_200k.text, path=path, repo_root=root, fs=FileSystemView()).findings)
        for path, root in ((clean, tmp_path / "clean"), (noisy, tmp_path / "noisy"))
    ]
    assert count[1] > count[0]


def test_planted_violations_sit_at_their_computed_ranges() -> None:
    suite = generate_suite(SIZES["20k"], planted=True)
    assert [p.code for p in suite.planted] == [plant.code for plant in PLANTS]
    assert len({int(p.pointer.split("/")[2]) for p in suite.planted}) == len(PLANTS)  # one per case
    root = parse(suite.text).root
    for planted in suite.planted:
        node = resolve_pointer(root, planted.pointer)
        assert node is not None, planted
        if planted.code == "prompt-required":  # missing member: the parent's opening brace
            assert (node.start, suite.text[planted.start : planted.end]) == (planted.start, "{")
        else:
            assert (node.start, node.end) == (planted.start, planted.end), planted
    # The case left for edits carries no violation, and its edit offset is inside its prompt.
    assert all(not p.pointer.startswith(f"/evals/{suite.edit_case}/") for p in suite.planted)
    prompt = resolve_pointer(root, f"/evals/{suite.edit_case}/prompt")
    assert prompt is not None and prompt.start + 1 == suite.edit_offset


def test_planted_ranges_are_the_anchors_the_analysis_reports(tmp_path: Path) -> None:
    # The LSP benchmark calls a diagnostic at exactly these ranges "exact"; the analysis (which
    # follows the spec's anchors) must agree, or that column would measure the generator.
    suite = generate_suite(SIZES["20k"], planted=True)
    path = write_suite_tree(tmp_path, suite)
    analysis = analyze(suite.text, path=path, repo_root=tmp_path, fs=FileSystemView())
    reported = {(f.code, int(f.severity), f.start, f.end) for f in analysis.findings}
    planted = {(p.code, p.severity, p.start, p.end) for p in suite.planted}
    assert planted <= reported
    errors = {(f.code, f.start, f.end) for f in analysis.findings if f.severity == Severity.ERROR}
    assert errors == {(p.code, p.start, p.end) for p in suite.planted if p.severity == Severity.ERROR}


def test_lsp_position_counts_utf16_units() -> None:
    text = '{\n  "a": "🎉x",\n  "b": 1\n}'
    assert lsp_position(text, text.index("x")) == (1, 10)  # the emoji is two UTF-16 units
    assert lsp_position(text, text.index('"b"')) == (2, 2)


def test_parse_sizes_rejects_unknown_labels() -> None:
    assert parse_sizes("20k, 2M") == ["20k", "2m"]
    with pytest.raises(ValueError, match="unknown size"):
        parse_sizes("20k,5m")
