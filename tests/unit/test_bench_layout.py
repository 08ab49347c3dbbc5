"""bench/ holds together the way the package does: no import cycle between its modules (lazy
imports included: ``python -m bench.X`` would load ``X`` a second time through one; a
``TYPE_CHECKING`` one never runs), and every benchmark a contributor can run is in bench/README.md."""

from __future__ import annotations

import re
from pathlib import Path

from test_architecture import find_cycle, imports_of

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_graph() -> dict[str, set[str]]:
    paths = {f"bench.{p.stem}": p for p in BENCH.glob("*.py") if p.stem != "__init__"}
    known = set(paths) | {"bench"}
    return {name: imports_of(name, path, known).runtime - {"bench"} for name, path in paths.items()}


def test_bench_modules_import_each_other_without_a_cycle() -> None:
    graph = bench_graph()
    assert graph["bench.lsp"], "the graph reads bench's own imports"
    assert find_cycle(graph) is None


def test_every_runnable_benchmark_is_in_the_readme() -> None:
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"python -m bench\.(\w+)", readme))
    runnable = {
        p.stem for p in BENCH.glob("*.py") if 'if __name__ == "__main__"' in p.read_text(encoding="utf-8")
    }
    # profile_server.py is not a benchmark: bench.lsp --profile-server runs the server under it
    assert runnable - named == {"profile_server"}
    assert "profile_server.py" in readme
