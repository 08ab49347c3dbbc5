"""The pages of pymalloc's empty pools go back to the system (``memory/pool_trim.py``, issue 33):
RSS falls after a trim where a few live blocks keep arenas, the interpreter goes on allocating in
the trimmed pools, and the trim leaves alone what pymalloc may take while it runs.

The measurements run in a fresh interpreter each (``_run``): RSS of the pytest process says little,
and a broken trim there would corrupt the test process instead of failing one test."""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import struct
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from evalfix_ls.memory import arena_lists, exclusive, pool_retire, pool_thin, pool_trim, pymalloc_table

SERVER = Path(__file__).resolve().parents[2] / "server"
pytestmark = pytest.mark.skipif(not pool_trim._supported(), reason="pymalloc on 64-bit Linux CPython only")

_PRELUDE = """
import gc, json, sys
sys.path.insert(0, {server!r})
from evalfix_ls.memory import arena_lists, exclusive, pool_trim

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

def fill(count):
    # three small blocks per item, in several size classes
    return [(str(i) * 3, [i], {{"k": i}}) for i in range(count)]

trimmer = pool_trim.trimmer()

def in_thread(call):
    # the trim refuses the main thread (a signal handler could run between two of its writes)
    import threading
    done = []
    worker = threading.Thread(target=lambda: done.append(call()))
    worker.start()
    worker.join()
    return done[0]

def trim():  # until a trim completes: one may stop at its deadline on a busy machine
    return in_thread(pool_trim.trim_empty_pools)

def listed(arena):
    return arena_lists._listed_pools(pool_trim._words(arena.address, pool_trim.ARENA_SIZE // 8), arena)
"""


def _run(body: str, env: dict[str, str] | None = None) -> dict[str, object]:
    script = _PRELUDE.format(server=str(SERVER)) + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_trim_gives_back_the_empty_pools_that_live_blocks_kept():
    figures = _run("""
        items = fill(400_000)
        kept = items[::2_000]  # one item in 2,000 stays: every arena keeps a few used pools
        del items
        gc.collect()
        freed = rss_mb()
        report = trim()
        print(json.dumps({"freed": freed, "trimmed": rss_mb(), "pools": report.pools,
                          "complete": report.complete, "kept": len(kept)}))
    """)
    assert figures["complete"] and figures["pools"] > 1_000
    # the 400,000 items took about 100 MB; most of it was in pools now empty
    assert figures["trimmed"] < 0.6 * figures["freed"], figures


def test_the_trimmed_pools_are_used_again_with_their_contents_intact():
    figures = _run("""
        kept = fill(300_000)[::1_000]
        gc.collect()
        first = trim()
        again = fill(300_000)  # the same size classes, in the pools just trimmed
        intact = all(a == (str(i) * 3, [i], {"k": i}) for i, a in enumerate(again))
        intact = intact and all(k[1][0] == k[2]["k"] for k in kept)
        del again
        gc.collect()
        second = trim()
        print(json.dumps({"intact": intact, "first": first.pools, "second": second.pools}))
    """)
    assert figures["intact"]
    assert figures["first"] > 100 and figures["second"] > 100


def test_every_pool_given_back_is_marked_unused_so_pymalloc_initializes_it_again():
    """Reused with its old size class, a pool's free list would be followed through its zeroed
    body: each trimmed pool still on its arena's list has its size class reset to pymalloc's
    "never used"."""
    figures = _run("""
        trimmer._order = None  # no pool retired: they stay listed, which is what is checked here
        kept = fill(200_000)[::1_000]
        gc.collect()
        report = trim()
        table, count = trimmer._table(pool_trim._Readable(pool_trim._mappings()))
        raw = pool_trim._read(table, count * pool_trim.ARENA_OBJECT.size)
        arenas = arena_lists._arenas_with_empty_pools(table, raw, count)
        marked = unmarked = 0
        for arena in arenas[pool_trim._margin(arenas):]:
            for pool in listed(arena):
                header = pool_trim.POOL_HEADER.unpack(pool_trim._read(pool, pool_trim.POOL_HEADER.size))
                if header[5] == pool_trim.DUMMY_SIZE_IDX:
                    marked += 1
                else:
                    unmarked += 1
        print(json.dumps({"marked": marked, "unmarked": unmarked, "pools": report.pools,
                          "tail": report.tail_pools}))
    """)
    assert figures["marked"] >= figures["pools"] - figures["tail"] > 100
    assert figures["unmarked"] == 0


