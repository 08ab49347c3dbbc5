"""What every benchmark shares, written once: paths, statistics (percentiles, in-process timing),
tables, tool discovery, the machine's description and the results files."""

from __future__ import annotations

import gc
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parents[1]  # bench/ (this file is bench/harness/common.py)
REPO_ROOT = BENCH_DIR.parent
DATA_DIR = BENCH_DIR / ".data"
RESULTS_DIR = BENCH_DIR / "results"
PEER_DIR = BENCH_DIR / ".peer"
EVALS_SCHEMA = REPO_ROOT / "schemas" / "evals.schema.json"


# ---------------------------------------------------------------------------------------------
# Statistics


def median(values: Sequence[float]) -> float:
    return percentile(values, 50)


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear interpolation between closest ranks (numpy's default); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def percentile_or_none(values: Sequence[float], pct: float) -> float | None:
    """``percentile``, None for no values (a table cell then says so)."""
    return percentile(values, pct) if values else None


@dataclass(slots=True)
class Timing:
    runs: list[float] = field(default_factory=list)  # seconds

    @property
    def median(self) -> float | None:
        return median(self.runs) if self.runs else None

    @property
    def best(self) -> float | None:
        return min(self.runs) if self.runs else None


def time_in_process(func: Callable[[], object], repeats: int) -> Timing:
    """One untimed warm-up call, then ``repeats`` timed calls (garbage collected in between so one
    run's garbage is not charged to the next)."""
    func()
    timing = Timing()
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        func()
        timing.runs.append(time.perf_counter() - start)
    return timing


# ---------------------------------------------------------------------------------------------
# Formatting


def fmt_ms(seconds: float | None) -> str:
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "—"
    ms = seconds * 1000
    if ms < 10:
        return f"{ms:.2f} ms"
    if ms < 100:
        return f"{ms:.1f} ms"
    return f"{ms:,.0f} ms"


def fmt_mb(kib: float | None) -> str:
    return "—" if kib is None else f"{kib / 1024:,.1f} MB"


def fmt_ratio(value: float | None) -> str:
    if value is None or math.isnan(value) or math.isinf(value):
        return "—"
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    if math.isnan(numerator) or math.isnan(denominator):
        return None
    return numerator / denominator


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[bool] = ()) -> None:
    """A plain-text table; columns right-aligned where ``right`` says so (default: all but the first)."""
    align = list(right) or [False] + [True] * (len(headers) - 1)
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=False)]

    def line(cells: Sequence[str]) -> str:
        out = []
        for cell, width, is_right in zip(cells, widths, align, strict=False):
            out.append(str(cell).rjust(width) if is_right else str(cell).ljust(width))
        return "  ".join(out).rstrip()

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


# ---------------------------------------------------------------------------------------------
# Tools


def evalfix_ls_command() -> list[str]:
    """The installed console script next to this interpreter (what users run), else ``-m``."""
    script = Path(sys.executable).with_name("evalfix-ls")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "evalfix_ls"]


def find_check_jsonschema(*, install: bool) -> list[str] | None:
    """``check-jsonschema`` (the optional ``bench`` extra). Installed with pip into the current
    environment when missing and ``install`` is true; None (with a message) when unavailable."""
    for candidate in (Path(sys.executable).with_name("check-jsonschema"), shutil.which("check-jsonschema")):
        if candidate and Path(candidate).is_file():
            return [str(candidate)]
    if not install:
        print(
            "check-jsonschema is not installed: skipping that column "
            "(pip install -e '.[bench]', or run without --no-install)."
        )
        return None
    print(
        "check-jsonschema is missing: installing it into this environment "
        "(pip install 'check-jsonschema>=0.29')"
    )
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "check-jsonschema>=0.29"],
            check=True,
            timeout=600,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"could not install check-jsonschema ({exc}); skipping that column")
        return None
    script = Path(sys.executable).with_name("check-jsonschema")
    return [str(script)] if script.is_file() else None


def machine_summary() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        # Other work on the machine skews every figure; the 1/5/15-minute load says whether there was any.
        "load_average": os.getloadavg(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def describe_machine() -> str:
    """One line for the top and bottom of a run: what ran it and how busy the machine was."""
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"Python {platform.python_version()} on {os.cpu_count()} CPUs; load average (1/5/15 min) {load}"


def save_results(name: str, payload: dict[str, Any]) -> Path:
    """Write ``bench/results/<name>-<timestamp>.json`` (an ignored folder) and return its path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return path
