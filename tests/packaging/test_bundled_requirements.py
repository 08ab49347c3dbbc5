"""The libraries a platform package of the VS Code extension bundles (editors/vscode/bundled/
requirements.txt) stay in step with pyproject.toml: every runtime dependency pinned inside its
declared range, and every library those need (on any Python >= 3.10) pinned too."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "editors" / "vscode" / "bundled" / "requirements.txt"
# The bundle serves every supported Python: a dependency needed on any of them is bundled.
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]


def pins() -> dict[str, str]:
    pinned = {}
    for line in BUNDLED.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pinned[canonicalize_name(name)] = version
    return pinned


def needed_somewhere(requirement: Requirement) -> bool:
    marker: Marker | None = requirement.marker
    if marker is None:
        return True
    return any(
        marker.evaluate({"python_version": v, "python_full_version": f"{v}.0", "extra": ""}) for v in PYTHONS
    )


def test_every_runtime_dependency_is_pinned_within_its_range() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = pins()
    for requirement in map(Requirement, declared):
        if not needed_somewhere(requirement):
            continue
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement} is not bundled ({BUNDLED.name})"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (requirement, pinned[name])


def test_the_bundled_libraries_need_nothing_that_is_not_bundled() -> None:
    """Read from the libraries installed here (the ones only older Pythons need are not)."""
    pinned = pins()
    installed = [name for name in pinned if installed_version(name)]
    assert len(installed) >= 6, installed
    for name in installed:
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            if needed_somewhere(requirement):
                assert canonicalize_name(requirement.name) in pinned, f"{name} needs {requirement}"


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
