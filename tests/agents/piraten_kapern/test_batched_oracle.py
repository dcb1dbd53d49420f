"""The batched Piraten Kapern oracle chooses what the one-game oracle chooses, move by move."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
import pirate_envs.vector
from agents.piraten_kapern.batched_oracle import KapernOracleBatch
from agents.piraten_kapern.oracle import KapernOracleAgent
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, REROLL_OFFSET, STOP, reroll_counts
from pirate_envs.piraten_kapern.rules import CARDS, SKULL
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
def test_every_decision_matches_the_one_game_oracle(num_players, table_layout):
    assert_one_shuffled_batch_matches(KapernOracleAgent, KapernOracleBatch, num_players, table_layout)


def test_the_games_reach_every_card_and_kind_of_move():
    """The compared positions hold every card, both states of the one-off options, chest moves both ways,
    the Sorceress's skull re-roll and stops, so each branch of the lookup was checked."""
    decisions = [
        d
        for n in PLAYER_COUNTS
        for layout in LAYOUTS
        for d in played_positions(KapernOracleAgent, KapernOracleBatch, n, layout)[3]
    ]
    assert {view.card for view, _ in decisions} == set(CARDS)

    def rerolls(view, action):
        return REROLL_OFFSET <= action < CHEST_PUT_OFFSET and not view.island

    branches = {
        "island": any(view.island for view, _ in decisions),
        "chest put": any(CHEST_PUT_OFFSET <= action < CHEST_TAKE_OFFSET for _, action in decisions),
        "stop": any(action == STOP and not view.island for view, action in decisions),
        "sorceress skull": any(
            rerolls(v, a) and v.card == "sorceress" and reroll_counts(a)[SKULL] for v, a in decisions
        ),
        "sorceress used": any(v.card == "sorceress" and v.sorceress_used and rerolls(v, a) for v, a in decisions),
        "storm second roll": any(v.card == "storm" and v.rolls >= 2 for v, _ in decisions),
    }
    assert all(branches.values()), [name for name, reached in branches.items() if not reached]


def test_chest_arrangements_of_another_policy_match():
    """Random dice put on the Treasure Chest first: the oracle takes some off again."""
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    batched = KapernOracleBatch(env, num_games=1, seed=0)
    actions = kapern_chest_turn_actions(checked_action, KapernOracleAgent(), batched)
    assert any(action >= CHEST_TAKE_OFFSET for action in actions)


def test_it_plays_the_batched_engine_as_the_one_game_oracle_plays_the_env():
    """Whole games on the batched engine's arrays; replayed in the AEC env, every move is the one-game oracle's."""
    assert_batched_kapern_games_replay("oracle", KapernOracleAgent)


def test_bad_rows_and_variants_it_was_not_solved_for_raise():
    observations, masks, expected, _ = played_positions(KapernOracleAgent, KapernOracleBatch, 2, "seated")
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = KapernOracleBatch(env, num_games=2, seed=0)
    empty = masks[:2].copy()
    empty[1] = 0
    with pytest.raises(ValueError, match="row 1 of action_masks has no legal action"):
        agent.act_batch(np.arange(2), observations[:2], empty)
    with pytest.raises(ValueError, match="row 0 of observations: the oracle solves the 8-dice game"):
        agent.act_batch(np.zeros(1, dtype=np.int64), np.zeros_like(observations[:1]), masks[:1])
    with pytest.raises(ValueError, match=r"expected \(M, 50\) observations"):
        agent.act_batch(np.zeros(1, dtype=np.int64), observations[:1, :-1], masks[:1])
    row = int(np.flatnonzero((expected >= REROLL_OFFSET) & (expected < CHEST_PUT_OFFSET))[0])
    capped = masks[row : row + 1].copy()
    capped[0] = 0
    capped[0, STOP] = 1  # a roll limit reached: only stopping is legal
    with pytest.raises(ValueError, match="max_rolls"):
        agent.act_batch(np.zeros(1, dtype=np.int64), observations[row : row + 1], capped)
