"""How often a rule works: decisions followed to the end of their hand or turn."""

import numpy as np
import pytest

from agents.analysis.advice.findings import AdvicePlan, measure_rule, seeds_of
from agents.analysis.advice.outcome import Outcome, OutcomeTally
from agents.analysis.advice.page import works_lines


class _Table:
    """A stand-in batched table: two seats per row, scores and the seat to move set by the test."""

    def __init__(self, rows):
        self.score = np.zeros((rows, 2))
        self.current_player = np.zeros(rows, dtype=np.int64)

    def scores(self, rows):
        return self.score[rows]


def test_a_unit_that_scores_works_and_one_that_loses_does_not():
    table, focal = _Table(3), np.zeros(3, dtype=np.int64)
    tally = OutcomeTally(Outcome("hand", "the bid is made", "score_changes"), 3)
    tally.decided(table, np.array([0, 1]), focal)
    tally.decided(table, np.array([0]), focal)  # a second decision of row 0's same hand
    tally.stepped(table, np.zeros(3, bool), focal)
    assert tally.tried.tolist() == [0, 0, 0]  # nothing scored yet: the hands are open
    table.score[0, 0], table.score[1, 0] = 40, -20
    table.score[2, 1] = 50  # another seat's score moves: row 2 had no decision
    tally.stepped(table, np.zeros(3, bool), focal)
    assert tally.tried.tolist() == [2, 1, 0] and tally.works.tolist() == [2, 0, 0]
    tally.decided(table, np.array([1]), focal)  # the next hand starts from -20
    table.score[1, 0] = -10
    tally.stepped(table, np.zeros(3, bool), focal)
    assert tally.tried.tolist() == [2, 2, 0] and tally.works.tolist() == [2, 1, 0]


def test_a_turn_ends_when_another_seat_moves_or_the_game_ends():
    table, focal = _Table(2), np.zeros(2, dtype=np.int64)
    tally = OutcomeTally(Outcome("turn", "the turn scores", "turn_passes"), 2)
    tally.decided(table, np.array([0, 1]), focal)
    table.score[0, 0] = 300  # banked, but row 0's seat still moves: its turn goes on
    tally.stepped(table, np.zeros(2, bool), focal)
    assert tally.tried.tolist() == [0, 0]
    table.current_player[0] = 1
    tally.stepped(table, np.array([False, True]), focal)  # row 1's game ends with nothing banked
    assert tally.tried.tolist() == [1, 1] and tally.works.tolist() == [1, 0]


def test_an_unknown_unit_end_is_refused():
    with pytest.raises(ValueError, match="ends_when"):
        Outcome("hand", "it works", "sometimes")


def test_every_kapern_decision_is_followed_to_its_turns_end_in_both_arms():
    from agents.analysis.advice.intervention import named_base, play_arm
    from agents.piraten_kapern.advice import ADVICE, OUTCOME

    rule = next(r for r in ADVICE if r.name == "stop_on_two_skulls")
    base = named_base("heuristic", "piraten_kapern_v0")
    for arm in ("with", "without"):
        games = play_arm("piraten_kapern_v0", base, "heuristic", rule, arm, seeds_of("discovery", 40), outcome=OUTCOME)
        assert games.hits.sum() >= 20
        assert (games.tried == games.hits).all()  # each counted decision resolved once, in its own game
        assert 0 < games.works.sum() < games.tried.sum()
    measured = measure_rule(
        "piraten_kapern_v0", AdvicePlan("heuristic", "heuristic", 40), rule, seeds_of("discovery", 40)
    )
    # stopping banks what the dice show, unless they show nothing that scores or a Sea Battle is lost
    assert measured["works_with"]["rate"] > 0.75


def test_every_skull_king_decision_is_followed_to_its_hands_end():
    from agents.skull_king.advice import ADVICE

    zero = next(r for r in ADVICE if r.name == "zero_bid_without_strength")
    measured = measure_rule("skull_king_v0", AdvicePlan("heuristic", "heuristic", 16), zero, seeds_of("discovery", 16))
    assert measured["works_with"]["trials"] == measured["follows"]["trials"] > 0
    assert measured["works_without"]["trials"] > 0
    assert 0 <= measured["works_with"]["rate"] <= 1


def test_the_page_says_how_often_it_works_only_where_the_game_has_a_unit():
    rate = {"rate": 0.86, "low": 0.84, "high": 0.88, "trials": 9430, "games": 4612}
    other = {"rate": 0.41, "low": 0.38, "high": 0.44, "trials": 9430, "games": 4612}
    d = {"works_with": rate, "works_without": other}
    stats = {"outcome": {"unit": "hand", "works": "the bid is made"}}
    (line,) = works_lines(d, stats)
    assert (
        "How often it works (the bid is made, over the hand the decision belongs to): 86% [84%, 88%] of 9,430" in line
    )
    assert "against 41% [38%, 44%]" in line
    assert works_lines(d, {}) == [] and works_lines({}, stats) == []
