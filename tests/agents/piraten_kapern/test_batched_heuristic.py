"""The batched Piraten Kapern heuristic chooses what the one-game heuristic chooses, move by move."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.piraten_kapern.batched_heuristic import KapernHeuristicBatch
from agents.piraten_kapern.heuristic import SMALL_STAKE, KapernHeuristic, junk, must_chase
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, REROLL_OFFSET, STOP, reroll_counts
from pirate_envs.piraten_kapern.rules import CARDS, MIN_SET, SABRE, SEA_BATTLES, SKULL, card_skulls
from tests.agents.piraten_kapern.batched_checks import (
    ENV_ID,
    LAYOUTS,
    PLAYER_COUNTS,
    assert_batched_kapern_games_replay,
    assert_one_shuffled_batch_matches,
    checked_action,
    kapern_chest_turn_actions,
    played_positions,
)


@pytest.mark.parametrize("table_layout", LAYOUTS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_decision_matches_the_one_game_heuristic(num_players, table_layout):
    assert_one_shuffled_batch_matches(KapernHeuristic, KapernHeuristicBatch, num_players, table_layout)


def test_chest_arrangements_of_another_policy_match():
    """Random dice put on the Treasure Chest first (in its own turns the heuristic never takes one off)."""
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    batched = KapernHeuristicBatch(env, num_games=1, seed=0)
    actions = kapern_chest_turn_actions(checked_action, KapernHeuristic(), batched)
    assert any(action >= CHEST_TAKE_OFFSET for action in actions)


def test_the_games_reach_every_branch_of_the_heuristic():
    """The compared positions hold every card and each rule of thumb, so every rule was checked."""
    heuristic = KapernHeuristic()
    decisions = [
        (view, heuristic.plan(view), action)  # the plan is the heuristic's: a function of the view
        for n in PLAYER_COUNTS
        for layout in LAYOUTS
        for view, action in played_positions(KapernHeuristic, KapernHeuristicBatch, n, layout)[3]
    ]
    cards = {view.card for view, _, _ in decisions}
    assert cards == set(CARDS)

    def rerolls(view, action):
        return REROLL_OFFSET <= action < CHEST_PUT_OFFSET and not view.island

    def chasing(view):
        return not view.island and must_chase(view.showing, view.card)

    def padded(view, plan):  # a chase that takes more dice than its junk (the non-sabres in a Sea Battle)
        base = junk(view.showing, view.card) if view.card == "peace" else [*view.showing[:SABRE], 0]
        return plan is not None and chasing(view) and sum(plan[:SKULL]) > sum(base[:SKULL])

    def two_skulls(view):
        return not view.island and view.showing[SKULL] + card_skulls(view.card) >= 2

    branches = {
        "island": any(view.island and action != STOP for view, _, action in decisions),
        "chest move": any(action >= CHEST_PUT_OFFSET for _, _, action in decisions),
        "sorceress skull": any(rerolls(view, a) and reroll_counts(a)[SKULL] for view, _, a in decisions),
        "sorceress skull alone": any(plan is not None and sum(plan) == plan[SKULL] == 1 for _, plan, _ in decisions),
        "sea battle chase": any(rerolls(v, a) and chasing(v) and v.card in SEA_BATTLES for v, _, a in decisions),
        "peace chase": any(rerolls(view, a) and view.card == "peace" and chasing(view) for view, _, a in decisions),
        "peace with a set of sabres": any(
            not view.island and view.card == "peace" and view.showing[SABRE] >= MIN_SET for view, _, _ in decisions
        ),
        "chase padded": any(padded(view, plan) for view, plan, _ in decisions),
        "bank at two skulls": any(
            plan is None and two_skulls(view) and sum(junk(view.showing, view.card)[:SKULL]) >= 2
            for view, plan, _ in decisions
        ),
        "chest dice not at stake": any(
            view.card == "treasure_chest" and two_skulls(view) and view.turn_points > SMALL_STAKE and plan is not None
            for view, plan, _ in decisions
        ),
        "stop for lack of junk": any(plan is None and not two_skulls(view) for view, plan, _ in decisions),
        "stop forced by the mask": any(plan is not None and a == STOP for _, plan, a in decisions),
    }
    assert all(branches.values()), [name for name, reached in branches.items() if not reached]


def test_it_plays_the_batched_engine_as_the_one_game_heuristic_plays_the_env():
    """Whole games on the batched engine's arrays (an illegal move would raise); replayed in the AEC env,
    every move is the one-game heuristic's."""
    assert_batched_kapern_games_replay("heuristic", KapernHeuristic)


def test_make_batched_agent_builds_it():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = make_batched_agent("heuristic", ENV_ID, env, 8, seed=1)
    assert isinstance(agent, KapernHeuristicBatch) and agent.name == "heuristic"


def test_a_row_with_no_legal_action_raises():
    observations, masks, _, _ = played_positions(KapernHeuristic, KapernHeuristicBatch, 2, "seated")
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = KapernHeuristicBatch(env, num_games=2, seed=0)
    masks = masks[:2].copy()
    masks[1] = 0
    with pytest.raises(ValueError, match="row 1 of action_masks has no legal action"):
        agent.act_batch(np.arange(2), observations[:2], masks)


def test_a_row_that_is_no_position_raises():
    observations, masks, _, _ = played_positions(KapernHeuristic, KapernHeuristicBatch, 2, "seated")
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = KapernHeuristicBatch(env, num_games=1, seed=0)
    with pytest.raises(ValueError, match="row 0 of observations holds no Piraten Kapern position"):
        agent.act_batch(np.zeros(1, dtype=np.int64), np.zeros_like(observations[:1]), masks[:1])
    with pytest.raises(ValueError, match=r"expected \(M, 50\) observations"):
        agent.act_batch(np.zeros(1, dtype=np.int64), observations[:1, :-1], masks[:1])
    with pytest.raises(ValueError, match=r"and \(M, 2084\) action masks"):
        agent.act_batch(np.zeros(1, dtype=np.int64), observations[:1], masks[:1, :-1])
