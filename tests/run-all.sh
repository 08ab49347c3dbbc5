#!/usr/bin/env bash
# The whole test suite from a fresh machine: the system packages and tools the editor and CI-format
# tests drive (tests/system-deps/), a fresh virtual environment with the project and its test
# extras, then pytest over tests/. Installing Debian packages needs root (CI runs as root); without
# root the editor tests skip locally, and fail under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

install_system_deps() {
  local packages=() missing=()
  shopt -s nullglob
  for list in tests/system-deps/*.apt; do
    while read -r pkg _; do
      [[ -z "$pkg" || "$pkg" == \#* ]] || packages+=("$pkg")
    done <"$list"
  done
  for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
      echo "run-all: not root, cannot install Debian packages: ${missing[*]}" >&2
    else
      echo "run-all: installing Debian packages: ${missing[*]}"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        || { echo "run-all: apt-get install failed for: ${missing[*]}" >&2; exit 1; }
    fi
  fi
  for script in tests/system-deps/*.sh; do
    echo "run-all: $script"
    bash "$script"
  done
}

install_system_deps
rm -rf .venv
python3 -m venv .venv
.venv/bin/pip install -q -e '.[test]'
.venv/bin/python -m pytest -q
