"""Piraten Kapern analysis: the stop decision against the one-turn oracle, decision by decision."""

from __future__ import annotations

import itertools

import pytest

from agents.analysis.driver import Decision, run_games
from agents.piraten_kapern.analysis import PiratenKapernCollector, choice_value, risk_bucket
from agents.piraten_kapern.oracle import SORCERESS, STORM, decision_view, solve_turn
from pirate_envs.piraten_kapern.actions import STOP, reroll_action
from pirate_envs.piraten_kapern.rules import CARDS, NUM_DICE, SKULL, card_skulls


def decide(collector: PiratenKapernCollector, agent: str, view, action: int) -> None:
    collector.observe(Decision(0, 0, agent, action, view, ()))


def test_two_decisions_traced() -> None:
    collector = PiratenKapernCollector()
    collector.start_game(0, ["A", "B"], [])
    # Captain (points doubled): 3 monkeys (100) + 3 parrots (100) = 200, doubled 400; 2 skulls. A stops.
    stop_view = decision_view("captain", (0, 0, 3, 3, 0, 2), False)
    assert stop_view.turn_points == 400
    decide(collector, "A", stop_view, STOP)
    # Skulls_1 (one skull on the card) with 1 skull rolled: 2 skulls; 1 coin + 1 diamond = 200 at risk.
    # A re-rolls the monkeys and parrots, keeping the coin, the diamond, the sabre and the skull.
    reroll_view = decision_view("skulls_1", (1, 1, 2, 2, 1, 1), False)
    assert reroll_view.turn_points == 200
    reroll = reroll_action((0, 0, 2, 2, 0, 0))
    decide(collector, "A", reroll_view, reroll)
    s = collector.summary()
    groups = {name: {g: c["A"] for g, c in s[name]["groups"].items()} for name in s}

    def counts(stat: str) -> dict[str, tuple[int, int]]:
        return {g: (c["successes"], c["n"]) for g, c in groups[stat].items()}

    assert counts("stop_by_risk") == {"301-500": (1, 1), "101-200": (0, 1)}
    assert counts("stop_by_skulls") == {"2": (1, 2)}
    assert counts("stop_by_card") == {"captain": (1, 1), "skulls_1": (0, 1)}
    # regret: the oracle's value of the dice minus the value of the choice (stop: the points showing;
    # a re-roll: the oracle's worth of the kept dice), never below 0
    best_stop = solve_turn("captain").state_value((0, 0, 3, 3, 0, 2))
    best_reroll = solve_turn("skulls_1").state_value((1, 1, 2, 2, 1, 1))
    kept = solve_turn("skulls_1").kept_value((1, 1, 0, 0, 1, 1))
    expected = [max(0.0, best_stop - 400), max(0.0, best_reroll - kept)]
    assert groups["regret"]["all"]["mean"] == pytest.approx(sum(expected) / 2)
    assert groups["regret"]["all"]["n"] == 2
    assert groups["agree"]["all"]["n"] == 2


def _states(limit_skulls: int):
    """Every dice state of eight dice with fewer than ``limit_skulls`` skulls."""
    for counts in itertools.product(range(NUM_DICE + 1), repeat=6):
        if sum(counts) == NUM_DICE and counts[SKULL] < limit_skulls:
            yield counts


@pytest.mark.parametrize("card", CARDS)
def test_oracle_choice_has_no_regret(card: str) -> None:
    """The oracle's own choice, valued by `choice_value`, is worth the oracle's value (every state, both
    option statuses): the option bookkeeping of a re-roll (Sorceress skull, single Storm re-roll) is right."""
    solution = solve_turn(card)
    limit = 3 - card_skulls(card)
    statuses = (False, True) if card in (SORCERESS, STORM) else (False,)
    checked = 0
    for counts in itertools.islice(_states(limit), 0, None, 7):
        for is_open in statuses:
            view = decision_view(card, counts, is_open)
            action = solution.best_action(counts, is_open)
            best, chosen = choice_value(view, action)
            assert chosen == pytest.approx(best, abs=1e-6), (card, counts, is_open, action)
            checked += 1
    assert checked > 50


def test_oracle_agrees_with_itself_in_play() -> None:
    collector = run_games("piraten_kapern_v0", ["oracle", "random"], 2, 5, PiratenKapernCollector())
    s = collector.summary()
    agree = s["agree"]["groups"]["all"]
    assert agree["oracle"]["rate"] == 1.0 and agree["oracle"]["n"] > 0
    assert s["regret"]["groups"]["all"]["oracle"]["mean"] == pytest.approx(0.0, abs=1e-6)
    assert agree["random"]["n"] > 0


@pytest.mark.parametrize("points, bucket", [(-300, "<=0"), (0, "<=0"), (1, "1-100"), (100, "1-100"), (1500, ">1200")])
def test_risk_buckets(points: int, bucket: str) -> None:
    assert risk_bucket(points) == bucket


def test_the_points_at_risk_bins_come_in_numeric_order() -> None:
    """Bins observed in any order are listed low to high (the analyze plot and the strategy page)."""
    from agents.analysis.tallies import Tallies
    from agents.piraten_kapern.analysis import STATS

    tallies = Tallies(STATS)
    for points in (600, -50, 1500, 350, 250, 150, 50, 900):
        tallies.rate("stop_by_risk", "heuristic", True, risk_bucket(points))
    groups = list(tallies.summary()["stop_by_risk"]["groups"])
    assert groups == ["<=0", "1-100", "101-200", "201-300", "301-500", "501-800", "801-1200", ">1200"]
