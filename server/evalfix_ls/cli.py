"""Command line: ``evalfix-ls`` (language server on stdio) and ``evalfix-ls --check PATHS``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalfix-ls",
        description=(
            "Language server for AI-agent skill eval fixtures (evals/evals.json and "
            "skills/<skill>/evals/**/*.json). Without --check it serves LSP on stdio."
        ),
    )
    parser.add_argument("--version", action="version", version=f"evalfix-ls {__version__}")
    mode = parser.add_argument_group("language server")
    mode.add_argument("--stdio", action="store_true", help="serve LSP on stdin/stdout (default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="serve LSP over TCP instead of stdio")
    batch = parser.add_argument_group("batch mode")
    batch.add_argument(
        "--check", action="store_true", help="check PATHS (default: the current directory) and exit"
    )
    batch.add_argument("paths", nargs="*", type=Path, metavar="PATHS", help="files or directories")
    batch.add_argument("--root", type=Path, help="repository root (default: nearest ancestor holding .git)")
    batch.add_argument("--format", choices=("text", "json"), default="text")
    batch.add_argument("--strict", action="store_true", help="fail on warnings too")
    batch.add_argument(
        "--readiness",
        action="store_true",
        help="with --check: add the eval readiness of each skill directory (workflow fixtures)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code or 0)
    if not args.check:
        if args.paths:
            parser.print_usage(sys.stderr)
            print("evalfix-ls: error: PATHS are only valid with --check", file=sys.stderr)
            return EXIT_USAGE
        return serve(args)
    return run_check(args)


def serve(args: argparse.Namespace) -> int:
    from .lsp.server import start

    return start(tcp=args.tcp)


def run_check(args: argparse.Namespace) -> int:
    from .batch.format_json import to_json
    from .batch.format_text import to_text_lines
    from .batch.run import CheckError, check_paths
    from .config import ProjectConfigs
    from .findings import Severity

    configs = ProjectConfigs()  # [tool.evalfix] / .evalfix.toml nearest to each file
    try:
        report = check_paths(list(args.paths), root=args.root, readiness=args.readiness, configs=configs)
    except CheckError as exc:
        print(f"evalfix-ls: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for problem in configs.problems():
        print(f"evalfix-ls: warning: configuration: {problem}", file=sys.stderr)
    out = sys.stdout
    if args.format == "json":
        # One write: json.dump writes every token separately (millions of calls for 200,000 findings).
        out.write(json.dumps(to_json(report, __version__), ensure_ascii=False, indent=2) + "\n")
    else:
        for line in to_text_lines(report):
            out.write(line + "\n")
    if not report.files:  # nothing to check is an input problem, not a clean result
        where = ", ".join(str(p) for p in args.paths) or "the current directory"
        print(
            f"evalfix-ls: error: no fixture files found in {where} "
            "(looked for evals/evals.json and skills/**/evals/**/*.json)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if report.count(Severity.ERROR):
        return EXIT_FINDINGS
    if args.strict and report.count(Severity.WARNING):
        return EXIT_FINDINGS
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
