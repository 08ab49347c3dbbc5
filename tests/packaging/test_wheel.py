"""Release packaging: `python -m build` makes the sdist and the wheel; each installs into a fresh
virtual environment and checks the examples there; the version comes from one place; the wheel
is self-contained (schemas inside) and the sdist holds what a downstream packager needs to run
the tests."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

from evalfix_ls import __version__

ROOT = Path(__file__).resolve().parents[2]


def run(
    argv: list[str | Path], cwd: Path | None = None, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    build = run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", out, ROOT], timeout=900)
    if build.returncode != 0:
        pytest.fail(f"python -m build failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}")
    return out


def install(artefact: Path, env_dir: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(env_dir)
    proc = run([env_dir / "bin/python", "-m", "pip", "install", "-q", artefact], timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"installing {artefact.name} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return env_dir


@pytest.fixture(scope="module")
def wheel_env(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    [wheel] = dist.glob("evalfix_ls-*.whl")
    return install(wheel, tmp_path_factory.mktemp("wheel") / "venv")


@pytest.fixture(scope="module")
def sdist_env(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    [sdist] = dist.glob("evalfix_ls-*.tar.gz")
    return install(sdist, tmp_path_factory.mktemp("sdist") / "venv")


def test_artefacts_carry_the_one_version(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"evalfix_ls-{__version__}-py3-none-any.whl", f"evalfix_ls-{__version__}.tar.gz"]


def test_sdist_holds_what_a_packager_needs(dist: Path) -> None:
    [sdist] = dist.glob("evalfix_ls-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in (
        "README.md",
        "CHANGELOG.md",
        "LICENSE",
        "pyproject.toml",
        "schemas/evals.schema.json",
        "schemas/workflow-fixture.schema.json",
        "examples/clean/skills/release-notes/evals/evals.json",
        "examples/broken/skills/release-notes-broken/evals/evals.json",
        "tests/cli/test_check.py",
        "tests/vendor/sarif/sarif-schema-2.1.0.json",
        "server/evalfix_ls/cli.py",
        "bench/harness/generate.py",
        ".pre-commit-hooks.yaml",
    ):
        assert needed in names, needed
    assert any(name.startswith("editors/") for name in names)
    leaked = [
        name for name in names if name.startswith((".venv/", "tests/.cache/")) or "/node_modules/" in name
    ]
    assert not leaked, leaked[:5]


@pytest.mark.parametrize("env", ["wheel_env", "sdist_env"])
def test_installed_artefact_checks_the_examples(
    env: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    bin_dir = request.getfixturevalue(env) / "bin"
    version = run([bin_dir / "evalfix-ls", "--version"])
    assert version.returncode == 0 and version.stdout.strip() == f"evalfix-ls {__version__}"
    clean = run([bin_dir / "evalfix-ls", "--check", ROOT / "examples/clean"], cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert clean.stdout.strip().splitlines()[-1].startswith("0 errors")
    broken = run(
        [bin_dir / "evalfix-ls", "--check", "--format", "json", ROOT / "examples/broken"], cwd=tmp_path
    )
    assert broken.returncode == 1, broken.stderr
    assert json.loads(broken.stdout)["summary"]["errors"] > 0


def test_schemas_are_inside_the_installed_package(wheel_env: Path, tmp_path: Path) -> None:
    probe = run(
        [wheel_env / "bin/python", "-c", "import evalfix_ls.schema as s; print(s.schemas_dir())"],
        cwd=tmp_path,
    )
    assert probe.returncode == 0, probe.stderr
    location = Path(probe.stdout.strip())
    assert "site-packages" in location.parts
    assert (location / "evals.schema.json").is_file()
    assert (location / "workflow-fixture.schema.json").is_file()


def test_check_runs_from_the_wheel(wheel_env: Path, tmp_path: Path) -> None:
    suite = tmp_path / "skills" / "demo" / "evals" / "evals.json"
    suite.parent.mkdir(parents=True)
    (tmp_path / "skills" / "demo" / "SKILL.md").write_text("---\nname: demo\n---\n")
    suite.write_text(
        json.dumps({"skill_name": "demo", "evals": [{"id": "a", "prompt": "hi", "setup": {"kind": "Empty"}}]})
    )
    proc = run([wheel_env / "bin/evalfix-ls", "--check", "--format", "json", "."], cwd=tmp_path, timeout=120)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    codes = [f["code"] for f in report["files"][0]["findings"]]
    assert "setup-kind-invalid" in codes  # an enum that comes from the bundled schema


def test_wheel_installs_only_its_runtime_dependencies(wheel_env: Path, tmp_path: Path) -> None:
    """A bare Python gets the server and what it imports, nothing the server never uses (issue 21:
    `jsonschema` pulled `rpds-py`, compiled per Python version, into every install)."""
    listed = run([wheel_env / "bin/python", "-m", "pip", "list", "--format", "json"], cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    installed = {entry["name"].lower().replace("_", "-") for entry in json.loads(listed.stdout)}
    expected = {"evalfix-ls", "pygls", "lsprotocol", "cattrs", "attrs", "typing-extensions"}
    expected |= {"corvus-regex-ecma262", "pip"}
    if sys.version_info < (3, 11):
        expected |= {"tomli", "exceptiongroup"}
    assert installed - {"setuptools"} == expected
