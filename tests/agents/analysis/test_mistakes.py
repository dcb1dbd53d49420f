"""Where play goes wrong: regret per decision (exact in Kapern, the search's elsewhere), situations, statistics."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.analysis.mistakes.play import Mistake, play_measured
from agents.analysis.mistakes.regret import SearchRegret
from agents.analysis.mistakes.run import measure
from agents.analysis.mistakes.situations import interchangeable, mistakes_module, note, situation
from agents.analysis.mistakes.stats import summarise
from tests.agents.search.test_halving import skull_king_holding_the_king
from tests.game_data import by_version

#: The starts of each game's situation labels: its ``situation_starts`` in tests/<game>/short_games.json.
STARTS = by_version("situation_starts")
GAMES = tuple(STARTS)


def test_the_oracle_loses_nothing_against_itself():
    """Kapern's regret is exact: the oracle's own decisions cost 0, on many of them."""
    mistakes, described, _ = play_measured("piraten_kapern_v0", "oracle", 6)
    assert described["kind"] == "oracle" and len(mistakes) > 30
    assert max(m.regret for m in mistakes) < 1e-9
    assert all(m.chosen == m.best or m.regret < 1e-9 for m in mistakes)
    assert summarise(mistakes, 6)["cost"]["mean"] < 1e-9


def test_a_random_player_loses_clearly_in_kapern():
    mistakes, _, _ = play_measured("piraten_kapern_v0", "random", 6)
    cost = summarise(mistakes, 6)["cost"]
    assert cost["low"] > 100 and min(m.regret for m in mistakes) >= 0


def test_the_search_regret_is_zero_on_its_pick_and_positive_off_it():
    """Holding the Skull King alone in a one-card hand, bid 0 costs about 30 points (+20 against -10)."""
    env = skull_king_holding_the_king()
    bid = {env.action_to_string(a): int(a) for a in np.flatnonzero(env.game.legal_mask())}
    regret = SearchRegret("skull_king_v0", env, budget=16)
    regret.reset(1)
    assert regret.regret(env, bid["bid 1"]) == (0.0, bid["bid 1"])
    lost, best = regret.regret(env, bid["bid 0"])
    assert best == bid["bid 1"] and lost > 20
    other = pirate_envs.make("skull_king_v0", raw=True, num_players=2, num_hands=1)
    with pytest.raises(ValueError, match="its search was made with"):
        regret.regret(other, bid["bid 0"])


def test_a_random_player_loses_more_than_the_heuristic_in_skull_king():
    """Small budget, few games: random's regret per game is clearly above 0 and above the heuristic's."""
    stats = measure("skull_king_v0", ["random", "heuristic"], 3, budget=16)
    assert stats["measure"]["budget"] == 16 and stats["measure"]["worlds"] == 8
    random_cost, heuristic_cost = (stats["agents"][name]["cost"] for name in ("random", "heuristic"))
    assert random_cost["low"] > 0 and random_cost["mean"] > heuristic_cost["mean"]


@pytest.mark.parametrize("env_id", GAMES)
def test_every_counted_decision_gets_a_situation_of_the_games_kinds(env_id):
    """Random play reaches many positions; each counted decision is labelled, the labels add up to all decisions."""
    mistakes, _, _ = play_measured(env_id, "random", 2, budget=4)
    stats = summarise(mistakes, 2)
    assert mistakes and sum(row["decisions"] for row in stats["situations"]) == len(mistakes) == stats["decisions"]
    starts = tuple(STARTS[env_id])
    assert all(m.situation.startswith(starts) for m in mistakes), {m.situation for m in mistakes}


def test_situations_read_the_position():
    env = skull_king_holding_the_king()
    legal = np.flatnonzero(env.game.legal_mask())
    assert situation("skull_king_v0", env.game.view(0), legal) == "bidding with 1-3 cards, 1 strong card"
    env.step(int(legal[1]))  # bid 1
    while env.game.current_player != 0:
        env.step(int(np.flatnonzero(env.game.legal_mask())[0]))
    label = situation("skull_king_v0", env.game.view(0), np.flatnonzero(env.game.legal_mask()))
    assert label.endswith("your bid still needs tricks")
    assert all(callable(mistakes_module(env_id).situation) for env_id in GAMES)
    assert all(note(env_id).startswith("Situations:") for env_id in GAMES)
    assert interchangeable(
        "lucky_pirate_v0", np.array([pirate_envs.lucky_pirate.actions.DOWN_OFFSET + k for k in (0, 2)])
    )
    assert not interchangeable("skull_king_v0", np.array([1, 2]))


def test_statistics_treat_games_as_units():
    mistakes = [Mistake(0, "a", 1.0, "x", "y"), Mistake(1, "a", 3.0, "x", "z"), Mistake(1, "b", 0.0, "y", "y")]
    stats = summarise(mistakes, 4)  # games 2 and 3 had no counted decision
    a, b = stats["situations"]
    assert a["situation"] == "a" and a["cost"]["mean"] == 1.0 and a["regret"]["mean"] == 2.0
    assert a["per_game"]["mean"] == 0.5 and a["share"]["mean"] == 1.0
    assert 0 <= a["cost"]["low"] < 1.0 < a["cost"]["high"] <= 3.0  # resampled games: 0, 1 or 3 each
    assert a["example"] == {"chosen": "x", "best": "z", "regret": 3.0}
    assert b["cost"]["mean"] == 0 and stats["cost"]["mean"] == 1.0 and stats["decisions"] == 3
    assert summarise([Mistake(0, "a", 0.0, "x", "x")], 2)["situations"][0]["share"] is None  # nothing lost
    with pytest.raises(ValueError, match="2 games"):
        summarise(mistakes, 1)
    with pytest.raises(ValueError, match="outside"):
        summarise([Mistake(5, "a", 1.0, "x", "y")], 2)
