"""``--fix`` / ``--unsafe-fixes`` / ``--diff`` / ``--migrate`` on the command line: run the write
path (``fix.py``), report per file on stderr (stdout keeps the report format clean), and say
whether the normal check should follow."""

from __future__ import annotations

import argparse
import sys

from ..config.project_config import ProjectConfigs
from ..js.values import escape_lone_surrogates
from .fix import FixOptions, fix_paths, summary_lines, unified_diff
from .format_text import stderr_line
from .run import CheckError

EXIT_FINDINGS, EXIT_USAGE = 1, 2


def run_fix(args: argparse.Namespace, configs: ProjectConfigs) -> int | None:
    """Fix or preview. Returns an exit code to stop with (``--diff`` that has changes to show: 1;
    a usage error: 2), or None when the re-check should run and decide the exit code."""
    options = FixOptions(
        fix=args.fix or args.unsafe_fixes or not args.migrate,
        unsafe=args.unsafe_fixes,
        migrate=args.migrate,
        write=not args.diff,
    )
    try:
        results = fix_paths(list(args.paths), root=args.root, configs=configs, options=options)
    except CheckError as exc:
        print(stderr_line(f"evalfix-ls: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if args.diff:
        for result in results:
            if result.changes:
                sys.stdout.write(escape_lone_surrogates(unified_diff(result)))
    for line in summary_lines(results, options):
        print(stderr_line(f"evalfix-ls: {line}"), file=sys.stderr)
    if args.diff and any(result.changes for result in results):
        return EXIT_FINDINGS
    return None
