"""The dice roller: exact outcome tables and a fair, reproducible draw."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from pirate_envs.piraten_kapern.dice import ROLL_TABLES, count_vectors, roll_probability, roller


@pytest.mark.parametrize("n", range(9))
def test_tables_list_every_outcome_once_and_sum_to_one(n):
    vectors, cumulative = ROLL_TABLES[n]
    assert len(vectors) == len(set(vectors)) == math.comb(n + 5, 5)
    assert all(sum(v) == n and min(v) >= 0 for v in vectors)
    assert math.isclose(math.fsum(roll_probability(v) for v in vectors), 1.0)
    assert cumulative == sorted(cumulative) and cumulative[-1] == 1.0


def test_probabilities_by_hand():
    assert roll_probability((0, 0, 0, 0, 0, 8)) == 1 / 6**8  # eight skulls
    assert roll_probability((1, 1, 0, 0, 0, 0)) == 2 / 36  # coin and diamond, either order
    assert roll_probability((2, 0, 0, 0, 0, 0)) == 1 / 36
    assert roll_probability((1, 1, 1, 1, 1, 3)) == math.factorial(8) / math.factorial(3) / 6**8
    assert count_vectors(1) == [(1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0), (0, 0, 1, 0, 0, 0),
                                (0, 0, 0, 1, 0, 0), (0, 0, 0, 0, 1, 0), (0, 0, 0, 0, 0, 1)]  # fmt: skip


def test_roller_is_reproducible_and_fair():
    first, second = roller(np.random.default_rng(7)), roller(np.random.default_rng(7))
    assert [first(8) for _ in range(20)] == [second(8) for _ in range(20)]
    # two dice, 36,000 rolls: each outcome within 5 standard errors of its probability
    roll = roller(np.random.default_rng(1))
    draws = 36_000
    seen = Counter(roll(2) for _ in range(draws))
    assert set(seen) == set(count_vectors(2))
    for outcome, count in seen.items():
        p = roll_probability(outcome)
        assert abs(count / draws - p) < 5 * math.sqrt(p * (1 - p) / draws), outcome
    # the number of skulls among eight dice: mean 8/6
    skulls = [roll(8)[5] for _ in range(draws)]
    assert abs(np.mean(skulls) - 8 / 6) < 5 * math.sqrt(8 * (1 / 6) * (5 / 6) / draws)
