"""The recovering parser's speed: a full tolerant parse of a broken suite, and a keystroke of a new
case typed through invalid states (the incremental re-parse against a full parse).

    python -m bench.tolerant                       # 200k and 2m
    python -m bench.tolerant --baseline acfa581    # also the tolerant parser of that commit

The broken suite is the clean one with the colon after the first case's ``"prompt"`` removed: one
error near the start, and the parser still reads (and recovers) all of the text. ``--baseline REV``
loads ``server/evalfix_ls/parser/tolerant.py`` as it was at ``REV`` (``git show``) and times it on the
same text, alternating runs, so a change to the parser can be measured before and after on one
machine state. Medians; nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/tolerant.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import describe_machine, fmt_ms, median, print_table
from bench.generate import SIZES, generate_suite, parse_sizes

REPO = Path(__file__).resolve().parents[1]
NEW_CASE = '\n    {"id": "typed-case", "prompt": "写一个 😀 file", "assertions": ["it works"]},'
REPEATS = {"20k": 15, "200k": 9, "2m": 5, "10m": 3}


def baseline_parser(rev: str) -> Callable[[str], Any]:
    """``parse_tolerant`` of ``rev``, imported from a temporary file (its relative imports of the
    tree model point at the installed package)."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:server/evalfix_ls/parser/tolerant.py"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    source = source.replace("from .tree import", "from evalfix_ls.parser.tree import")
    folder = Path(tempfile.mkdtemp(prefix="evalfix-bench-"))
    path = folder / "baseline_tolerant.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("baseline_tolerant", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parse_tolerant


def timed(function: Callable[[], Any]) -> float:
    from evalfix_ls.parser.gcpause import gc_paused

    with gc_paused():
        start = time.perf_counter()
        function()
        return time.perf_counter() - start


def typing_keystrokes(text: str) -> list[tuple[str, int]]:
    """Every state of typing ``NEW_CASE`` after the case in the middle: (text, offset typed at)."""
    at = text.index("\n    },", len(text) // 2) + len("\n    },")
    return [
        (text[:at] + NEW_CASE[:count] + text[at:], at + count - 1) for count in range(1, len(NEW_CASE) + 1)
    ]


def measure(label: str, baseline: Callable[[str], Any] | None) -> list[list[str]]:
    from evalfix_ls.parser import parse
    from evalfix_ls.parser.incremental import reparse
    from evalfix_ls.parser.tolerant import parse_tolerant

    text = generate_suite(SIZES[label]).text
    broken = text.replace('"prompt": ', '"prompt" ', 1)
    current, old = [], []
    for _ in range(REPEATS[label]):
        current.append(timed(lambda: parse_tolerant(broken)))
        if baseline is not None:
            old.append(timed(lambda: baseline(broken)))
    rows = [[label, "full tolerant parse of a broken suite", fmt_ms(median(current))]]
    if baseline is not None:
        rows.append([label, "  the same, baseline parser", fmt_ms(median(old))])
    previous = parse(text)
    local: list[float] = []
    full: list[float] = []
    for new_text, at in typing_keystrokes(text):
        results: list[Any] = []
        local.append(timed(lambda: results.append(reparse(previous, new_text, at, at))))  # noqa: B023
        full.append(timed(lambda: parse(new_text)))  # noqa: B023 - called at once
        previous = results[0] if results[0] is not None else parse(new_text)
    rows.append(
        [
            label,
            f"typing a new case, {len(local)} keystrokes: incremental re-parse p50",
            fmt_ms(median(local)),
        ]
    )
    rows.append([label, "  the same keystrokes, full parse p50", fmt_ms(median(full))])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tolerant", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200k,2m", help="comma-separated sizes (default 200k,2m)")
    parser.add_argument("--baseline", help="also time the tolerant parser of this git revision")
    args = parser.parse_args(argv)
    baseline = baseline_parser(args.baseline) if args.baseline else None
    print(describe_machine())
    rows = []
    for label in parse_sizes(args.sizes):
        rows.extend(measure(label, baseline))
    print_table(["size", "measurement", "median"], rows)
    print(f"at the end: {describe_machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
