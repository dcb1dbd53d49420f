"""The batched Piratenpoker heuristic chooses what the one-game heuristic chooses, position by position."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.base import RandomAgent, action_blocks
from agents.batched import make_batched_agent
from agents.piratenpoker.batched_heuristic import PiratenpokerHeuristicBatch
from agents.piratenpoker.heuristic import PiratenpokerHeuristic, _everybody_passed_last_time
from pirate_envs.piratenpoker.actions import ACTIONS, RECIPIENT
from pirate_envs.piratenpoker.engine import Phase
from tests.helpers import supported_player_counts

ENV_ID = "piratenpoker_v0"
PLAYER_COUNTS = supported_player_counts(ENV_ID)
EPISODES = 2  # per player count and layout: one of heuristics only, one with a random player among them


def play_and_compare(num_players: int, table_layout: str, seed: int, random_seat: int | None):
    """Play one episode, asking both heuristics at every decision; return the positions and choices.

    The one-game heuristic plays every seat but ``random_seat`` (random legal moves, for positions
    the heuristics alone do not reach); its choice is compared with the batched one everywhere.
    """
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
    env.reset(seed=seed)
    heuristic = PiratenpokerHeuristic()
    batched = PiratenpokerHeuristicBatch(env, num_games=1, seed=seed)
    randoms = RandomAgent(seed=seed, blocks=action_blocks(env))
    observations, masks, chosen, replayed = [], [], [], 0
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.seat_of(name)
        view = env.game.view(seat)
        expected = heuristic.act(obs, view)
        got = batched.act_batch(np.zeros(1, dtype=np.int64), obs["observation"][None], obs["action_mask"][None])
        assert got.dtype == np.int64 and got.tolist() == [expected], (
            f"{num_players} players, {table_layout}, seed {seed}, seat {seat}, phase {Phase(view.table.phase).name}: "
            f"batched {ACTIONS.to_string(int(got[0]))!r}, one-game {ACTIONS.to_string(expected)!r}"
        )
        observations.append(obs["observation"])
        masks.append(obs["action_mask"])
        chosen.append(expected)
        replayed += view.table.phase == Phase.BID and _everybody_passed_last_time(view.table)
        env.step(randoms.act(obs) if seat == random_seat else expected)
    assert heuristic.fallbacks == batched.fallbacks
    return observations, masks, chosen, replayed


@pytest.mark.parametrize("table_layout", ["seated", "max"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_batched_choices_equal_the_one_game_heuristic(num_players, table_layout):
    observations, masks, chosen, replayed = [], [], [], 0
    for episode in range(EPISODES):
        random_seat = None if episode == 0 else episode % num_players
        seed = 100 * num_players + episode
        o, m, c, r = play_and_compare(num_players, table_layout, seed=seed, random_seat=random_seat)
        observations += o
        masks += m
        chosen += c
        replayed += r
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
    agent = PiratenpokerHeuristicBatch(env, num_games=len(chosen), seed=0)
    games = np.arange(len(chosen))
    together = agent.act_batch(games, np.stack(observations), np.stack(masks).astype(bool))
    assert together.tolist() == chosen  # all the positions as one batch (and a bool mask)
    # the positions reach every kind of decision
    labels = {ACTIONS.to_string(a).split(" ")[0] for a in chosen}
    assert {"bid", "commit", "pass", "choose", "give", "to"} <= labels, labels  # it never keeps a negative card
    assert RECIPIENT in chosen  # a shark back kept
    if num_players == 4:
        assert replayed > 0  # a round replayed after everybody passed: the heuristics bid their cheapest card


def test_rows_of_several_table_sizes_in_one_max_layout_batch():
    """In the "max" layout one agent serves every table size: each row counts its own seats."""
    observations, masks, chosen = [], [], []
    for num_players in PLAYER_COUNTS:
        o, m, c, _ = play_and_compare(num_players, "max", seed=7, random_seat=None)
        observations += o
        masks += m
        chosen += c
    env = pirate_envs.make(ENV_ID, raw=True, num_players=PLAYER_COUNTS[0], table_layout="max")
    agent = PiratenpokerHeuristicBatch(env, num_games=1, seed=0)
    together = agent.act_batch(np.zeros(len(chosen), dtype=np.int64), np.stack(observations), np.stack(masks))
    assert together.tolist() == chosen


def test_a_row_with_no_legal_action_raises():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3)
    env.reset(seed=0)
    agent = PiratenpokerHeuristicBatch(env, num_games=2, seed=0)
    obs = env.observe(env.agent_selection)
    observations = np.stack([obs["observation"]] * 2)
    masks = np.stack([obs["action_mask"], np.zeros_like(obs["action_mask"])])
    with pytest.raises(ValueError, match="no legal action"):
        agent.act_batch(np.arange(2), observations, masks)


def test_rows_of_the_wrong_size_raise():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3)
    env.reset(seed=0)
    agent = PiratenpokerHeuristicBatch(env, num_games=1, seed=0)
    obs = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match="observations of shape"):
        agent.act_batch(np.zeros(1), obs["observation"][None, :-1], obs["action_mask"][None])


def test_make_batched_agent_builds_it():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=4)
    agent = make_batched_agent("heuristic", ENV_ID, env, 8, 0)
    assert isinstance(agent, PiratenpokerHeuristicBatch)
    assert agent.name == PiratenpokerHeuristic.name
