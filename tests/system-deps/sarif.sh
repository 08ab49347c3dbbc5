#!/usr/bin/env bash
# Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool), which tests/cli/test_sarif.py runs
# to validate `--format sarif`. Installed once into tests/.cache/sarif-multitool (git-ignored);
# a second run finds it and does nothing. Needs Node (>= 18) and npm.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION="5.7.0"
PREFIX="tests/.cache/sarif-multitool"
BIN="$PREFIX/node_modules/.bin/sarif-multitool"

if [[ -x "$BIN" ]] && grep -q "\"version\": \"$VERSION\"" "$PREFIX/node_modules/@microsoft/sarif-multitool/package.json" 2>/dev/null; then
  echo "sarif.sh: @microsoft/sarif-multitool $VERSION already installed in $PREFIX"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "sarif.sh: npm not found: install Node.js (>= 18) with npm to run the SARIF Multitool tests" >&2
  exit 1
fi
mkdir -p "$PREFIX"
echo "sarif.sh: installing @microsoft/sarif-multitool@$VERSION into $PREFIX"
if ! npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "@microsoft/sarif-multitool@$VERSION"; then
  echo "sarif.sh: npm install @microsoft/sarif-multitool@$VERSION failed (network or registry?)" >&2
  exit 1
fi
if ! "$BIN" --version >/dev/null 2>&1; then
  echo "sarif.sh: $BIN was installed but does not run (missing platform package @microsoft/sarif-multitool-linux?)" >&2
  exit 1
fi
echo "sarif.sh: installed $("$BIN" --version 2>&1 | grep -m1 Multitool)"
