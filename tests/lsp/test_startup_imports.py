"""Start faster (issue 19, point 7): what the server needs before it answers ``initialize`` — its
handlers registered, their capabilities — imports no part of the analysis core; the features
import their services on their first request (and ``lifecycle.warm_up`` imports the core on
``initialized``). Counted in a fresh interpreter, by the modules it has imported, not timed."""

from __future__ import annotations

import json
import subprocess
import sys

CORE = (
    "evalfix_ls.analysis",
    "evalfix_ls.contracts.evals",
    "evalfix_ls.contracts.workflow",
    "evalfix_ls.services.document",
    "evalfix_ls.services.fixes",
    "evalfix_ls.services.migrate",
    "evalfix_ls.services.outline",
    "evalfix_ls.services.hover",
    "evalfix_ls.services.case_ids",
    # the parsers (the line index and the text views are needed, not the parsers) and the
    # completion service (its feature module imports only the suggestion kinds)
    "evalfix_ls.parser.fast",
    "evalfix_ls.parser.tolerant",
    "evalfix_ls.services.completion_context",
)

PROBE = """
import json, sys
from evalfix_ls.lsp.server import create_server
server = create_server()
print(json.dumps({"modules": sorted(sys.modules), "features": sorted(server.protocol.fm.features)}))
"""


def test_no_analysis_core_before_initialize() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    seen = json.loads(out.stdout)
    assert "textDocument/documentSymbol" in seen["features"]  # every feature registered…
    assert "textDocument/codeAction" in seen["features"]
    loaded = [name for name in seen["modules"] if name.startswith(CORE)]
    assert loaded == []  # …without its service


SERVE = """
import gc, json, sys
full = []
def count(phase, info):
    if phase == "start" and info["generation"] == 2:
        full.append(1)
gc.callbacks.append(count)
from evalfix_ls.cli import main
code = main([])  # stdin is empty: the server starts, reads EOF and returns
print(json.dumps({"full_collections": len(full), "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def test_start_up_runs_no_full_collection() -> None:
    """The collector is off while the server's modules are imported and frozen after: those
    collections freed nothing and cost 50-65 ms of CPU before ``initialize``. Counted with
    ``gc.callbacks`` in a server started for real (stdin at EOF)."""
    out = subprocess.run(
        [sys.executable, "-c", SERVE],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["full_collections"] == 0
    assert seen["enabled"] and seen["frozen"] > 10_000  # on again, start-up's objects frozen


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": {"textDocument": {"diagnostic": {}}}},
    }
)

# The server as an editor starts it (``evalfix-ls``, no argument), sent ``initialize`` then end of
# input; what it imported by then goes to stderr (``initialized`` never came: no warm-up).
SERVE_AND_LIST = """
import json, sys
from evalfix_ls.cli import main
code = main()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

# Standard library modules only later requests or the command line use: difflib (a settings
# problem's "did you mean"), argparse and, through its help formatter, shutil and the compression
# modules (the command line; editors start the server without arguments or with --stdio).
NOT_BEFORE_INITIALIZE = ("difflib", "argparse", "shutil", "bz2", "lzma")


def test_real_server_answers_initialize_without_later_modules() -> None:
    body = INITIALIZE.encode()
    out = subprocess.run(
        [sys.executable, "-c", SERVE_AND_LIST],
        input=b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert b'"capabilities"' in out.stdout  # initialize was answered
    modules = json.loads(out.stderr.decode().strip().splitlines()[-1])
    assert "evalfix_ls.lsp.features.hover" in modules  # the server was built…
    loaded = [
        name for name in modules if name.split(".")[0] in NOT_BEFORE_INITIALIZE or name.startswith(CORE)
    ]
    assert loaded == []  # …without them
