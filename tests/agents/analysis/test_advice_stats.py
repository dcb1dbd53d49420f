"""Game-clustered intervals and multiple-comparison corrections of the advice findings."""

import numpy as np
import pytest

from agents.analysis.advice.stats import benjamini_hochberg, clustered_rate, holm, paired_difference
from agents.evaluation.stats import wilson_interval


def test_correlated_decisions_within_games_widen_the_clustered_interval():
    games, per_game = 100, 10
    # every decision of a game is the same: half the games all successes, half all failures
    successes = np.repeat([per_game, 0], games // 2)
    trials = np.full(games, per_game)
    clustered = clustered_rate(successes, trials)
    _, low, high = wilson_interval(int(successes.sum()), int(trials.sum()))  # decisions as independent
    assert clustered["rate"] == pytest.approx(0.5)
    assert clustered["high"] - clustered["low"] > 2.5 * (high - low)
    assert clustered["games"] == games and clustered["trials"] == games * per_game


def test_independent_decisions_keep_a_clustered_interval_near_the_binomial_one():
    rng = np.random.default_rng(0)
    trials = np.full(400, 10)
    successes = rng.binomial(10, 0.3, size=400)
    clustered = clustered_rate(successes, trials)
    _, low, high = wilson_interval(int(successes.sum()), int(trials.sum()))
    assert 0.8 < (clustered["high"] - clustered["low"]) / (high - low) < 1.25


def test_games_without_a_decision_do_not_count():
    rate = clustered_rate([1, 0, 0], [2, 0, 0])
    assert rate["games"] == 1 and rate["rate"] == 0.5


def test_paired_difference_is_one_value_per_game():
    d = paired_difference([1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0])
    assert d["n"] == 4 and d["mean"] == pytest.approx(0.5)
    se = np.std([1, 0, 0, 1], ddof=1) / 2
    assert d["high"] - d["mean"] == pytest.approx(1.959963984540054 * se)
    assert 0 < d["p"] < 1


def test_holm_on_known_p_values():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_benjamini_hochberg_on_known_p_values():
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert benjamini_hochberg([0.2, 0.9]) == pytest.approx([0.4, 0.9])
