"""The standard-deck average of benchmarks/kapern_turn_values.py."""

from __future__ import annotations

import math

import pytest

from agents.evaluation.stats import Z95
from benchmarks.kapern_turn_values import deck_mean_interval
from pirate_envs.piraten_kapern.rules import STANDARD_DECK


def test_deck_mean_weighs_cards_by_copies_and_adds_variances():
    stats = {card: (0.0, 0.0) for card in STANDARD_DECK}
    stats["captain"] = (350.0, 10.0)  # 4 of the 35 cards
    stats["skulls_2"] = (70.0, 20.0)  # 2 of the 35 cards
    mean, low, high = deck_mean_interval(stats)
    assert STANDARD_DECK["captain"] == 4 and STANDARD_DECK["skulls_2"] == 2
    assert mean == pytest.approx((4 * 350 + 2 * 70) / 35)
    error = math.sqrt((4 * 10) ** 2 + (2 * 20) ** 2) / 35
    assert (low, high) == (pytest.approx(mean - Z95 * error), pytest.approx(mean + Z95 * error))
