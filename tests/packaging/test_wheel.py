"""The wheel is self-contained: schemas ship inside it and `--check` works without the source tree."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"wheel build failed:\n{build.stdout}\n{build.stderr}")
    [wheel] = dist.glob("evalfix_ls-*.whl")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, timeout=600
    )
    if install.returncode != 0:
        pytest.fail(f"wheel install failed:\n{install.stdout}\n{install.stderr}")
    return env_dir


def test_schemas_are_inside_the_installed_package(installed: Path, tmp_path: Path) -> None:
    python = installed / "bin" / "python"
    probe = subprocess.run(
        [str(python), "-c", "import evalfix_ls.schema as s; print(s.schemas_dir())"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    location = Path(probe.stdout.strip())
    assert "site-packages" in location.parts
    assert (location / "evals.schema.json").is_file()
    assert (location / "workflow-fixture.schema.json").is_file()


def test_check_runs_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    suite = tmp_path / "skills" / "demo" / "evals" / "evals.json"
    suite.parent.mkdir(parents=True)
    (tmp_path / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\n---\n")
    suite.write_text(
        json.dumps({"skill_name": "demo", "evals": [{"id": "a", "prompt": "hi", "setup": {"kind": "Empty"}}]})
    )
    proc = subprocess.run(
        [str(installed / "bin" / "evalfix-ls"), "--check", "--format", "json", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    codes = [f["code"] for f in report["files"][0]["findings"]]
    assert "setup-kind-invalid" in codes  # an enum that comes from the bundled schema
