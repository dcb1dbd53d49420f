"""`agents.once.once`: threads asking for the same table or kernel at once compute it once."""

from __future__ import annotations

import contextlib
import threading

import pytest

from agents.once import once


def test_four_threads_asking_at_once_compute_once():
    barrier = threading.Barrier(4)
    calls = []

    @once
    def table(card: str) -> list[str]:
        calls.append(card)
        with contextlib.suppress(threading.BrokenBarrierError):  # a cache letting every thread compute: all here
            barrier.wait(timeout=2)
        return [card]

    results = []
    threads = [threading.Thread(target=lambda: results.append(table("coin"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert calls == ["coin"] and len(results) == 4 and all(result is results[0] for result in results)
    assert table("skull") == ["skull"] and calls == ["coin", "skull"]
    table.cache_clear()
    table("coin")
    assert calls == ["coin", "skull", "coin"]


def test_an_error_is_not_kept():
    attempts = []

    @once
    def flaky() -> int:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("first try fails")
        return 7

    with pytest.raises(RuntimeError):
        flaky()
    assert flaky() == 7 and flaky() == 7 and len(attempts) == 2


def test_the_tables_that_hints_and_searches_warm_are_computed_once():
    from agents.piraten_kapern import batched_oracle, lookahead, oracle, race
    from agents.skull_king import values

    warmers = [race._arrays, race.load_race_table, oracle._tables, oracle.solve_turn, oracle.chest_dice,
               lookahead._kept_tables, batched_oracle.oracle_table, values.bid_values]  # fmt: skip
    assert all(getattr(warmer, "computes_once", False) for warmer in warmers)
