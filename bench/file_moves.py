"""The rename planner (``workspace/willRenameFiles`` without the protocol) on a tree of many
fixture files: the walk, the reads, the parses of the fixtures that name a moved path, the plan.

    python -m bench.file_moves [--files 10000] [--repeat 3]

The tree is ``bench.throughput``'s (half eval suites, half workflow fixtures whose ``source_refs``
cite their skill's ``SKILL.md``, 100 fixtures per workflow skill). Two moves: one skill's
``SKILL.md`` (every workflow fixture names a ``SKILL.md``, so all of them are parsed; 100 are
edited) and one workflow skill's folder (100 fixtures name it, all move). Median of ``--repeat``
runs after one warm-up, in process (the server runs the same functions on a worker thread).
Prints the load average: other work on the machine skews every figure.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.harness.common import describe_machine, machine_summary, median, save_results
from bench.throughput import build_tree
from evalfix_ls.services.file_moves import Move, Moves, fixture_files, plan_moves
from evalfix_ls.workspace.files import read_file
from evalfix_ls.workspace.walk import walk


def plan(root: Path, old: str, new: str) -> tuple[float, int, int]:
    """Seconds, files edited, replacements of one planned move."""
    start = time.perf_counter()
    moves = Moves([Move.of(root / old, root / new)])

    def text_of(path: Path) -> str | None:
        file_text = read_file(path, root)
        return None if file_text.unavailable else file_text.text

    fixtures = fixture_files(walk(root), root, moves, text_of, lambda path: None, lambda path: False)
    planned = plan_moves(moves, root, fixtures)
    elapsed = time.perf_counter() - start
    return elapsed, len(planned), sum(len(r) for r in planned.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(describe_machine())
    root = build_tree(args.files)
    results: dict[str, object] = {"machine_start": machine_summary(), "files": args.files}
    for label, old, new in (
        ("a cited file", "skills/flow-00/SKILL.md", "skills/flow-00/docs/SKILL.md"),
        ("a skill folder", "skills/flow-00", "skills/flow-moved"),
    ):
        runs = [plan(root, old, new) for _ in range(args.repeat + 1)][1:]
        seconds = median([run[0] for run in runs])
        _, files, replacements = runs[-1]
        print(
            f"{label}: {seconds * 1000:.0f} ms over {args.files} fixture files, "
            f"{files} edited, {replacements} refs"
        )
        results[label] = {"seconds": seconds, "files_edited": files, "replacements": replacements}
    print(describe_machine())
    results["machine_end"] = machine_summary()
    print(f"results: {save_results('file_moves', results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
