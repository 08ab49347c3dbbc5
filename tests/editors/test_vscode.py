"""The VS Code extension (editors/vscode/) in a real VS Code: its unit tests (Node's test runner),
the build and the .vsix, Mocha integration tests inside the extension host of the VS Code server
that code-server ships, and a UI check of the packaged .vsix in the code-server workbench (Debian's
chromium driven by playwright-core). The tools come from tests/system-deps/vscode.sh; without
them these tests skip, except under CI=true, where they fail."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
CACHE = EXTENSION / ".cache"
NODE_BIN = CACHE / "node24" / "bin"
CODE_SERVER = CACHE / "code-server" / "node_modules" / "code-server"
OUTPUT = EXTENSION / ".test-output"
FIXTURE_WORKSPACE = EXTENSION / "test-fixtures" / "workspace"
VSIX = EXTENSION / "evalfix-ls.vsix"
SERVER = Path(sys.executable).parent / "evalfix-ls"

BUILD_TIMEOUT_S = 300
UNIT_TIMEOUT_S = 120
VSIX_MAX_BYTES = 1_000_000  # the bundle is ~450 KB; node_modules would be megabytes


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def require(condition: bool, what: str) -> None:
    """Skip locally, fail under CI: a missing tool must never pass silently."""
    if condition:
        return
    message = f"{what} (install with `bash tests/system-deps/vscode.sh`, as root with the .apt packages)"
    if in_ci():
        pytest.fail(f"CI=true and the VS Code test tools are missing: {message}")
    pytest.skip(message)


def node_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD"] = "1"
    env.update(extra)
    return env


def run(args: list[str], timeout: float, **extra: str) -> subprocess.CompletedProcess[str]:
    """A node/npm step, bounded; its output is shown when it fails."""
    try:
        result = subprocess.run(
            args,
            cwd=EXTENSION,
            env=node_env(**extra),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{' '.join(args)} did not finish within {timeout} s:\n{exc.stdout}\n{exc.stderr}")
    if result.returncode != 0:
        pytest.fail(f"{' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def node_tools() -> None:
    require((NODE_BIN / "node").is_file(), f"Node 24 is missing: {NODE_BIN / 'node'}")
    require(shutil.which("npm") is not None, "npm is not on PATH")
    require(
        (EXTENSION / "node_modules" / "vscode-languageclient").is_dir(), "the extension's npm ci has not run"
    )


@pytest.fixture(scope="module")
def packaged(node_tools: None) -> Path:
    """`npm run package`: type-check, bundle, compile the tests, make the .vsix (once per run)."""
    VSIX.unlink(missing_ok=True)
    run(["npm", "run", "-s", "package"], BUILD_TIMEOUT_S)
    assert VSIX.is_file(), "npm run package made no .vsix"
    return VSIX


def test_unit_tests_pass(packaged: Path) -> None:
    result = run(
        ["npm", "run", "-s", "test:unit"],
        UNIT_TIMEOUT_S,
        EVALFIX_TEST_SERVER=str(SERVER),
        EVALFIX_TEST_PYTHON=sys.executable,
    )
    summary = {name: int(count) for name, count in re.findall(r"^ℹ (\w+) (\d+)$", result.stdout, re.M)}
    assert summary.get("fail") == 0 and summary.get("pass", 0) >= 20, result.stdout
    assert summary.get("skipped") == 0, f"a unit test skipped although the server was given:\n{result.stdout}"


def test_vsix_holds_the_bundle_and_the_listing_files_only(packaged: Path) -> None:
    size = packaged.stat().st_size
    with zipfile.ZipFile(packaged) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
    print(f"{packaged.name}: {size} bytes, {len(names)} files")
    assert {
        "extension/dist/extension.js",
        "extension/package.json",
        "extension/readme.md",
        "extension/changelog.md",
        "extension/LICENSE.txt",
        "extension/icon.png",
    } <= names
    assert not [name for name in names if "node_modules" in name or name.startswith("extension/src/")]
    assert size < VSIX_MAX_BYTES
    assert manifest["main"] == "./dist/extension.js"
    assert manifest["repository"]["url"]
    client = json.loads((EXTENSION / "node_modules" / "vscode-languageclient" / "package.json").read_text())
    assert manifest["engines"]["vscode"] == client["engines"]["vscode"]  # the client library's minimum
    assert "jsonValidation" not in manifest["contributes"]