def test_the_empty_pools_below_the_frontier_go_back_whole_and_the_others_keep_only_their_header():
    """An arena's run of empty pools right below its carving frontier is handed back to pymalloc
    as never carved: none of its pages stays resident, the header's neither. Every other empty
    pool keeps its header page (pymalloc's list runs through it) and nothing else."""
    figures = _run("""
        import ctypes, os
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)
        page = os.sysconf("SC_PAGE_SIZE")

        def resident(address, length):
            vector = ctypes.create_string_buffer(length // page)
            assert libc.mincore(address, length, vector) == 0
            return [byte & 1 for byte in vector.raw]

        trimmer._order = None  # no pool retired: the listed ones keep their header page
        kept = fill(300_000)[::1_500]
        gc.collect()
        table, count = trimmer._table(pool_trim._Readable(pool_trim._mappings()))
        raw = pool_trim._read(table, count * pool_trim.ARENA_OBJECT.size)
        before = arena_lists._arenas_with_empty_pools(table, raw, count)
        before = before[pool_trim._margin(before):]
        report = trim()
        raw = pool_trim._read(table, count * pool_trim.ARENA_OBJECT.size)
        after = {a.slot: a for a in arena_lists._arenas_with_empty_pools(table, raw, count)}
        whole = on_lists = tail_pages = header_pages = body_pages = 0
        for arena in before:
            now = after[arena.slot]
            given = range(now.pool_address, arena.pool_address, pool_trim.POOL_SIZE)
            whole += len(given)
            for pool in given:
                tail_pages += sum(resident(pool, pool_trim.POOL_SIZE))
            for pool in listed(now):
                on_lists += 1
                pages = resident(pool, pool_trim.POOL_SIZE)
                header_pages += pages[0]
                body_pages += sum(pages[1:])
        print(json.dumps({"whole": whole, "tail": report.tail_pools, "listed": on_lists,
                          "tail pages": tail_pages, "header pages": header_pages,
                          "body pages": body_pages}))
    """)
    assert figures["whole"] == figures["tail"] > 50, figures
    assert figures["tail pages"] == 0, figures
    assert figures["listed"] > 50 and figures["header pages"] == figures["listed"], figures
    assert figures["body pages"] == 0, figures


def test_an_arenas_empty_pools_are_relinked_lowest_first():
    """pymalloc takes the first pool of an arena's list: after a trim the lowest comes first, so
    what is allocated next gathers low and the arena's top can empty into the tail."""
    figures = _run("""
        trimmer._order = None  # no pool retired: the lists stay whole
        kept = fill(300_000)[::700]
        gc.collect()
        trim()
        table, count = trimmer._table(pool_trim._Readable(pool_trim._mappings()))
        raw = pool_trim._read(table, count * pool_trim.ARENA_OBJECT.size)
        arenas = arena_lists._arenas_with_empty_pools(table, raw, count)
        lists = [listed(a) for a in arenas[pool_trim._margin(arenas):]]
        print(json.dumps({"lists": len([l for l in lists if len(l) > 1]),
                          "ordered": all(l == sorted(l) for l in lists)}))
    """)
    assert figures["lists"] > 5 and figures["ordered"], figures


def test_a_trim_stopped_by_its_deadline_is_taken_up_again_until_it_completes():
    """Each trim holds the interpreter for at most ``BUDGET_SECONDS``; one that stops there
    has given back what it reached, the next one skips that and goes on."""
    figures = _run("""
        pool_trim.BUDGET_SECONDS = 0.01
        pool_trim.TRIM_ATTEMPTS = 1_000
        kept = fill(500_000)[::1_000]
        gc.collect()
        first = in_thread(trimmer.trim)
        before = pool_trim.trims()[0]
        rest = trim()
        print(json.dumps({"first": [first.pools, first.complete], "rest": [rest.pools, rest.complete],
                          "trims": pool_trim.trims()[0] - before}))
    """)
    assert figures["first"][0] > 0 and not figures["first"][1], figures
    assert figures["rest"][0] > 0 and figures["rest"][1] and figures["trims"] > 1, figures


def test_the_trim_stays_off_where_blocks_are_not_pymallocs():
    """With the system allocator there are no pools: the table is not found, nothing is touched."""
    figures = _run(
        """
        try:
            pool_trim.PoolTrimmer()
            found = True
        except LookupError:
            found = False
        print(json.dumps({"supported": pool_trim._supported(), "trimmer": trimmer is not None, "found": found,
                          "trim": pool_trim.trim_empty_pools()}))
        """,
        env={"PYTHONMALLOC": "malloc"},
    )
    assert figures == {"supported": False, "trimmer": False, "found": False, "trim": None}


def test_the_trim_can_be_switched_off():
    figures = _run(
        'print(json.dumps({"trimmer": trimmer is not None}))',
        env={"EVALFIX_LS_POOL_TRIM": "0"},
    )
    assert figures == {"trimmer": False}


def test_no_other_thread_runs_inside_the_exclusive_part():
    """A busy thread would take the interpreter lock within a switch interval (5 ms): inside
    ``_exclusive`` it does not, for many intervals."""
    steps = [0]
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            steps[0] += 1

    worker = threading.Thread(target=busy, daemon=True)
    worker.start()
    try:
        while steps[0] == 0:
            time.sleep(0.001)
        spin = 10 * sys.getswitchinterval()  # ten times what the busy thread would wait
        with exclusive._exclusive():
            seen = steps[0]
            spin_until = time.monotonic() + spin
            while time.monotonic() < spin_until:
                pass
            assert steps[0] == seen
        assert sys.getswitchinterval() < exclusive.SWITCH_INTERVAL_SECONDS  # restored
    finally:
        stop.set()
        worker.join()


def _arena_table(entries: list[tuple[int, int, int, int | None, int | None]]) -> tuple[int, bytes]:
    """A table of arena objects at a made-up address: (address, free pools, first pool, index of
    the next arena, index of the previous one) per entry, None for no link."""
    base = 0x10_0000
    raw = b""
    for address, free, first, following, previous in entries:
        link = [0 if i is None else base + i * pool_trim.ARENA_OBJECT.size for i in (following, previous)]
        raw += pool_trim.ARENA_OBJECT.pack(address, address, free, 64, first, *link)
    return base, raw


