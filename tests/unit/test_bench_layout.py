"""bench/ holds together the way the package does: no import cycle between its modules (lazy
imports included: ``python -m bench.X`` would load ``X`` a second time through one; a
``TYPE_CHECKING`` one never runs), the harness imports no benchmark or tool (the benchmarks and
tools stand on it), and every benchmark and tool a contributor can run is in bench/README.md."""

from __future__ import annotations

import re
from pathlib import Path

from test_architecture import find_cycle, imports_of

BENCH = Path(__file__).resolve().parents[2] / "bench"


def module_name(path: Path) -> str:
    parts = path.relative_to(BENCH.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def bench_modules() -> dict[str, Path]:
    return {module_name(p): p for p in BENCH.rglob("*.py") if ".data" not in p.parts}


def bench_graph() -> dict[str, set[str]]:
    paths = bench_modules()
    packages = {name for name, path in paths.items() if path.name == "__init__.py"}
    known = set(paths)
    return {name: imports_of(name, path, known).runtime - packages for name, path in paths.items()}


def test_bench_modules_import_each_other_without_a_cycle() -> None:
    graph = bench_graph()
    assert graph["bench.lsp"], "the graph reads bench's own imports"
    assert find_cycle(graph) is None


def test_the_harness_imports_no_benchmark_or_tool() -> None:
    graph = bench_graph()
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name.startswith("bench.harness")
        for target in targets
        if target.startswith("bench.") and not target.startswith("bench.harness")
    )
    assert [name for name in graph if name.startswith("bench.harness.")], "the harness is read"
    assert upward == []


def test_every_runnable_benchmark_is_in_the_readme() -> None:
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"python -m (bench(?:\.\w+)+)", readme))
    runnable = {
        name
        for name, path in bench_modules().items()
        if 'if __name__ == "__main__"' in path.read_text(encoding="utf-8")
        and not name.startswith("bench.harness.")
    }
    # profile_server.py is not a benchmark: bench.lsp --profile-server runs the server under it
    assert runnable - named == {"bench.tools.profile_server"}
    assert "profile_server.py" in readme
    assert {name for name in runnable if name.count(".") == 1} >= {"bench.lsp", "bench.keystroke"}
