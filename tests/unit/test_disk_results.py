"""``lsp.diagnostics.disk_results``: closed files' results kept within a budget of diagnostics,
least recently used first out, and a digest of every closed file's findings kept as long as its
key is valid (issue 33)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalfix_ls.lsp.diagnostics.disk_results import DiskResults, digest
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
