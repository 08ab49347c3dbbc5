"""The JSON Schemas as other tools use them: `check-jsonschema` (PyPI) accepts the clean examples
and rejects the broken ones with each schema, its metaschema check keeps them valid draft
2020-12, and the README's `$schema` line and `json.schemas` snippet name the schemas' `$id`s."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
EVALS, WORKFLOW = SCHEMAS / "evals.schema.json", SCHEMAS / "workflow-fixture.schema.json"
CLEAN, BROKEN = ROOT / "examples/clean/skills", ROOT / "examples/broken/skills"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")


def check_jsonschema(*args: str | Path) -> subprocess.CompletedProcess[str]:
    argv = [str(CHECK_JSONSCHEMA), "--no-cache", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


CASES = [
    (EVALS, CLEAN / "release-notes/evals/evals.json", 0),
    (WORKFLOW, CLEAN / "spec-demo/evals/examples.json", 0),
    (WORKFLOW, CLEAN / "spec-demo/evals/trigger-cases.json", 0),
    (EVALS, BROKEN / "release-notes-broken/evals/evals.json", 1),
    (WORKFLOW, BROKEN / "spec-demo-broken/evals/cases.json", 1),
    (WORKFLOW, BROKEN / "spec-demo-broken/evals/unreadable.json", 1),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), CASES, ids=lambda v: getattr(v, "name", str(v)))
def test_check_jsonschema_verdict(schema: Path, instance: Path, expected: int) -> None:
    proc = check_jsonschema("--schemafile", schema, instance)
    assert proc.returncode == expected, proc.stdout + proc.stderr
    if expected:
        assert f"{instance}::$" in proc.stdout  # the error points into the file


def test_a_cross_file_error_is_beyond_a_schema() -> None:
    """zz-more-cases.json only repeats an id of cases.json: the schema accepts it, evalfix-ls does not."""
    instance = BROKEN / "spec-demo-broken/evals/zz-more-cases.json"
    assert check_jsonschema("--schemafile", WORKFLOW, instance).returncode == 0
    report = subprocess.run(
        [sys.executable, "-m", "evalfix_ls", "--check", "--format", "json", str(instance)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    codes = [f["code"] for f in json.loads(report.stdout)["files"][0]["findings"]]
    assert "duplicate_case_id" in codes


@pytest.mark.parametrize("schema", [EVALS, WORKFLOW], ids=lambda p: p.name)
def test_metaschema_check(schema: Path, tmp_path: Path) -> None:
    assert (
        json.loads(schema.read_text(encoding="utf-8"))["$schema"]
        == "https://json-schema.org/draft/2020-12/schema"
    )
    proc = check_jsonschema("--check-metaschema", schema)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / schema.name
    broken.write_text(
        schema.read_text(encoding="utf-8").replace('"type": "string"', '"type": "text"', 1), "utf-8"
    )
    proc = check_jsonschema("--check-metaschema", broken)
    assert proc.returncode == 1 and "'text' is not valid" in proc.stdout, proc.stdout + proc.stderr


def test_ids_are_versioned_and_the_readme_uses_them() -> None:
    ids = {path.name: json.loads(path.read_text(encoding="utf-8"))["$id"] for path in (EVALS, WORKFLOW)}
    for name, schema_id in ids.items():
        assert re.fullmatch(rf"https://[^ ]+/schemas/v\d+/{re.escape(name)}", schema_id), schema_id
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    snippets = re.findall(r"```json\n(.*?)```", readme, re.S)
    schema_line = next(s for s in snippets if '"$schema"' in s and '"skill_name"' in s)
    assert json.loads(schema_line)["$schema"] == ids["evals.schema.json"]
    settings = json.loads("{" + next(s for s in snippets if '"json.schemas"' in s) + "}")
    urls = {entry["url"] for entry in settings["json.schemas"]}
    assert urls == set(ids.values())
