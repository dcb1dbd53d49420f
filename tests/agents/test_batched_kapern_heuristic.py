"""The batched Piraten Kapern heuristic chooses what the one-game heuristic chooses, move by move."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.batched.kapern_heuristic import KapernHeuristicBatch
from agents.kapern_heuristic import SMALL_STAKE, KapernHeuristic, junk, must_chase
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, REROLL_OFFSET, STOP, reroll_counts
from pirate_envs.piraten_kapern.rules import CARDS, MIN_SET, SABRE, SEA_BATTLES, SKULL, card_skulls
from pirate_envs.piraten_kapern.view import View
from tests.helpers import assert_replays_with_agent

ENV_ID = "piraten_kapern_v0"
PLAYER_COUNTS = (2, 3, 4, 5)
LAYOUTS = ("seated", "max")
GAMES_PER_TABLE = 2  # per deck: the base deck, and one with four After the Storm and four Peace cards
PROMO_DECKS = ({"promo_cards": False}, {"promo_cards": True, "promo_copies": 4})


def checked_action(env, heuristic: KapernHeuristic, batched: KapernHeuristicBatch) -> tuple[View, int]:
    """The view on turn and the one-game heuristic's action, checked equal to the batched one on that row."""
    obs = env.last()[0]
    view = env.game.view(env.game.current_player)
    action = heuristic.act(obs, view)
    chosen = batched.act_batch(np.zeros(1, dtype=np.int64), obs["observation"][None], obs["action_mask"][None])
    assert chosen.dtype == np.int64 and chosen.shape == (1,)
    assert chosen[0] == action, f"batched {chosen[0]} != one-game {action} in {view}"
    return view, action


@functools.cache
def played_positions(num_players: int, table_layout: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """AEC games with the one-game heuristic at every seat, checked one row at a time.

    Returns every decision's observation, mask and one-game action, and ``(view, plan, action)``
    for the coverage check.
    """
    observations, masks, expected, decisions = [], [], [], []
    heuristic = KapernHeuristic()
    for deck in PROMO_DECKS:
        env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout, **deck)
        batched = KapernHeuristicBatch(env, num_games=1, seed=0)
        for game in range(GAMES_PER_TABLE):
            env.reset(seed=100 * num_players + game)
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                view, action = checked_action(env, heuristic, batched)
                observations.append(obs["observation"])
                masks.append(obs["action_mask"])
                expected.append(action)
                decisions.append((view, heuristic.plan(view), action))
                env.step(action)
    return np.array(observations), np.array(masks), np.array(expected, dtype=np.int64), decisions


@pytest.mark.parametrize("table_layout", LAYOUTS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_decision_matches_the_one_game_heuristic(num_players, table_layout):
    observations, masks, expected, _ = played_positions(num_players, table_layout)
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, table_layout=table_layout)
    agent = KapernHeuristicBatch(env, num_games=len(expected), seed=0)
    order = np.random.default_rng(num_players).permutation(len(expected))  # one big batch, shuffled
    chosen = agent.act_batch(order, observations[order], masks[order].astype(bool))
    mismatches = np.flatnonzero(chosen != expected[order])
    assert mismatches.size == 0, f"{mismatches.size} of {len(expected)} rows differ, first: {order[mismatches[:1]]}"


def test_chest_arrangements_of_another_policy_match():
    """Random dice put on the Treasure Chest first (in its own turns the heuristic never takes one off)."""
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    heuristic, batched = KapernHeuristic(), KapernHeuristicBatch(env, num_games=1, seed=0)
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
            _, action = checked_action(env, heuristic, batched)
            actions.append(action)
            env.step(action)
    assert any(action >= CHEST_TAKE_OFFSET for action in actions)


def test_the_games_reach_every_branch_of_the_heuristic():
    """The compared positions hold every card and each rule of thumb, so every rule was checked."""
    decisions = [d for n in PLAYER_COUNTS for layout in LAYOUTS for d in played_positions(n, layout)[3]]
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
    num_games, num_players, options = 16, 3, {"promo_cards": True, "promo_copies": 4}
    venv = pirate_envs.vector.make(ENV_ID, num_envs=num_games, seed=3, num_players=num_players, **options)
    env = pirate_envs.make(ENV_ID, raw=True, num_players=num_players, **options)
    agent = make_batched_agent("heuristic", ENV_ID, env, num_games, seed=0)
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
    heuristic = KapernHeuristic()
    for i in range(4):
        assert_replays_with_agent(env, venv, i, heuristic)


def test_make_batched_agent_builds_it():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = make_batched_agent("heuristic", ENV_ID, env, 8, seed=1)
    assert isinstance(agent, KapernHeuristicBatch) and agent.name == "heuristic"


def test_a_row_with_no_legal_action_raises():
    observations, masks, _, _ = played_positions(2, "seated")
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = KapernHeuristicBatch(env, num_games=2, seed=0)
    masks = masks[:2].copy()
    masks[1] = 0
    with pytest.raises(ValueError, match="row 1 of action_masks has no legal action"):
        agent.act_batch(np.arange(2), observations[:2], masks)


def test_a_row_that_is_no_position_raises():
    observations, masks, _, _ = played_positions(2, "seated")
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    agent = KapernHeuristicBatch(env, num_games=1, seed=0)
    with pytest.raises(ValueError, match="row 0 of observations holds no Piraten Kapern position"):
        agent.act_batch(np.zeros(1, dtype=np.int64), np.zeros_like(observations[:1]), masks[:1])
    with pytest.raises(ValueError, match=r"expected \(M, 50\) observations"):
        agent.act_batch(np.zeros(1, dtype=np.int64), observations[:1, :-1], masks[:1])
    with pytest.raises(ValueError, match=r"and \(M, 2084\) action masks"):
        agent.act_batch(np.zeros(1, dtype=np.int64), observations[:1], masks[:1, :-1])