def test_arenas_come_in_pymallocs_order_of_use_not_by_address_or_count():
    # usable list: 2 -> 0 -> 3; entry 1 has no empty pool, entry 4 is an unused arena object
    table, raw = _arena_table(
        [
            (0x200000, 9, 0x204000, 3, 2),
            (0x300000, 0, 0, None, None),
            (0x400000, 5, 0x404000, 0, None),
            (0x500000, 2, 0x504000, None, 0),
            (0, 0, 0, None, None),
        ]
    )
    order = arena_lists._arenas_with_empty_pools(table, raw, 5)
    assert [arena.slot for arena in order] == [2, 0, 3]
    assert order[0] == arena_lists._Arena(5, 2, 0x400000, 0x400000, 64, 0x404000)


def test_the_margin_leaves_the_arenas_pymalloc_takes_pools_from_first(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(pool_trim, "MARGIN_POOLS", 10)

    def arena(free: int, slot: int) -> arena_lists._Arena:
        return arena_lists._Arena(free, slot, 0, 0, 64, 0)

    arenas = [arena(free, i) for i, free in enumerate([3, 4, 2, 30, 40])]
    assert pool_trim._margin(arenas) == 4  # 3 + 4 + 2 < 10: the fourth arena is kept too
    assert pool_trim._margin(arenas[:2]) == 2
    assert pool_trim._margin([arena(12, 0), arena(1, 1)]) == 1


def test_a_trim_in_this_process_reports_what_it_did():
    found = pool_trim.trimmer()
    assert found is not None
    kept = [[i] for i in range(200_000)][::1_000]
    reports: list[pool_trim.TrimReport | None] = []
    worker = threading.Thread(target=lambda: reports.append(pool_trim.trim_empty_pools()))
    worker.start()
    worker.join()
    report = reports[0]
    assert report is not None and report.complete and report.arenas >= report.skipped_arenas
    assert ctypes.c_uint64.from_address(found._pointer).value != 0 and kept


def test_a_trim_asked_while_another_runs_returns_at_once_without_trimming():
    found = pool_trim.trimmer()
    assert found is not None
    reports: list[pool_trim.TrimReport] = []
    before = pool_trim.trims()
    with found._lock:  # another thread's trim, as far as this one can tell
        asking = threading.Thread(target=lambda: reports.append(found.trim()), daemon=True)
        asking.start()
        asking.join(timeout=30)  # a bound for a broken lock only: the answer comes at once
        answered = not asking.is_alive()
    asking.join()
    assert answered
    assert reports == [pool_trim.TrimReport(0, 0, 0, complete=False)]
    assert pool_trim.trims() == before


def test_a_table_whose_list_has_no_single_head_is_left_alone():
    """Two arenas with empty pools and no predecessor is not a list pymalloc keeps (a stale or
    misread table): nothing is walked, nothing trimmed."""
    table, raw = _arena_table(
        [
            (0x200000, 9, 0x204000, None, None),
            (0x400000, 5, 0x404000, None, None),
        ]
    )
    assert arena_lists._arenas_with_empty_pools(table, raw, 2) == []


def test_the_lock_is_let_go_before_the_exclusive_part_only_when_another_thread_exists():
    """Alone (the server's start-up, before its workers), no thread can be waiting: the table is
    found without the 50 ms hand-over. With another thread, the hand-over happens."""
    figures = _run("""
        import threading, time
        slept = []
        real_sleep = time.sleep
        time.sleep = lambda seconds: (slept.append(seconds), real_sleep(seconds))[1]
        with exclusive._exclusive():
            pass
        alone = list(slept)
        other = threading.Thread(target=real_sleep, args=(0.5,))
        other.start()
        with exclusive._exclusive():
            pass
        other.join()
        print(json.dumps({"alone": alone, "with another": slept[len(alone):]}))
    """)
    assert figures["alone"] == []
    assert figures["with another"] == [exclusive.HANDOVER_SECONDS]


def _libc_madvise() -> Any:
    """``madvise`` as the trimmer calls it (through ``PyDLL``: the interpreter lock is kept)."""
    madvise = ctypes.PyDLL("libc.so.6").madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    return madvise


class _FakeArena:
    """An arena's worth of anonymous memory laid out as pymalloc would, its entry in a table of four, and
    pymalloc's order of arenas (``nfp2lasta`` and ``usable_arenas``, as 3.11 lays them out): the
    trim's reads and writes checked on memory pymalloc does not own. ``others`` gives the other
    slots' counts of empty pools, ``order`` pymalloc's list of arenas (this one is slot 3)."""

    CAPACITY = POOLS = pool_trim.ARENA_SIZE // pool_trim.POOL_SIZE  # untouched pages cost nothing
    SLOT = 3

    def __init__(
        self,
        used: set[int],
        listed: list[int],
        carved: int,
        free: int | None = None,
        others: dict[int, int] | None = None,
        order: list[int] | None = None,
    ) -> None:
        size = (self.POOLS + 1) * pool_trim.POOL_SIZE
        # private, as pymalloc's arenas: a shared mapping keeps its contents through MADV_DONTNEED
        self.memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        start = ctypes.addressof(ctypes.c_char.from_buffer(self.memory))
        self.base = -(-start // pool_trim.POOL_SIZE) * pool_trim.POOL_SIZE
        size = pool_trim.ARENA_OBJECT.size
        self.table = ctypes.create_string_buffer(4 * size)
        self.order_memory = ctypes.create_string_buffer(8 * (pool_retire.ORDER_SLOTS + 1))
        self.entry = (ctypes.c_char * size).from_buffer(self.table, self.SLOT * size)
        for number in range(carved):
            following = self.pool(listed[listed.index(number) + 1]) if number in listed[:-1] else 0
            count = 1 if number in used else 0
            header = pool_trim.POOL_HEADER.pack(count, 0, following, 0, self.SLOT, 5, 0, 0)
            ctypes.memmove(self.pool(number), header, len(header))
            ctypes.memset(self.pool(number) + 4096, 0x5A, pool_trim.POOL_SIZE - 4096)  # a body
        self.arena = arena_lists._Arena(
            free=self.CAPACITY - len(used) if free is None else free,
            slot=self.SLOT,
            address=self.base,
            pool_address=self.pool(carved),
            total=self.CAPACITY,
            first=self.pool(listed[0]) if listed else 0,
        )
        counts = {0: 20, **(others or {}), self.SLOT: self.arena.free}
        self._link(counts, order or [0, self.SLOT])

    def _link(self, counts: dict[int, int], order: list[int]) -> None:
        a = self.arena
        last_with = [0] * pool_retire.ORDER_SLOTS
        for position, slot in enumerate(order):
            following = self.slot_address(order[position + 1]) if position + 1 < len(order) else 0
            previous = self.slot_address(order[position - 1]) if position else 0
            if slot == self.SLOT:
                fields = (a.address, a.pool_address, a.free, a.total, a.first, following, previous)
            else:  # another arena: only its counts and links are read
                fields = (0x100000 * (slot + 1), 0, counts[slot], 64, 0, following, previous)
            pool_trim.ARENA_OBJECT.pack_into(self.table, slot * pool_trim.ARENA_OBJECT.size, *fields)
            last_with[counts[slot]] = self.slot_address(slot)
        words = [*last_with, self.slot_address(order[0])]
        ctypes.memmove(self.order_memory, struct.pack(f"<{len(words)}Q", *words), 8 * len(words))

    def slot_address(self, slot: int) -> int:
        return ctypes.addressof(self.table) + slot * pool_trim.ARENA_OBJECT.size

    def views(self) -> pool_retire.Views:
        table = ctypes.addressof(self.table)
        order = ctypes.addressof(self.order_memory)
        found = pool_retire.ArenaOrder(order, order + 8 * pool_retire.ORDER_SLOTS)
        return pool_retire.views(table, pool_trim._words(table, 4 * pool_trim.ENTRY_WORDS), found)

    def retire(self, listed: list[int], madvise: Any = None) -> tuple[int, list[int]]:
        """The trimmer's retirement of ``listed`` (pool numbers): how many went, and the pool
        numbers still listed."""
        trimmer = pool_trim.PoolTrimmer.__new__(pool_trim.PoolTrimmer)
        trimmer._madvise = _libc_madvise() if madvise is None else madvise
        memory = pool_trim._words(self.base, self.POOLS * pool_trim.POOL_SIZE // 8)
        pointer = (ctypes.c_uint64 * 1)(ctypes.addressof(self.table))
        pools = [self.pool(n) for n in listed]
        gone, kept = trimmer._retire(self.views(), pointer, memory, self.arena, pools)
        return gone, [(pool - self.base) // pool_trim.POOL_SIZE for pool in kept]

    def counts(self) -> tuple[int, int, int | None]:
        """The entry's empty and total pools, and its first listed pool's number (None: none)."""
        _, _, free, total, first, _, _ = pool_trim.ARENA_OBJECT.unpack(self.entry.raw)
        return free, total, (first - self.base) // pool_trim.POOL_SIZE if first else None

    def header_byte(self, number: int) -> int:
        return ctypes.string_at(self.pool(number) + 36, 1)[0]  # the size class's low byte

    def linked(self) -> list[tuple[int, int]]:
        """pymalloc's list as the fake order and table now hold it: (slot, empty pools) each."""
        words = self._order_words()
        table = ctypes.addressof(self.table)
        found, entry = [], words[-1]
        while entry and len(found) < 4:
            slot = (entry - table) // pool_trim.ARENA_OBJECT.size
            fields = pool_trim.ARENA_OBJECT.unpack_from(self.table, slot * pool_trim.ARENA_OBJECT.size)
            found.append((slot, fields[2]))
            entry = fields[5]
        return found

    def _order_words(self) -> tuple[int, ...]:
        return struct.unpack(f"<{pool_retire.ORDER_SLOTS + 1}Q", self.order_memory.raw)

    def last_with(self) -> dict[int, int]:
        """``nfp2lasta`` as the fake order holds it: count -> slot, where one is named."""
        words = self._order_words()[:-1]
        table = ctypes.addressof(self.table)
        return {count: (w - table) // pool_trim.ARENA_OBJECT.size for count, w in enumerate(words) if w}

    def pool(self, number: int) -> int:
        return self.base + number * pool_trim.POOL_SIZE

    def uncarve(self, madvise: Any = None) -> pool_trim._Uncarved:
        trimmer = pool_trim.PoolTrimmer.__new__(pool_trim.PoolTrimmer)
        trimmer._madvise = _libc_madvise() if madvise is None else madvise
        table_words = pool_trim._words(ctypes.addressof(self.table), 4 * pool_trim.ENTRY_WORDS)
        memory = pool_trim._words(self.base, self.POOLS * pool_trim.POOL_SIZE // 8)
        return trimmer._uncarve_tail(table_words, memory, self.arena)

    def fields(self) -> tuple[int, int]:
        """The entry's carving frontier and first listed pool, as pool numbers (None: no pool)."""
        _, frontier, _, _, first, _, _ = pool_trim.ARENA_OBJECT.unpack(self.entry.raw)
        return (frontier - self.base) // pool_trim.POOL_SIZE, (first - self.base) // pool_trim.POOL_SIZE

    def next_of(self, number: int) -> int | None:
        header = ctypes.string_at(self.pool(number), pool_trim.POOL_HEADER.size)
        following = pool_trim.POOL_HEADER.unpack(header)[2]
        return None if following == 0 else (following - self.base) // pool_trim.POOL_SIZE

    def body_byte(self, number: int) -> int:
        return ctypes.string_at(self.pool(number) + pool_trim.POOL_SIZE - 1, 1)[0]


def test_the_run_below_the_frontier_is_uncarved_and_the_rest_relinked_in_address_order():
    # pools 0 and 2 in use, 5 1 4 3 empty (pymalloc's last-freed-first order), 6 and 7 never carved
    arena = _FakeArena(used={0, 2}, listed=[5, 1, 4, 3], carved=6)
    done = arena.uncarve()
    assert done.tail == (arena.pool(5), arena.pool(4), arena.pool(3))
    assert done.kept == [arena.pool(1)]
    assert arena.fields() == (3, 1)  # frontier lowered over 3-5; the list starts at pool 1
    assert arena.next_of(1) is None
    assert [arena.body_byte(n) for n in range(6)] == [0x5A, 0x5A, 0x5A, 0, 0, 0]  # the tail's pages went


def test_several_kept_pools_are_linked_lowest_first_and_nothing_is_uncarved_without_a_run():
    arena = _FakeArena(used={1, 5}, listed=[4, 0, 3, 2], carved=6)
    done = arena.uncarve()
    assert done.tail == ()
    assert arena.fields() == (6, 0)
    assert [arena.next_of(n) for n in (0, 2, 3, 4)] == [2, 3, 4, None]


def test_an_arena_whose_listed_pools_all_lie_below_the_frontier_is_left_with_an_empty_list():
    arena = _FakeArena(used={0, 1}, listed=[2, 3], carved=4)
    done = arena.uncarve()
    assert done == pool_trim._Uncarved(tail=(arena.pool(3), arena.pool(2)), kept=[])
    _, frontier, _, _, first, _, _ = pool_trim.ARENA_OBJECT.unpack(arena.entry.raw)
    assert (frontier, first) == (arena.pool(2), 0)  # pymalloc carves pool 2 next


def test_an_arena_whose_list_disagrees_with_its_count_is_not_rewritten():
    """nfreepools counts the listed pools and those never carved: a list one short of it (a
    misread, or a layout this module does not know) leaves the entry and the list as they are."""
    arena = _FakeArena(used={0, 2}, listed=[5, 1, 4, 3], carved=6, free=_FakeArena.CAPACITY - 3)
    done = arena.uncarve()
    assert done == pool_trim._Uncarved(tail=(), kept=[])  # nor are their bodies given back
    assert arena.fields() == (6, 5)
    assert [arena.next_of(n) for n in (5, 1, 4, 3)] == [1, 4, 3, None]
    assert [arena.body_byte(n) for n in range(6)] == [0x5A] * 6


def test_a_trim_is_taken_up_at_the_arena_where_the_last_one_stopped():
    arenas = [arena_lists._Arena(5, slot, 0, 0, 64, 0) for slot in (7, 2, 9, 4)]
    assert [a.slot for a in pool_trim._resumed(arenas, 9)] == [9, 4, 7, 2]
    assert [a.slot for a in pool_trim._resumed(arenas, -1)] == [7, 2, 9, 4]  # the last one completed
    assert [a.slot for a in pool_trim._resumed(arenas, 3)] == [7, 2, 9, 4]  # that arena has gone


def test_an_arena_is_rewritten_from_its_entry_as_it_is_now_not_as_the_table_read_said():
    """A pool freed into the arena after the trim read the table (pool 5 here: the list and the
    count grew) is on the list the rewrite walks: the entry is read again, through views made
    before, right before the walk and the writes, so it is neither lost nor left counted."""
    arena = _FakeArena(used={0, 2}, listed=[5, 1, 4, 3], carved=6)
    stale = arena.arena
    arena.arena = stale._replace(free=stale.free - 1, first=arena.pool(1))  # as read before the free
    done = arena.uncarve()
    assert done.tail == (arena.pool(5), arena.pool(4), arena.pool(3))
    assert arena.fields() == (3, 1)


def test_the_trim_refuses_the_main_thread_and_a_traced_thread():
    """Between two of the trim's writes no Python code may run: on the main thread a signal
    handler could, in a traced thread the trace function would."""
    assert pool_trim.trimmer() is not None
    assert exclusive._nothing_runs_between_steps() is False  # pytest runs tests on the main thread
    seen: list[bool] = []

    def traced() -> None:
        sys.settrace(lambda *_: None)
        try:
            seen.append(exclusive._nothing_runs_between_steps())
        finally:
            sys.settrace(None)
        seen.append(exclusive._nothing_runs_between_steps())

    worker = threading.Thread(target=traced)
    worker.start()
    worker.join()
    assert seen == [False, True]


def test_a_pool_carved_while_the_tail_is_given_back_puts_the_tail_back_on_the_list():
    """``madvise``'s audit event can run a hook, and a hook can make pymalloc carve a pool. The
    frontier is still above the tail then (carving takes a never-carved pool, not one being given
    back); the frontier moved, so the tail is no longer right below it: its pools go back on the
    list, their zeroed headers written again as empty and unused."""
    arena = _FakeArena(used={0, 2}, listed=[5, 1, 4, 3], carved=6)

    def madvise_while_a_pool_is_carved(address: int, length: int, advice: int) -> int:
        ctypes.memset(address, 0, length)  # what MADV_DONTNEED leaves
        fields = pool_trim.ARENA_OBJECT.unpack(arena.entry.raw)
        carved = (fields[0], fields[1] + pool_trim.POOL_SIZE, fields[2] - 1, *fields[3:])  # pool 6 taken
        pool_trim.ARENA_OBJECT.pack_into(arena.entry, 0, *carved)
        return 0

    done = arena.uncarve(madvise_while_a_pool_is_carved)
    assert done.tail == () and done.kept == [arena.pool(1)]
    assert arena.fields() == (7, 3)  # the frontier as the carve left it; the list starts at pool 3
    assert [arena.next_of(n) for n in (3, 4, 5)] == [4, 5, 1] and arena.next_of(1) is None
    headers = [pool_trim.POOL_HEADER.unpack(ctypes.string_at(arena.pool(n), 48)) for n in (3, 4, 5)]
    assert all(h[0] == 0 and h[4] == 3 and h[5] == pool_trim.DUMMY_SIZE_IDX for h in headers)


def test_an_arena_is_not_rewritten_while_it_leads_pymallocs_list():
    """pymalloc takes new pools from the arena at the head of its list; audit hooks may have
    reordered the list since the trim began. An arena that leads now, or a head with too few
    empty pools, is left alone: the rewrite's own allocations could take pools from it."""
    arena = _FakeArena(used={0, 2}, listed=[5, 1, 4, 3], carved=6)
    fields = pool_trim.ARENA_OBJECT.unpack_from(arena.table, 0)
    pool_trim.ARENA_OBJECT.pack_into(arena.table, 0, *fields[:2], pool_trim.LEAD_POOLS - 1, *fields[3:])
    assert arena.uncarve() == pool_trim._Uncarved(tail=(), kept=[])
    pool_trim.ARENA_OBJECT.pack_into(arena.table, 0, *fields[:2], pool_trim.LEAD_POOLS, *fields[3:])
    assert arena.uncarve().tail == (arena.pool(5), arena.pool(4), arena.pool(3))


def test_retired_pools_leave_the_arenas_counts_and_it_moves_to_its_place_in_pymallocs_order():
    """The listed empty pools (lowest first, as the trim relinked them) are taken off the list and
    out of both counts, all their pages given back; the arena now has fewer empty pools than the
    one before it, so it moves ahead of it, and ``nfp2lasta`` follows, as pymalloc would have it."""
    arena = _FakeArena(
        used={0, 5}, listed=[1, 2, 3, 4], carved=6, others={0: 1, 1: 60, 2: 63}, order=[0, 1, 3, 2]
    )
    assert arena.counts() == (62, 64, 1)  # 4 listed, 58 never carved
    assert arena.retire([1, 2, 3, 4]) == (4, [])
    assert arena.counts() == (58, 60, None)
    assert arena.linked() == [(0, 1), (3, 58), (1, 60), (2, 63)]
    assert arena.last_with() == {1: 0, 58: 3, 60: 1, 63: 2}
    assert [arena.body_byte(n) for n in range(6)] == [0x5A, 0, 0, 0, 0, 0x5A]
    assert [arena.header_byte(n) for n in range(6)] == [5, 0, 0, 0, 0, 5]  # headers gone too


def test_an_arena_left_with_no_empty_pool_leaves_pymallocs_list_as_a_full_one_does():
    listed = [n for n in range(64) if n not in (10, 20)]
    arena = _FakeArena(used={10, 20}, listed=listed, carved=64, others={0: 1, 2: 63}, order=[0, 3, 2])
    assert arena.retire(listed) == (62, [])
    assert arena.counts() == (0, 2, None)
    assert arena.linked() == [(0, 1), (2, 63)]
    assert arena.last_with() == {1: 0, 63: 2}


def test_an_arena_keeps_two_pools_in_total_so_pymalloc_never_frees_it_through_stale_links():
    """With one pool in total, freeing the last used block of an arena that was full would make
    pymalloc unlink it from a list it is not on: the lowest listed pool stays."""
    listed = [n for n in range(64) if n != 10]
    arena = _FakeArena(used={10}, listed=listed, carved=64, others={0: 1, 2: 63}, order=[0, 3, 2])
    assert arena.retire(listed) == (62, [0])
    assert arena.counts() == (1, 2, 0)
    assert arena.next_of(0) is None
    assert arena.linked() == [(0, 1), (3, 1), (2, 63)]
    assert arena.last_with() == {1: 3, 63: 2}


def test_nothing_is_retired_when_pymalloc_changed_the_order_after_the_plan_read_it(
    monkeypatch: pytest.MonkeyPatch,
):
    """The plan's own allocations may make pymalloc take a pool (here: from the head): the plan is
    compared with memory right before it is written, and a stale one writes nothing."""
    arena = _FakeArena(
        used={0, 5}, listed=[1, 2, 3, 4], carved=6, others={0: 2, 1: 60, 2: 63}, order=[0, 1, 3, 2]
    )
    planned = pool_retire._planned

    def planned_while_a_pool_is_taken(*args: Any) -> Any:
        done = planned(*args)
        fields = pool_trim.ARENA_OBJECT.unpack_from(arena.table, 0)
        pool_trim.ARENA_OBJECT.pack_into(arena.table, 0, *fields[:2], 1, *fields[3:])
        return done

    monkeypatch.setattr(pool_retire, "_planned", planned_while_a_pool_is_taken)
    assert arena.retire([1, 2, 3, 4]) == (0, [1, 2, 3, 4])
    assert arena.counts() == (62, 64, 1)
    assert arena.linked() == [(0, 1), (1, 60), (3, 62), (2, 63)]
    assert [arena.body_byte(n) for n in range(1, 5)] == [0x5A] * 4


def test_nothing_is_retired_from_an_arena_its_neighbours_do_not_link_to():
    arena = _FakeArena(
        used={0, 5}, listed=[1, 2, 3, 4], carved=6, others={0: 1, 1: 60, 2: 63}, order=[0, 1, 3, 2]
    )
    fields = pool_trim.ARENA_OBJECT.unpack_from(arena.table, 1 * pool_trim.ARENA_OBJECT.size)
    pool_trim.ARENA_OBJECT.pack_into(arena.table, pool_trim.ARENA_OBJECT.size, *fields[:5], 0, fields[6])
    assert arena.retire([1, 2, 3, 4]) == (0, [1, 2, 3, 4])
    assert arena.counts() == (62, 64, 1)


def test_pymalloc_goes_on_in_arenas_with_retired_pools_and_frees_them_when_they_empty():
    """In this process: the trim retires the empty pools a few live blocks left between used ones;
    RSS falls below what the header pages alone would keep; allocations go on with their contents
    intact; once every block is freed pymalloc frees those arenas whole."""
    figures = _run("""
        import os, tempfile

        def arenas_now():
            with tempfile.TemporaryFile() as out:
                saved = os.dup(2)
                os.dup2(out.fileno(), 2)
                try:
                    sys._debugmallocstats()
                finally:
                    os.dup2(saved, 2)
                    os.close(saved)
                out.seek(0)
                for line in out.read().decode().splitlines():
                    if "arenas allocated current" in line:
                        return int(line.split("=")[-1].replace(",", ""))

        base = arenas_now()
        kept = fill(400_000)[::2_000]
        gc.collect()
        freed = rss_mb()
        report = trim()
        trimmed = rss_mb()
        again = fill(300_000)
        intact = all(a == (str(i) * 3, [i], {"k": i}) for i, a in enumerate(again))
        intact = intact and all(k[1][0] == k[2]["k"] for k in kept)
        del again, kept
        gc.collect()
        print(json.dumps({"freed": freed, "trimmed": trimmed, "retired": report.retired_pools,
                          "intact": intact, "base": base, "end": arenas_now()}))
    """)
    assert figures["retired"] > 1_000 and figures["intact"], figures
    # with each empty pool's header page kept, ~0.32 of the RSS after the free stayed
    assert figures["trimmed"] < 0.25 * figures["freed"], figures
    assert figures["end"] <= figures["base"] + 10, figures


# The pages of a used pool that hold no live block go back (memory/pool_thin.py).

PAGE = 4096
THIN_SLOT = 5


class _FakePool:
    """One pool of blocks of ``size`` bytes, extended to its end, at the start of an arena's
    worth of private anonymous memory: the blocks in ``live`` hold a pattern, the others are on
    the free list (highest first, as frees in no order leave it)."""

    def __init__(self, size: int, live: set[int]) -> None:
        self.memory_map = mmap.mmap(
            -1, pool_trim.ARENA_SIZE + pool_trim.POOL_SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
        )
        start = ctypes.addressof(ctypes.c_char.from_buffer(self.memory_map))
        self.address = -(-start // pool_trim.POOL_SIZE) * pool_trim.POOL_SIZE
        self.size = size
        self.capacity = (pool_trim.POOL_SIZE - pool_thin.POOL_OVERHEAD) // size
        self.live = live
        free = [n for n in range(self.capacity) if n not in live]
        following = 0
        for number in free:  # pushed lowest first: the list runs highest first
            ctypes.c_uint64.from_address(self.block(number)).value = following
            following = self.block(number)
        for number in live:
            ctypes.memset(self.block(number), 0xA0 + number % 16, size)
        end = pool_thin.POOL_OVERHEAD + self.capacity * size
        header = pool_trim.POOL_HEADER.pack(
            len(live), following, 0, 0, THIN_SLOT, size // 16 - 1, end, 16384 - size
        )
        ctypes.memmove(self.address, header, len(header))

    def block(self, number: int) -> int:
        return self.address + pool_thin.POOL_OVERHEAD + number * self.size

    def thin(self) -> int:
        thinner = pool_thin.PoolThinner(_libc_madvise(), PAGE)
        memory = pool_trim._words(self.address, pool_trim.ARENA_SIZE // 8)
        return thinner.thin_arena(memory, THIN_SLOT, self.address, self.address + pool_trim.POOL_SIZE)

    def free_list(self) -> list[int]:
        numbers = []
        block = pool_trim.POOL_HEADER.unpack(ctypes.string_at(self.address, 48))[1]
        while block and len(numbers) <= self.capacity:
            numbers.append((block - self.address - pool_thin.POOL_OVERHEAD) // self.size)
            block = ctypes.c_uint64.from_address(block).value
        return numbers

    def page_byte(self, page: int) -> int:
        """The last byte of a page of the pool (0 once the page went)."""
        return ctypes.string_at(self.address + (page + 1) * PAGE - 1, 1)[0]

    def intact(self) -> bool:
        return all(
            ctypes.string_at(self.block(n), self.size) == bytes([0xA0 + n % 16]) * self.size
            for n in self.live
        )


def test_a_sparse_pools_free_list_keeps_only_the_blocks_in_pages_under_live_ones():
    """64-byte blocks: block 0 lies in page 0, block 130 in page 2. Pages 1 and 3 hold only free
    blocks: they go, and the list holds the free blocks of pages 0 and 2, lowest first."""
    pool = _FakePool(64, live={0, 130})
    for page in range(4):
        ctypes.memset(pool.address + page * PAGE + PAGE - 1, 0x77, 1)  # every page resident
    assert pool.thin() == 1
    in_kept = [n for n in range(pool.capacity) if n not in pool.live and _pages(pool, n) <= {0, 2}]
    assert pool.free_list() == in_kept
    assert in_kept[0] == 1 and in_kept[-1] == 190  # block 191 (12,272-12,336) runs into page 3
    assert [pool.page_byte(p) for p in range(4)] == [0x77, 0, 0x77, 0]
    assert pool.intact()


def test_a_pool_with_no_free_block_in_its_kept_pages_keeps_its_lowest_free_block_and_that_ones_pages():
    """512-byte blocks 0-14 live fill pages 0 and 1; block 15 straddles pages 1 and 2. pymalloc
    keeps a pool with an empty free list off its lists, so block 15 stays listed with page 2, and
    with it the free blocks wholly in pages 0-2; page 3 goes."""
    pool = _FakePool(512, live=set(range(15)))
    assert pool.thin() == 1
    assert pool.free_list() == list(range(15, 23))
    assert pool.page_byte(3) == 0
    assert pool.intact()


def test_a_pool_changed_after_it_was_read_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch):
    """A block allocated or freed in the pool between the snapshot and the writes changes the
    pool: the plan is compared with memory right before it is written, and nothing is."""
    pool = _FakePool(64, live={0, 130})
    planned = pool_thin.plan
    before = pool.free_list()

    def planned_while_a_block_is_taken(*args: Any) -> Any:
        done = planned(*args)
        first = pool_trim.POOL_HEADER.unpack(ctypes.string_at(pool.address, 48))[1]
        ctypes.c_uint64.from_address(pool.address + 8).value = ctypes.c_uint64.from_address(first).value
        ctypes.c_uint32.from_address(pool.address).value = 3
        return done

    monkeypatch.setattr(pool_thin, "plan", planned_while_a_block_is_taken)
    assert pool.thin() == 0
    assert pool.free_list() == before[1:]  # only the simulated allocation changed it
    assert pool.intact()


def test_a_pool_still_being_extended_or_half_full_is_left_alone():
    extending = _FakePool(64, live={0, 130})
    header = ctypes.string_at(extending.address, 48)
    fields = list(pool_trim.POOL_HEADER.unpack(header))
    fields[6] = fields[7]  # nextoffset at maxnextoffset: pymalloc still carves blocks past the list
    ctypes.memmove(extending.address, pool_trim.POOL_HEADER.pack(*fields), 48)
    assert extending.thin() == 0
    half = _FakePool(64, live=set(range(0, 255, 2)))  # 128 of 255 blocks: more than half
    assert half.thin() == 0


def _pages(pool: _FakePool, number: int) -> set[int]:
    start = pool_thin.POOL_OVERHEAD + number * pool.size
    return set(range(start // PAGE, (start + pool.size - 1) // PAGE + 1))


def test_thinned_pools_of_this_interpreter_go_on_serving_allocations_with_their_contents_intact():
    figures = _run("""
        kept = fill(300_000)[::1_000]
        gc.collect()
        first = trim()
        for _ in range(10):  # the thinning is taken up across trims, as the pools' walk is
            if trim().thinned_pools == 0:  # (a pool the trims' own blocks change may come back)
                break
        again = fill(300_000)
        intact = all(a == (str(i) * 3, [i], {"k": i}) for i, a in enumerate(again))
        intact = intact and all(k[1][0] == k[2]["k"] for k in kept)
        print(json.dumps({"thinned": first.thinned_pools, "intact": intact}))
    """)
    assert figures["thinned"] > 50 and figures["intact"], figures


def test_the_tables_length_is_read_from_its_chunk_in_the_heap_or_mmapped_past_2700_arenas():
    size = pool_trim.ARENA_OBJECT.size
    assert pymalloc_table._table_length(2_048 * size + 8) == 2_048  # a heap chunk: 8 bytes more
    mmapped = -(-(4_096 * size + 16) // 4_096) * 4_096 - 16  # a page-rounded mmapped chunk
    assert pymalloc_table._table_length(mmapped) == 4_096
    assert pymalloc_table._table_length(3_000 * size) is None  # not a doubled length
    assert pymalloc_table._table_length(8 * size) is None  # pymalloc starts at 16
