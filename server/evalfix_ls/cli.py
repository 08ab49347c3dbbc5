"""Command line: ``evalfix-ls`` (language server on stdio) and ``evalfix-ls --check PATHS``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from . import __version__

if TYPE_CHECKING:
    import argparse

    from .batch.run import FileReport, Report


class _LineFormat(Protocol):
    """A line-oriented output format: ``batch.format_text`` or ``batch.format_github``."""

    def file_lines(self, file: FileReport) -> Iterator[str]: ...
    def summary_lines(self, report: Report) -> Iterator[str]: ...


EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
# How editors start the server: served without building the argument parser, which costs a few ms
# of CPU before ``initialize`` (argparse, and the help formatter it builds for every argument,
# whose terminal width comes from ``shutil``, which imports the compression modules).
SERVE_ARGVS: tuple[list[str], ...] = ([], ["--stdio"])


def build_parser() -> argparse.ArgumentParser:
    import argparse

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
    batch.add_argument(
        "--format",
        choices=("text", "json", "sarif", "github"),
        default="text",
        help="text (default), json, sarif (SARIF 2.1.0) or github (GitHub Actions annotations)",
    )
    batch.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="N",
        help="check files in N processes (default: the number of CPUs); the output is the same for any N",
    )
    batch.add_argument("--strict", action="store_true", help="fail on warnings too")
    fixing = parser.add_argument_group("fixing (with --check)")
    fixing.add_argument("--fix", action="store_true", help="apply the safe fixes in place, then re-check")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="with --fix: apply the unsafe fixes too")
    fixing.add_argument(
        "--diff",
        action="store_true",
        help="print the changes --fix/--migrate would make as a diff; write nothing",
    )
    fixing.add_argument(
        "--migrate",
        action="store_true",
        help="rewrite legacy workflow fixtures in the canonical spec-first.workflow-eval-fixtures.v1 shape",
    )
    batch.add_argument(
        "--results",
        action="store_true",
        help="print the newest run result of every case of the eval suites in PATHS (text, json or github)",
    )
    batch.add_argument(
        "--readiness",
        action="store_true",
        help="with --check: add the eval readiness of each skill directory (workflow fixtures)",
    )
    return parser


def _positive_int(value: str) -> int:
    import argparse

    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {value!r}")
    return number


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv) in SERVE_ARGVS:
        return serve(tcp=None)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code or 0)
    if args.results and not args.check:
        return run_results(args)
    if not args.check:
        if args.fix or args.unsafe_fixes or args.diff or args.migrate:
            parser.print_usage(sys.stderr)
            print(
                "evalfix-ls: error: --fix, --unsafe-fixes, --diff and --migrate need --check", file=sys.stderr
            )
            return EXIT_USAGE
        if args.paths:
            parser.print_usage(sys.stderr)
            print("evalfix-ls: error: PATHS are only valid with --check", file=sys.stderr)
            return EXIT_USAGE
        return serve(args.tcp)
    return run_check(args)


def serve(tcp: str | None) -> int:
    import gc

    # The server's imports (lsprotocol's types above all) allocate enough objects to trigger full
    # collections that free nothing: 50-65 ms of CPU before ``initialize`` could be answered. The
    # collector stays off until the server is built (``memory.collector.start_threads_and_freeze``).
    gc.disable()
    try:
        from .lsp.server import start

        return start(tcp=tcp)
    finally:
        gc.enable()  # also when it returned before building the server (a bad --tcp)


def run_check(args: argparse.Namespace) -> int:
    from concurrent.futures.process import BrokenProcessPool

    from .batch.parallel import default_jobs
    from .batch.run import CheckError, check_paths
    from .config.project_config import ProjectConfigs
    from .findings import Severity

    _die_quietly_on_closed_pipe()
    configs = ProjectConfigs()  # [tool.evalfix] / .evalfix.toml nearest to each file
    if args.fix or args.unsafe_fixes or args.diff or args.migrate:
        from .batch.cli_fix import run_fix

        outcome = run_fix(args, configs)
        if outcome is not None:  # --diff with changes to show, or a usage error
            return outcome
        configs = ProjectConfigs()  # the re-check reads the files as they are now
    printer = _Printer(args.format, sys.stdout)
    try:
        report = check_paths(
            list(args.paths),
            root=args.root,
            readiness=args.readiness,
            configs=configs,
            jobs=args.jobs or default_jobs(),
            on_file=printer.file,
        )
    except CheckError as exc:  # names a PATH or a --root as given
        _say(f"evalfix-ls: error: {exc}")
        return EXIT_USAGE
    except BrokenProcessPool:
        print("evalfix-ls: error: a worker process died (out of memory?); try --jobs 1", file=sys.stderr)
        return EXIT_USAGE
    for problem in configs.problems():  # quotes the project file's keys and values
        _say(f"evalfix-ls: warning: configuration: {problem}")
    printer.finish(report)
    if not report.files:  # nothing to check is an input problem, not a clean result
        where = ", ".join(str(p) for p in args.paths) or "the current directory"
        _say(
            f"evalfix-ls: error: no fixture files found in {where} "
            "(looked for evals/evals.json and skills/**/evals/**/*.json)"
        )
        return EXIT_USAGE
    if report.count(Severity.ERROR):
        return EXIT_FINDINGS
    if args.strict and report.count(Severity.WARNING):
        return EXIT_FINDINGS
    return EXIT_OK


def run_results(args: argparse.Namespace) -> int:
    """``--results``: what the last runs said, case by case; never a failing exit status."""
    from .batch.results import collect, render

    _die_quietly_on_closed_pipe()
    if args.format == "sarif":
        _say("evalfix-ls: error: --results prints text, json or github")
        return EXIT_USAGE
    found = collect(list(args.paths), args.root)
    if not found:
        where = ", ".join(str(p) for p in args.paths) or "the current directory"
        _say(f"evalfix-ls: error: no eval suites found in {where} (looked for evals/evals.json)")
        return EXIT_USAGE
    from .js.values import escape_lone_surrogates

    sys.stdout.write(escape_lone_surrogates(render(found, args.format)))
    return EXIT_OK


def _say(line: str) -> None:
    """A message on stderr that quotes a path or a project file: what a terminal or a CI log would
    act on (ESC, a line break…) is written as an escape (``batch.format_text.stderr_line``)."""
    from .batch.format_text import stderr_line

    print(stderr_line(line), file=sys.stderr)


def _die_quietly_on_closed_pipe() -> None:
    """``evalfix-ls --check | head``: end like other Unix filters when the reader goes away,
    instead of a BrokenPipeError traceback (text output streams, so this happens mid-run)."""
    import signal

    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


class _Printer:
    """Writes the report in one format: text and github lines file by file as files are done
    (streaming), json and sarif documents at the end."""

    def __init__(self, fmt: str, out: TextIO) -> None:
        self.format, self.out = fmt, out

    def write(self, text: str) -> None:
        """Every format goes out through here: a lone surrogate (from ``"\\uDFAA"`` in a fixture)
        is written as its escape, since UTF-8 cannot encode it and one string must not stop the
        report. In JSON and SARIF the escape is the same string."""
        from .js.values import escape_lone_surrogates

        self.out.write(escape_lone_surrogates(text))

    def file(self, file: FileReport) -> None:
        if self.format in ("text", "github"):
            # One write per file (a file can have 200,000 findings), flushed so that it shows now.
            self.write("".join(line + "\n" for line in self._module().file_lines(file)))
            self.out.flush()

    def finish(self, report: Report) -> None:
        if self.format == "json":
            from .batch.format_json import to_json

            self._dump(to_json(report, __version__))
        elif self.format == "sarif":
            from .batch.format_sarif import to_sarif

            self._dump(to_sarif(report, __version__))
        else:
            for line in self._module().summary_lines(report):
                self.write(line + "\n")

    def _module(self) -> _LineFormat:
        from .batch import format_github, format_text

        return format_github if self.format == "github" else format_text

    def _dump(self, document: dict[str, object]) -> None:
        # One write: json.dump writes every token separately (millions of calls for 200,000 findings).
        self.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
