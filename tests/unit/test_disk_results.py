"""``lsp.diagnostics.disk_results``: closed files' results kept within a budget of diagnostics,
least recently used first out, and a digest of every closed file's findings kept as long as its
key is valid (issue 33)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from evalfix_ls.lsp.diagnostics.convert import digest, fingerprint
from evalfix_ls.lsp.diagnostics.disk_results import DiskResults, kept_form
from evalfix_ls.lsp.diagnostics.encoded import KeptDiagnostics, encode_items
from evalfix_ls.lsp.diagnostics.worker import Result

KEY = (1, 2, 3)


def result(name: str, diagnostics: int, key: tuple[int, ...] = KEY) -> Result:
    items: list[Any] = [object()] * diagnostics
    prints: Any = tuple((n, name) for n in range(diagnostics))
    return Result(f"file:///{name}", Path(f"/{name}"), None, key, "", "evals", items, prints)


def test_the_least_recently_used_results_leave_first_within_the_budget() -> None:
    cache = DiskResults(budget=10)
    for name in ("a", "b", "c"):
        cache.store(result(name, 4))
    assert len(cache) == 2 and cache.held_diagnostics == 8  # a left: 12 > 10
    assert cache.get(Path("/a"), KEY) is None
    assert cache.get(Path("/b"), KEY) is not None  # now the most recent
    cache.store(result("d", 4))
    assert cache.get(Path("/c"), KEY) is None and cache.get(Path("/b"), KEY) is not None


def test_a_result_larger_than_the_budget_keeps_only_its_digest() -> None:
    cache = DiskResults(budget=10)
    big = result("big", 11)
    cache.store(big)
    assert len(cache) == 0 and cache.held_diagnostics == 0
    assert cache.digest_of(Path("/big"), KEY) == digest(big.fingerprint) == (11, hash(big.fingerprint))
    assert cache.digest_of(Path("/big"), (9,)) is None  # stale once anything it depends on moved


def test_a_stale_result_is_not_answered_and_forget_drops_both() -> None:
    cache = DiskResults(budget=10)
    cache.store(result("a", 2, key=(1,)))
    assert cache.get(Path("/a"), (2,)) is None
    assert cache.forget([Path("/a")]) is True
    assert cache.digest_of(Path("/a"), (1,)) is None and cache.held_diagnostics == 0
    assert cache.forget([Path("/a")]) is False


def _diagnostic(line: int, message: str) -> types.Diagnostic:
    where = types.Range(types.Position(line, 2), types.Position(line, 9))
    return types.Diagnostic(
        range=where,
        message=message,
        severity=types.DiagnosticSeverity.Error,
        code="seeded-source-missing",
        source="evalfix-ls",
        data={"fix": ["a", 1]},
    )


def test_a_closed_file_keeps_its_diagnostics_as_the_json_the_reports_write() -> None:
    diagnostics = [_diagnostic(3, "missing 😀 source"), _diagnostic(9, "「漢字」 regex")]
    prints = fingerprint(diagnostics)
    full = Result("file:///a", Path("/a"), None, KEY, "text", "evals", diagnostics, prints)
    kept = kept_form(full)
    assert isinstance(kept.diagnostics, KeptDiagnostics) and len(kept.diagnostics) == 2
    assert kept.diagnostics.json.decode("utf-8") == encode_items(diagnostics)[1]
    assert len(kept.diagnostics.compressed) < len(kept.diagnostics.json)  # held compressed
    assert encode_items(kept.diagnostics)[1] == encode_items(diagnostics)[1]  # written as it is
    assert list(kept.diagnostics) == diagnostics  # read back as objects when asked
    assert kept.fingerprint == () and kept.text == ""
    assert kept.findings_digest() == full.findings_digest() == digest(prints)
    cache = DiskResults(budget=10)
    cache.store(kept)
    assert cache.held_diagnostics == 2 and cache.digest_of(Path("/a"), KEY) == digest(prints)
