"""Start-up: spawn → ``initialize`` answered, evalfix-ls against Microsoft's JSON language server,
and what evalfix-ls imports before it answers, grouped by who owns the module.

    python -m bench.startup [--runs N] [--import-runs N] [--no-install]

Spawn times: ``--runs`` spawns per server (default 9), the two servers alternating, each sent
``initialize`` with VS Code's capabilities (``bench.harness.session``) and stopped once it answered;
median and spread printed side by side. The peer is the one of ``bench.lsp`` (installed into
``bench/.peer`` unless ``--no-install``).

Imports: ``python -X importtime -m evalfix_ls`` is spawned ``--import-runs`` times (default 5),
sent ``initialize`` and stopped once it answered (``initialized`` is not sent, so the analysis core
that the server imports lazily after it is not counted). Each module's self time is the minimum
over the runs (the machine is shared: the minimum is the closest to its own cost), summed per
owner: ours (``evalfix_ls``), pygls, lsprotocol, cattrs, attrs, the standard library, anything
else; then our slowest modules. ``python -c pass`` is the floor every Python process pays, and
``python -c "import pygls.lsp.server, lsprotocol.types"`` (spawn → exit) the floor every pygls server
pays before it can answer anything; a bare pygls server (``BARE_PYGLS_SERVER``: no feature, spawned
and sent ``initialize`` like the two servers, alternating with them) adds what every pygls server pays
to answer it: lsprotocol's converter (built per server: its hooks resolve the type hints of every
protocol class), cattrs' structure functions of the client's capabilities and the unstructure of the
answer. That is the start-up that is pygls' and lsprotocol's own.

Bytecode: the servers are spawned with Python's bytecode cache on, after one untimed spawn that
writes it (as an installed server has it: pip compiles a package's modules when it installs it), even
when ``PYTHONDONTWRITEBYTECODE`` is set here: with it every spawn compiled our modules from source
(pygls' and lsprotocol's come compiled from their install), 50-70 ms of CPU that no user pays.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):  # python bench/startup.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness.client import LspClient
from bench.harness.common import describe_machine, machine_summary, save_results
from bench.harness.session import (
    OURS,
    PEER,
    ServerSpec,
    client_capabilities,
    initialize_params,
    ours_spec,
    peer_spec,
)

BARE = "bare pygls"
# The least a pygls server does before it answers ``initialize``: its imports, the server (its
# converter) and the answer with pygls' default capabilities.
BARE_PYGLS_SERVER = "from pygls.lsp.server import LanguageServer; LanguageServer('bare', '0').start_io()"

OWNERS = ("evalfix_ls", "pygls", "lsprotocol", "cattrs", "attrs", "stdlib", "other")


def owner(module: str) -> str:
    top = module.strip().split(".")[0]
    if top in OWNERS:
        return top
    if top in sys.stdlib_module_names or top.startswith("_"):
        return "stdlib"
    return "other"


async def _initialize(argv: list[str], cwd: Path, stderr_path: Path | None) -> float:
    """Spawn ``argv``, send ``initialize``; seconds from the spawn to the answer."""
    client = LspClient(argv, cwd=cwd, settings={}, stderr_path=stderr_path)
    await client.start()
    try:
        init = await client.request(
            "initialize", initialize_params(cwd, client_capabilities(pull=True)), timeout=60
        )
        return init.received_at - client.spawned_at
    finally:
        await client.stop()


async def spawn_times(specs: list[ServerSpec], runs: int, cwd: Path) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {spec.name: [] for spec in specs}
    for _ in range(runs):
        for spec in specs:  # alternating: a load change hits both servers alike
            times[spec.name].append(await _initialize(spec.argv, cwd, None))
    return times


def parse_importtime(text: str) -> dict[str, int]:
    """``module -> self µs`` from ``-X importtime`` output."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        fields = line[len("import time:") :].split("|")
        if len(fields) == 3:
            out[fields[2].strip()] = int(fields[0])
    return out


async def import_times(runs: int, cwd: Path) -> dict[str, int]:
    """Per module, its smallest self time (µs) over ``runs`` spawns up to ``initialize``."""
    best: dict[str, int] = {}
    argv = [sys.executable, "-X", "importtime", "-m", "evalfix_ls"]
    for _ in range(runs):
        with tempfile.NamedTemporaryFile(suffix=".stderr", delete=False) as handle:
            stderr_path = Path(handle.name)
        try:
            await _initialize(argv, cwd, stderr_path)
            for module, micros in parse_importtime(stderr_path.read_text(errors="replace")).items():
                best[module] = min(micros, best.get(module, micros))
        finally:
            stderr_path.unlink(missing_ok=True)
    return best


