"""The recovering parser's speed: a full tolerant parse of a broken suite, and a keystroke of a new
case typed through invalid states (the incremental re-parse against a full parse).

    python -m bench.tolerant                       # 200k and 2m
    python -m bench.tolerant --baseline acfa581    # also the tolerant parser of that commit

The broken suite is the clean one with the colon after the first case's ``"prompt"`` removed: one
error near the start, and the parser still reads (and recovers) all of the text. ``--baseline REV``
loads the package (``server/evalfix_ls/``) as it was at ``REV`` (``git archive``; any revision since
the parser package exists, acfa581) and times its parser's tolerant parse and incremental
re-parse on the same texts, alternating runs, so a change to the parser can be measured before and
after on one machine state. Medians; nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/tolerant.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.common import describe_machine, fmt_ms, median, print_table
from bench.harness.generate import NEW_CASE, SIZES, generate_suite, parse_sizes

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "server/evalfix_ls"
REPEATS = {"20k": 15, "200k": 9, "2m": 5, "10m": 3}


class Baseline:
    """The parser of git revision ``rev``, imported under a name of its own
    (``evalfix_baseline_<rev>.parser``) from a temporary copy of the whole ``evalfix_ls`` package:
    its modules import each other relatively (``from .tokens import ...``), and since issue 31 the
    floors beside it too (``from ..text.pieces``, ``from ..memory.gc_pause``), so the package is
    copied whole, never one module; only the parser's modules are imported from it."""

    def __init__(self, rev: str) -> None:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", rev, PACKAGE],
            check=True,
            capture_output=True,
            timeout=60,
        ).stdout
        name = "evalfix_baseline_" + "".join(c if c.isalnum() else "_" for c in rev)
        with tempfile.TemporaryDirectory(prefix="evalfix-bench-") as folder:  # imported, then gone
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+
                    tar.extractall(folder, filter="data")
                else:  # our own git archive of the package folder: plain files only
                    tar.extractall(folder)
            package = Path(folder) / PACKAGE
            spec = importlib.util.spec_from_file_location(
                name, package / "__init__.py", submodule_search_locations=[str(package)]
            )
            assert spec is not None and spec.loader is not None
            sys.modules[name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(sys.modules[name])
            module = importlib.import_module(f"{name}.parser")
            tolerant = importlib.import_module(f"{name}.parser.tolerant")
            incremental = importlib.import_module(f"{name}.parser.incremental")
        self.parse: Callable[[str], Any] = module.parse
        self.parse_tolerant: Callable[[str], Any] = tolerant.parse_tolerant
        self.reparse: Callable[..., Any] = incremental.reparse


def timed(function: Callable[[], Any]) -> float:
    from evalfix_ls.memory.gc_pause import gc_paused

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


def measure(label: str, baseline: Baseline | None) -> list[list[str]]:
    from evalfix_ls.parser import parse
    from evalfix_ls.parser.incremental import reparse
    from evalfix_ls.parser.tolerant import parse_tolerant

    text = generate_suite(SIZES[label]).text
    broken = text.replace('"prompt": ', '"prompt" ', 1)
    current, old = [], []
    for _ in range(REPEATS[label]):
        current.append(timed(lambda: parse_tolerant(broken)))
        if baseline is not None:
            old.append(timed(lambda: baseline.parse_tolerant(broken)))
    rows = [[label, "full tolerant parse of a broken suite", fmt_ms(median(current))]]
    if baseline is not None:
        rows.append([label, "  the same, baseline parser", fmt_ms(median(old))])
    local = Keystrokes(parse, reparse, text)
    old_local = Keystrokes(baseline.parse, baseline.reparse, text) if baseline is not None else None
    full: list[float] = []
    for count, (new_text, at) in enumerate(typing_keystrokes(text)):
        # alternate which goes first: the second one finds warmer caches (≈5 % on equal code)
        for keystrokes in (local, old_local) if count % 2 else (old_local, local):
            if keystrokes is not None:
                keystrokes.type(new_text, at)
        full.append(timed(lambda: parse(new_text)))  # noqa: B023 - called at once
    rows.append(
        [
            label,
            f"typing a new case, {len(local.times)} keystrokes: incremental re-parse p50",
            fmt_ms(median(local.times)),
        ]
    )
    if old_local is not None:
        rows.append([label, "  the same, baseline re-parse p50", fmt_ms(median(old_local.times))])
    rows.append([label, "  the same keystrokes, full parse p50", fmt_ms(median(full))])
    return rows


class Keystrokes:
    """Each keystroke re-parsed from the previous one's tree (a full parse when it declines)."""

    def __init__(self, parse: Callable[[str], Any], reparse: Callable[..., Any], text: str) -> None:
        self.parse, self.reparse = parse, reparse
        self.previous = parse(text)
        self.times: list[float] = []

    def type(self, new_text: str, at: int) -> None:
        results: list[Any] = []
        self.times.append(timed(lambda: results.append(self.reparse(self.previous, new_text, at, at))))
        self.previous = results[0] if results[0] is not None else self.parse(new_text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tolerant", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="200k,2m", help="comma-separated sizes (default 200k,2m)")
    parser.add_argument("--baseline", help="also time the parser of this git revision (acfa581 or later)")
    args = parser.parse_args(argv)
    baseline = Baseline(args.baseline) if args.baseline else None
    print(describe_machine())
    rows = []
    for label in parse_sizes(args.sizes):
        rows.extend(measure(label, baseline))
    print_table(["size", "measurement", "median"], rows)
    print(f"at the end: {describe_machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
