"""Run ``python -m evalfix_ls`` under cProfile, every thread included, for ``bench.lsp --profile-server``.

    python bench/tools/profile_server.py OUT.prof [server arguments…]

``python -m cProfile`` sees only the main thread, while the server analyses on worker threads; here
each thread gets its own profiler (``threading.Thread.run`` is wrapped before the server starts), and
at exit all of them are merged into one pstats file.
"""

from __future__ import annotations

import atexit
import cProfile
import pstats
import runpy
import sys
import threading

_profiles: list[cProfile.Profile] = []
_lock = threading.Lock()
_original_run = threading.Thread.run


def _profiled_run(self: threading.Thread) -> None:
    profile = cProfile.Profile()
    with _lock:
        _profiles.append(profile)
    profile.enable()
    try:
        _original_run(self)
    finally:
        profile.disable()


def _dump(path: str) -> None:
    with _lock:
        profiles = list(_profiles)
    stats = None
    for profile in profiles:
        try:
            stats = pstats.Stats(profile) if stats is None else stats.add(profile)
        except TypeError:  # a profiler that never recorded anything
            continue
    if stats is not None:
        stats.dump_stats(path)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: profile_server.py OUT.prof [server arguments…]")
    out = sys.argv[1]
    threading.Thread.run = _profiled_run  # type: ignore[method-assign]
    main_profile = cProfile.Profile()
    _profiles.append(main_profile)
    atexit.register(_dump, out)
    atexit.register(main_profile.disable)  # atexit runs last-registered first: disable, then dump
    sys.argv = ["evalfix_ls", *sys.argv[2:]]
    main_profile.enable()
    runpy.run_module("evalfix_ls", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
