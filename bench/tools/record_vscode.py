"""Record the LSP traffic of a real VS Code typing into a suite: ``python -m bench.tools.record_vscode``.

The real VS Code of ``tests/editors/test_vscode.py`` (code-server's VS Code server, the workbench in
Debian's chromium driven by playwright-core; tools from ``tests/system-deps/vscode.sh``) with the
extension's universal .vsix (built with npm when missing or ``--build``). The extension's server
command (``evalfix.server.path``) is a two-line script that runs evalfix-ls behind
``bench/tools/lsp_tee.py``, which passes every byte through unchanged and logs each message with its time.
``editors/vscode/scripts/record-traffic.mjs`` then acts as a user on the noisy suite of ``--size``
(the cases' named files missing): the cursor to the end of the middle case, a new case typed after
it key by key, a word typed inside its prompt, the cursor moved with the arrow keys, a click and a
mouse hover. The log becomes the recording (``--out``, default ``bench/recordings/vscode-typing.json``):
every message with its direction, time offset, id, method, params (long texts trimmed, positions
kept) and for answers a summary, plus the user's actions with their times. ``bench.traffic
--recorded`` replays it. A summary of what VS Code sent per keystroke and per cursor move is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.harness.common import BENCH_DIR, DATA_DIR, REPO_ROOT
from bench.harness.generate import DEFAULT_SEED, SIZES, SUITE_REL_PATH, generate_suite, write_suite_tree
from bench.harness.recording import (
    DEFAULT_RECORDING,
    TYPED_CASE,
    anchor_line,
    build_recording,
    describe_recording,
    dump_recording,
    read_tee_log,
)

EXTENSION = REPO_ROOT / "editors" / "vscode"
CACHE = EXTENSION / ".cache"
NODE_BIN = CACHE / "node24" / "bin"
CODE_SERVER = CACHE / "code-server" / "node_modules" / "code-server"
VSIX = EXTENSION / "evalfix-ls.vsix"
RUN_TIMEOUT_S = 600


def node_env(home: Path) -> dict[str, str]:
    """code-server's config and caches under ``home``, no marketplace, Node 24 first on PATH."""
    path = os.environ.get("PATH", "")
    return {
        "PATH": f"{NODE_BIN}{os.pathsep}{path}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "EXTENSIONS_GALLERY": '{"serviceUrl":"http://127.0.0.1:9/gallery","itemUrl":"http://127.0.0.1:9/item"}',
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    }


def missing_tools() -> list[str]:
    wanted = {
        "Node 24": NODE_BIN / "node",
        "code-server": CODE_SERVER / "out" / "node" / "entry.js",
        "the extension's npm ci": EXTENSION / "node_modules" / "vscode-languageclient",
    }
    missing = [f"{what} ({path})" for what, path in wanted.items() if not path.exists()]
    if shutil.which("chromium") is None:
        missing.append("Debian's chromium")
    return missing


def build_vsix(env: dict[str, str]) -> None:
    for step in (["npm", "run", "-s", "build"], ["npm", "run", "-s", "package", "--", "--no-build"]):
        print(f"  {' '.join(step)} (editors/vscode) …", flush=True)
        subprocess.run(step, cwd=EXTENSION, env={**os.environ, **env}, check=True, timeout=RUN_TIMEOUT_S)


def tee_command(data: Path, raw_log: Path) -> Path:
    """The extension's server command: evalfix-ls of this interpreter behind the logging tap."""
    script = data / "evalfix-ls-recorded"
    tee = BENCH_DIR / "tools" / "lsp_tee.py"
    python = sys.executable
    command = f'exec "{python}" "{tee}" --log "{raw_log}" -- "{python}" -m evalfix_ls "$@"'
    script.write_text(f"#!/bin/sh\n{command}\n")
    script.chmod(0o755)
    return script


DATA = DATA_DIR / "record-vscode"  # the last run's raw log, actions, screenshots, VS Code's data


def record(args: argparse.Namespace) -> int:
    suite = generate_suite(SIZES[args.size])
    workspace = DATA_DIR / f"record-noisy-{args.size}"
    write_suite_tree(workspace, suite, sources=False)
    anchor = anchor_line(suite.text)
    if not args.from_last_run:
        missing = missing_tools()
        if missing:
            print("missing: " + "; ".join(missing) + " (run `bash tests/system-deps/vscode.sh`)")
            return 1
        if not run_vscode(workspace, anchor, label=args.size, build=args.build):
            print(f"the UI run failed; screenshots and logs under {DATA}")
            return 1
    actions = json.loads((DATA / "actions.json").read_text(encoding="utf-8"))
    suite_info = {
        "size": args.size,
        "kind": "noisy",
        "seed": DEFAULT_SEED,
        "rel_path": SUITE_REL_PATH,
        "anchor_line": anchor,
    }
    recording = build_recording(read_tee_log(DATA / "traffic.jsonl"), actions, suite_info, workspace)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump_recording(recording), encoding="utf-8")
    print(describe_recording(recording))
    print(f"recording: {args.out} ({args.out.stat().st_size:,} bytes); screenshots: {DATA / 'screenshots'}")
    return 0


def run_vscode(workspace: Path, anchor: int, *, label: str, build: bool) -> bool:
    """The UI run on the suite in ``workspace``, typing after the case that ends on the 0-based
    line ``anchor``; True when it went through and the tap logged messages."""
    data = DATA
    shutil.rmtree(data, ignore_errors=True)
    (data / "home").mkdir(parents=True)
    env = node_env(data / "home")
    if build or not VSIX.is_file():
        build_vsix(env)
    raw_log = data / "traffic.jsonl"
    (workspace / ".vscode").mkdir(exist_ok=True)
    settings = {"telemetry.telemetryLevel": "off", "evalfix.server.path": str(tee_command(data, raw_log))}
    (workspace / ".vscode" / "settings.json").write_text(json.dumps(settings))
    report = data / "actions.json"
    command = [str(NODE_BIN / "node"), "scripts/record-traffic.mjs"]
    command += ["--code-server", str(CODE_SERVER), "--vsix", str(VSIX), "--workspace", str(workspace)]
    command += ["--data", str(data / "vscode"), "--chromium", str(shutil.which("chromium"))]
    command += ["--open", SUITE_REL_PATH, "--anchor-line", str(anchor + 1), "--case", TYPED_CASE]
    command += ["--report", str(report), "--screenshots", str(data / "screenshots")]
    print(f"recording VS Code on the noisy {label} suite (anchor line {anchor + 1}) …", flush=True)
    started = time.time()
    run = subprocess.run(command, cwd=EXTENSION, env={**os.environ, **env}, timeout=RUN_TIMEOUT_S)
    print(f"  the UI run took {time.time() - started:.0f} s (exit {run.returncode})")
    return run.returncode == 0 and raw_log.is_file()


def main(argv: list[str] | None = None) -> int:
    description = __doc__.splitlines()[0]
    parser = argparse.ArgumentParser(prog="python -m bench.tools.record_vscode", description=description)
    parser.add_argument("--size", default="200k", choices=sorted(SIZES))
    parser.add_argument("--out", type=Path, default=DEFAULT_RECORDING)
    parser.add_argument("--build", action="store_true", help="rebuild the .vsix even when one exists")
    parser.add_argument(
        "--from-last-run", action="store_true", help="remake the recording from the last run's log"
    )
    return record(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
