"""Checks shared by the tests of Kapern's batched agents (the heuristic, the oracle): each chooses what its
one-game agent chooses, position by position, in whole AEC games and on the batched engine."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET
from tests.helpers import assert_replays_with_agent

ENV_ID = "piraten_kapern_v0"
PLAYER_COUNTS = (2, 3, 4, 5)
LAYOUTS = ("seated", "max")
GAMES_PER_TABLE = 2  # per deck: the base deck, and one with four After the Storm and four Peace cards
PROMO_DECKS = ({"promo_cards": False}, {"promo_cards": True, "promo_copies": 4})


def checked_action(env: Any, one_game: Any, batched: Any) -> tuple[Any, int]:
    """The view on turn and the one-game agent's action, checked equal to the batched agent's on that row."""
    obs = env.last()[0]
    view = env.game.view(env.game.current_player)
    action = one_game.act(obs, view)
    chosen = batched.act_batch(np.zeros(1, dtype=np.int64), obs["observation"][None], obs["action_mask"][None])
    assert chosen.dtype == np.int64 and chosen.shape == (1,)
    assert chosen[0] == action, f"batched {chosen[0]} != one-game {action} in {view}"
    return view, action


@functools.cache
def played_positions(one_game_class: type, batched_class: type, num_players: int, table_layout: str):
    """AEC games with the one-game agent at every seat, checked one row at a time: every decision's
    observation, mask and one-game action, and ``(view, action)``."""
    observations, masks, expected, decisions = [], [], [], []
    one_game = one_game_class()
    for deck in PROMO_DECKS:
        env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout, **deck)
        batched = batched_class(env, num_games=1, seed=0)
        for game in range(GAMES_PER_TABLE):
            env.reset(seed=100 * num_players + game)
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                view, action = checked_action(env, one_game, batched)
                observations.append(obs["observation"])
                masks.append(obs["action_mask"])
                expected.append(action)
                decisions.append((view, action))
                env.step(action)
    return np.array(observations), np.array(masks), np.array(expected, dtype=np.int64), decisions


def assert_one_shuffled_batch_matches(one_game_class: type, batched_class: type, num_players: int, table_layout: str):
    """Every position of `played_positions` given as one big shuffled batch: the one-game choices."""
    observations, masks, expected, _ = played_positions(one_game_class, batched_class, num_players, table_layout)
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
    agent = batched_class(env, num_games=len(expected), seed=0)
    order = np.random.default_rng(num_players).permutation(len(expected))
    chosen = agent.act_batch(order, observations[order], masks[order].astype(bool))
    mismatches = np.flatnonzero(chosen != expected[order])
    assert mismatches.size == 0, f"{mismatches.size} of {len(expected)} rows differ, first: {order[mismatches[:1]]}"


def kapern_chest_turn_actions(check, one_game, batched) -> list[int]:
    """Two-player Kapern turns with the Treasure Chest where random dice went on the chest first; the rest of
    each turn is played by ``check(env, one_game, batched)`` (which compares the batched agent with the
    one-game one on the position and returns ``(view, action)``). Returns the actions played."""
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
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
            _, action = check(env, one_game, batched)
            actions.append(action)
            env.step(action)
    return actions


def assert_batched_kapern_games_replay(agent_name: str, make_one_game) -> None:
    """Whole 3-player Kapern games (promo cards) played on the batched engine by the batched ``agent_name`` (an
    illegal move would raise); replayed in the AEC env, every move is the one-game agent's (``make_one_game()``)."""
    num_games, num_players, options = 16, 3, {"promo_cards": True, "promo_copies": 4}
    env_id = ENV_ID
    venv = pirate_envs.vector.make(env_id, num_envs=num_games, seed=3, num_players=num_players, **options)
    env = pirate_envs.make(env_id, raw=True, num_players=num_players, **options)
    agent = make_batched_agent(agent_name, env_id, env, num_games, seed=0)
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
        assert_replays_with_agent(env, venv, i, make_one_game())
