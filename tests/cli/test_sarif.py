"""`--check --format sarif`: valid against the OASIS SARIF 2.1.0 schema (vendored) and Microsoft's
SARIF Multitool, with exact UTF-16 regions, rule metadata and stable fingerprints."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from sarif_support import SUITE, make_repo

from evalfix_ls import __version__
from evalfix_ls.batch.format_sarif import to_sarif
from evalfix_ls.batch.run import check_paths
from evalfix_ls.contracts.codes import ALL_CODES
from evalfix_ls.contracts.rule_docs import RULE_DOCS

ROOT = Path(__file__).resolve().parents[2]
OASIS_SCHEMA = ROOT / "tests/vendor/sarif/sarif-schema-2.1.0.json"
MULTITOOL = (
    ROOT / "tests/.cache/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
)
# Multitool rules that report missing tool or rule metadata (the "none of its warnings").
METADATA_RULES = {"SARIF2005", "SARIF2012", "GH2012"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def sarif_of(repo: Path) -> dict[str, Any]:
    return to_sarif(check_paths([repo], root=repo), __version__)


def results_by_rule(log: dict[str, Any], rule_id: str) -> list[dict[str, Any]]:
    return [r for r in log["runs"][0]["results"] if r["ruleId"] == rule_id]


def utf16_column(line: str, needle: str) -> int:
    """1-based UTF-16 column of ``needle`` in ``line``, computed independently of the server."""
    return len(line[: line.index(needle)].encode("utf-16-le")) // 2 + 1


def test_valid_against_the_oasis_schema(repo: Path) -> None:
    schema = json.loads(OASIS_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    log = sarif_of(repo)
    assert log["runs"][0]["results"], "the fixture repository must produce findings"
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_the_schema_check_catches_a_broken_log(repo: Path) -> None:
    schema = json.loads(OASIS_SCHEMA.read_text(encoding="utf-8"))
    log = sarif_of(repo)
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    del broken["runs"][0]["tool"]["driver"]["name"]
    messages = [e.message for e in jsonschema.Draft4Validator(schema).iter_errors(broken)]
    assert any("'fatal' is not one of" in m for m in messages)
    assert any("'name' is a required property" in m for m in messages)


def test_region_is_one_based_utf16_with_the_end(repo: Path) -> None:
    log = sarif_of(repo)
    run = log["runs"][0]
    assert run["columnKind"] == "utf16CodeUnits"
    [kind] = results_by_rule(log, "setup-kind-invalid")
    line = SUITE.splitlines()[2]
    start = utf16_column(line, '"Seeded"')
    location = kind["locations"][0]["physicalLocation"]
    assert location["region"] == {"startLine": 3, "startColumn": start, "endLine": 3, "endColumn": start + 8}
    assert location["artifactLocation"] == {
        "uri": "skills/d%C3%A9mo%20%E6%BC%94%E7%A4%BA/evals/evals.json",
        "uriBaseId": "SRCROOT",
    }
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.as_uri() + "/"
    assert kind["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "/evals/1/setup/kind", "kind": "member"}
    ]
    assert kind["level"] == "error"


def test_related_findings_become_related_locations(repo: Path) -> None:
    log = sarif_of(repo)
    [dup] = results_by_rule(log, "duplicate-id")
    [related] = dup["relatedLocations"]
    line = SUITE.splitlines()[1]
    col = utf16_column(line, '"a"')
    assert related["physicalLocation"]["region"] == {
        "startLine": 2,
        "startColumn": col,
        "endLine": 2,
        "endColumn": col + 3,
    }
    [cross] = results_by_rule(log, "duplicate_case_id")
    assert cross["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "skills/flow/evals/b.json"
    [other] = cross["relatedLocations"]
    assert other["physicalLocation"]["artifactLocation"]["uri"] == "skills/flow/evals/a.json"
    text = (repo / "skills/flow/evals/a.json").read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(text, start=1) if '"same"' in line)
    assert other["physicalLocation"]["region"]["startLine"] == number
    assert other["message"]["text"] == "first occurrence of flow:same"


def test_one_rule_per_code_used_with_help(repo: Path) -> None:
    log = sarif_of(repo)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "evalfix-ls" and driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    used = sorted({r["ruleId"] for r in log["runs"][0]["results"]})
    assert [rule["id"] for rule in driver["rules"]] == used
    for result in log["runs"][0]["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    for rule in driver["rules"]:
        code = rule["id"]
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert RULE_DOCS[code].fix in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] == {1: "error", 2: "warning"}.get(
            ALL_CODES[code], "note"
        )


def test_fingerprints_survive_unrelated_edits(repo: Path) -> None:
    suite = repo / "skills/démo 演示/evals/evals.json"
    before = {r["ruleId"]: r["partialFingerprints"] for r in sarif_of(repo)["runs"][0]["results"]}
    # Longer text and two more lines before the findings: every region moves.
    suite.write_text(
        SUITE.replace("请总结 😀", "请总结 😀 更长的提示").replace("[\n", "[\n\n\n"), encoding="utf-8"
    )
    after_log = sarif_of(repo)
    after = {r["ruleId"]: r["partialFingerprints"] for r in after_log["runs"][0]["results"]}
    [kind] = results_by_rule(after_log, "setup-kind-invalid")
    assert kind["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert after == before
    assert len({json.dumps(fp) for fp in after.values()}) == len(after)  # distinct per finding


def test_check_writes_sarif(repo: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evalfix_ls", "--check", "--format", "sarif", str(repo)],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1


def multitool() -> Path:
    if MULTITOOL.is_file():
        return MULTITOOL
    reason = (
        f"SARIF Multitool not installed ({MULTITOOL.relative_to(ROOT)} missing): "
        "run `bash tests/system-deps/sarif.sh` (needs Node and npm)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def validate(log: dict[str, Any], tmp_path: Path) -> list[dict[str, Any]]:
    """The Multitool's `validate` results (every level, SARIF and GitHub rules) for ``log``."""
    target, output = tmp_path / "report.sarif", tmp_path / "validation.sarif"
    target.write_text(json.dumps(log, ensure_ascii=False, indent=2), encoding="utf-8")
    argv = [
        str(multitool()),
        "validate",
        str(target),
        "--rule-kind",
        "Sarif;Gh",
        "--level",
        "Error;Warning;Note",
    ]
    argv += ["--output", str(output), "--log", "ForceOverwrite"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and output.is_file(), proc.stdout + proc.stderr
    validation = json.loads(output.read_text(encoding="utf-8"))
    return validation["runs"][0].get("results", [])


def test_multitool_accepts_the_log(repo: Path, tmp_path: Path) -> None:
    results = validate(sarif_of(repo), tmp_path)
    serious = [r for r in results if r.get("level", "warning") in ("error", "warning")]
    metadata = [r for r in results if r["ruleId"] in METADATA_RULES]
    assert not serious, json.dumps(serious[:5], indent=1)
    assert not metadata, json.dumps(metadata[:5], indent=1)


def test_multitool_rejects_missing_metadata(repo: Path, tmp_path: Path) -> None:
    log = sarif_of(repo)
    driver = log["runs"][0]["tool"]["driver"]
    del driver["informationUri"]
    for rule in driver["rules"]:
        del rule["help"]
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    found = {(r["ruleId"], r.get("level", "warning")) for r in validate(log, tmp_path)}
    assert ("SARIF2005", "warning") in found  # tool metadata
    assert ("GH2012", "error") in found  # rule help
    assert any(level == "error" and rule.startswith("JSON") for rule, level in found)  # startLine 0
