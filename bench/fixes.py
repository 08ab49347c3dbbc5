"""Fix benchmark: the fix engine on the planted suites (nine known violations spread over the
suite) — every finding's fixes (what a code-action request for the whole document costs), fix-all
(what ``source.fixAll`` and ``--fix`` cost per file) — and the migration of a legacy workflow
fixture of the same size. In process, the core only (the LSP round trip is ``bench.lsp``'s).

    python -m bench.fixes                    # 200k and 2m
    python -m bench.fixes --sizes 20k,10m --repeat 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness.common import (
    DATA_DIR,
    describe_machine,
    fmt_ms,
    print_table,
    save_results,
    time_in_process,
)
from bench.harness.generate import SIZES, generate_suite, parse_sizes, write_suite_tree
from evalfix_ls.analysis import analyze
from evalfix_ls.services.document import DocumentView
from evalfix_ls.services.fixes import fix_all, fixes_for, reanalyzer
from evalfix_ls.services.migrate import migrate_document


def _document(root: Path, rel: str, text: str) -> DocumentView:
    path = root / rel
    return DocumentView(text, analyze(text, path=path, repo_root=root), path, root, rel)


def legacy_fixture(target_bytes: int) -> str:
    """A legacy (prompt-examples) workflow fixture of about ``target_bytes``: aliases, names,
    negative signals and local fields in every case."""
    cases = []
    body = {
        "schema_version": "prompt-examples/v1",
        "skill": "bench-skill",
        "source_refs": [],
        "examples": cases,
    }
    size = len(json.dumps(body, ensure_ascii=False, indent=2).encode())
    index = 0
    while size < target_bytes:  # each case counted once (dumping the whole body each time is quadratic)
        cases.append(
            {
                "name": f"Case number {index} 计划",
                "user_intent": f"请为第 {index} 个功能写计划 📦",
                "expected_posture": "Plans before writing code.",
                "negative_signal": "starts coding",
                "context_snippets": ["plan", f"feature {index}"],
                "source_note": "bench",
                "coverage_tags": ["trigger" if index % 2 else "boundary"],
                "boundary_note": "Planning only.",
            }
        )
        size += len(json.dumps(cases[-1], ensure_ascii=False, indent=2).encode()) + 6 + 6 * 12
        index += 1
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def measure(label: str, repeat: int) -> list[str]:
    suite = generate_suite(SIZES[label], planted=True)
    root = DATA_DIR / f"planted-{label}"
    path = write_suite_tree(root, suite)
    rel = path.relative_to(root).as_posix()
    document = _document(root, rel, suite.text)
    findings = document.analysis.findings
    per_document = time_in_process(lambda: [fixes_for(document, f) for f in findings], repeat).median
    start = time.perf_counter()
    result = fix_all(document, reanalyzer(document))  # timed once: each round re-analyses the suite
    fix_all_time = time.perf_counter() - start
    legacy = legacy_fixture(SIZES[label])
    legacy_doc = _document(root, "skills/bench-skill/evals/legacy.json", legacy)
    migrate_time = time_in_process(lambda: migrate_document(legacy_doc), repeat).median
    return [
        label,
        str(len(findings)),
        fmt_ms(per_document),
        str(len(result.applied)),
        fmt_ms(fix_all_time),
        fmt_ms(migrate_time),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200k,2m")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(describe_machine())
    rows = [measure(label, args.repeat) for label in parse_sizes(args.sizes)]
    headers = [
        "suite",
        "findings",
        "fixes of every finding",
        "fix-all fixes",
        "fix-all",
        "migrate (legacy, same size)",
    ]
    print_table(headers, rows, right=[False, True, True, True, True, True])
    save_results("fixes", {"headers": headers, "rows": rows})
    print(describe_machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())
