"""The batched Piraten Kapern oracle chooses what the one-game oracle chooses, move by move."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.batched.kapern_oracle import KapernOracleBatch
from agents.kapern_oracle import KapernOracleAgent
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, REROLL_OFFSET, STOP, reroll_counts
from pirate_envs.piraten_kapern.rules import CARDS, SKULL
from tests.helpers import assert_replays_with_agent

ENV_ID = "piraten_kapern_v0"
PLAYER_COUNTS = (2, 3, 4, 5)
LAYOUTS = ("seated", "max")
GAMES_PER_TABLE = 2  # per deck: the base deck, and one with four After the Storm and four Peace cards
PROMO_DECKS = ({"promo_cards": False}, {"promo_cards": True, "promo_copies": 4})


def checked_action(env, oracle: KapernOracleAgent, batched: KapernOracleBatch):
    """The view on turn and the one-game oracle's action, checked equal to the batched one on that row."""
    obs = env.last()[0]
    view = env.game.view(env.game.current_player)
    action = oracle.act(obs, view)
    chosen = batched.act_batch(np.zeros(1, dtype=np.int64), obs["observation"][None], obs["action_mask"][None])
    assert chosen.dtype == np.int64 and chosen.shape == (1,)
    assert chosen[0] == action, f"batched {chosen[0]} != one-game {action} in {view}"
    return view, action


@functools.cache
def played_positions(num_players: int, table_layout: str):
    """AEC games with the one-game oracle at every seat, checked one row at a time: every decision's
    observation, mask, one-game action and ``(view, action)``."""
    observations, masks, expected, decisions = [], [], [], []
    oracle = KapernOracleAgent()
    for deck in PROMO_DECKS:
        env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout, **deck)
        batched = KapernOracleBatch(env, num_games=1, seed=0)
        for game in range(GAMES_PER_TABLE):
            env.reset(seed=100 * num_players + game)
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                view, action = checked_action(env, oracle, batched)
                observations.append(obs["observation"])
                masks.append(obs["action_mask"])
                expected.append(action)
                decisions.append((view, action))
                env.step(action)
    return np.array(observations), np.array(masks), np.array(expected, dtype=np.int64), decisions


@pytest.mark.parametrize("table_layout", LAYOUTS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_decision_matches_the_one_game_oracle(num_players, table_layout):
    observations, masks, expected, _ = played_positions(num_players, table_layout)
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
    agent = KapernOracleBatch(env, num_games=len(expected), seed=0)
    order = np.random.default_rng(num_players).permutation(len(expected))  # one big batch, shuffled
    chosen = agent.act_batch(order, observations[order], masks[order].astype(bool))
    mismatches = np.flatnonzero(chosen != expected[order])
    assert mismatches.size == 0, f"{mismatches.size} of {len(expected)} rows differ, first: {order[mismatches[:1]]}"


def test_the_games_reach_every_card_and_kind_of_move():
    """The compared positions hold every card, both states of the one-off options, chest moves both ways,
    the Sorceress's skull re-roll and stops, so each branch of the lookup was checked."""
    decisions = [d for n in PLAYER_COUNTS for layout in LAYOUTS for d in played_positions(n, layout)[3]]
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
    oracle, batched = KapernOracleAgent(), KapernOracleBatch(env, num_games=1, seed=0)
    rng = np.random.default_rng(5)
    actions = []
    for seed in range(40):
        env.reset(seed=seed, options={"first_card": "treasure_chest"})
        view = env.game.view(env.game.current_player)
        if view.card != "treasure_chest" or view.island:  # the first roll ended the turn, or the Island
            continue
        for _ in range(rng.integers(1, 6)):
            chest_moves = np.flatnonzero(env.last()[0]["action_mask"][CHEST_PUT_OFFSET:]) + CHEST_PUT_OFFSET
            env.step(int(rng.choice(chest_moves)))
        while env.game.current_player == view.seat:  # the rest of the turn
            _, action = checked_action(env, oracle, batched)
            actions.append(action)
            env.step(action)
    assert any(action >= CHEST_TAKE_OFFSET for action in actions)


def test_it_plays_the_batched_engine_as_the_one_game_oracle_plays_the_env():
    """Whole games on the batched engine's arrays; replayed in the AEC env, every move is the one-game oracle's."""
    num_games, num_players, options = 16, 3, {"promo_cards": True, "promo_copies": 4}
    venv = pirate_envs.vector.make(ENV_ID, num_envs=num_games, seed=3, num_players=num_players, **options)
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, **options)
    agent = make_batched_agent("oracle", ENV_ID, env, num_games, seed=0)
    assert isinstance(agent, KapernOracleBatch) and agent.name == "oracle"
    venv.reset()
    games = np.arange(num_games)
    ended = np.zeros(num_games, dtype=bool)
    while not ended.all():  # an ended game waits, so that its moves can be replayed
        live = ~ended
        actions = np.zeros(num_games, dtype=np.int64)
        actions[live] = agent.act_batch(games[live], venv.observation[live], venv.action_mask[live])
        venv.step(actions, live)
        ended |= venv.terminated | venv.truncated
    assert venv.terminated.all()
    for i in range(4):
        assert_replays_with_agent(env, venv, i, KapernOracleAgent())


def test_bad_rows_and_variants_it_was_not_solved_for_raise():
    observations, masks, expected, _ = played_positions(2, "seated")
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