# What any pygls server imports before it can answer anything: the floor of our start-up that is
# pygls' and lsprotocol's own (the server classes and the protocol types they are built on).
PYGLS_FLOOR_CODE = "import pygls.lsp.server, lsprotocol.types"


def python_floor(runs: int, code: str = "pass") -> float:
    """Seconds of ``python -c CODE`` from spawn to exit (median): with ``pass``, the interpreter's
    own start-up; with ``PYGLS_FLOOR_CODE``, the imports no pygls server can skip."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def report(
    times: dict[str, list[float]], imports: dict[str, int], floor: float, pygls_floor: float
) -> list[str]:
    lines = ["spawn → initialize answered (ms): median [min–max] over the spawns"]
    for name, samples in times.items():
        ms = [s * 1000 for s in samples]
        lines.append(
            f"  {name:<12} {statistics.median(ms):7.0f}  [{min(ms):.0f}–{max(ms):.0f}]  ({len(ms)} spawns)"
        )
    if OURS in times and PEER in times and times[PEER]:
        ratio = statistics.median(times[OURS]) / statistics.median(times[PEER])
        lines.append(f"  ratio {OURS} / {PEER}: {ratio:.2f}×")
    lines.append(f"  python -c pass: {floor * 1000:.0f} ms")
    lines.append(f"  python -c '{PYGLS_FLOOR_CODE}': {pygls_floor * 1000:.0f} ms (spawn → exit)")
    if times.get(OURS):
        above = statistics.median(times[OURS]) - pygls_floor
        lines.append(
            f"  {OURS} above that floor (its own imports, the server, initialize): {above * 1000:.0f} ms"
        )
    if times.get(PEER):
        ratio = pygls_floor / statistics.median(times[PEER])
        lines.append(f"  that floor alone / {PEER}'s whole start-up: {ratio:.2f}×")
    if times.get(BARE) and times.get(OURS):
        bare = statistics.median(times[BARE])
        above_bare = statistics.median(times[OURS]) - bare
        lines.append(f"  {OURS} above the {BARE} server: {above_bare * 1000:.0f} ms")
        if times.get(PEER):
            lines.append(f"  the {BARE} server / {PEER}: {bare / statistics.median(times[PEER]):.2f}×")
    per_owner: dict[str, int] = defaultdict(int)
    for module, micros in imports.items():
        per_owner[owner(module)] += micros
    total = sum(per_owner.values())
    lines.append("")
    lines.append(
        f"imports before initialize (python -X importtime, self time, min per module): {total / 1000:.0f} ms"
    )
    for name in OWNERS:
        lines.append(f"  {name:<12} {per_owner.get(name, 0) / 1000:7.1f} ms")
    ours = sorted(((m, t) for m, t in imports.items() if owner(m) == "evalfix_ls"), key=lambda mt: -mt[1])
    lines.append(f"  evalfix_ls modules imported: {len(ours)}; the slowest:")
    for module, micros in ours[:10]:
        lines.append(f"    {micros / 1000:6.1f} ms  {module}")
    return lines


def bare_pygls_spec() -> ServerSpec:
    return ServerSpec(BARE, [sys.executable, "-c", BARE_PYGLS_SERVER], {}, None)


async def run(args: argparse.Namespace) -> dict[str, object]:
    specs = [ours_spec(), bare_pygls_spec()]
    peer = peer_spec(install=not args.no_install)
    if peer is not None:
        specs.append(peer)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the spawned servers read and write the cache
    with tempfile.TemporaryDirectory(prefix="evalfix-startup-") as tmp:
        cwd = Path(tmp)
        await spawn_times(specs[:1], 1, cwd)  # untimed: writes our modules' bytecode if missing
        times = await spawn_times(specs, args.runs, cwd)
        imports = await import_times(args.import_runs, cwd)
    floor = python_floor(args.runs)
    pygls_floor = python_floor(args.runs, PYGLS_FLOOR_CODE)
    print("\n".join(report(times, imports, floor, pygls_floor)))
    return {
        "spawn_seconds": times,
        "import_self_us": imports,
        "python_floor_seconds": floor,
        "pygls_floor_seconds": pygls_floor,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9, help="spawns per server (default 9)")
    parser.add_argument("--import-runs", type=int, default=5, help="-X importtime spawns (default 5)")
    parser.add_argument("--no-install", action="store_true", help="do not install the peer")
    args = parser.parse_args(argv)
    print(describe_machine(), flush=True)
    results = asyncio.run(run(args))
    print(describe_machine())
    print(f"results: {save_results('startup', {'machine': machine_summary(), **results})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
