"""The searches' rollouts fused into one compiled call play the games of ``play_out``'s Python loop."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.registry import make_agent
from agents.search.batched import play_out
from pirate_envs.vector import BatchIllegalActionError
from tests.game_data import short_game_entry

#: The games whose batched heuristic offers fused rollouts.
FUSED = ["skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0"]
PLAYERS = 4
ROWS = 24


def _positions(env_id: str, count: int) -> tuple[object, list[object]]:
    """A raw env of the table and ``count`` positions of seeded random games (none ended)."""
    env = pirate_envs.make(env_id, raw=True, num_players=PLAYERS)
    rng = np.random.default_rng(11)
    engines: list[object] = []
    seed = 0
    while len(engines) < count:
        env.reset(seed=seed)
        seed += 1
        for _ in range(int(rng.integers(0, 60))):
            if env.game.done:
                break
            env.step(int(rng.choice(np.flatnonzero(env.game.legal_mask()))))
        if not env.game.done:
            engines.append(env.game.clone())
    return env, engines


def _twin_rows(env_id: str) -> tuple[object, object]:
    """A raw env and a ``VectorEnv`` whose rows ``0..ROWS-1`` and ``ROWS..2*ROWS-1`` hold the same games and streams."""
    env, engines = _positions(env_id, ROWS)
    venv = pirate_envs.vector.make(env_id, 2 * ROWS, seed=0, reward_mode="score", num_players=PLAYERS)
    venv.reset()
    seeds = np.arange(ROWS, dtype=np.uint64) * 7919 + 5
    venv.load(np.arange(ROWS), engines, seeds=seeds)
    venv.load(ROWS + np.arange(ROWS), engines, seeds=seeds)
    return env, venv


def _policy(env_id: str, env: object, fused: bool) -> object:
    policy = make_batched_agent("heuristic", env_id, env, 2 * ROWS * PLAYERS, seed=3)
    if not fused:
        policy.fused_rollouts = None  # play_out's Python loop
    return policy


def _roll(env, venv, policy, rows, horizon, first=None):
    scores = np.zeros((rows.size, PLAYERS))
    remaining = np.full(rows.size, np.inf if horizon is None else float(horizon))
    policy.reset_games((rows[:, None] * PLAYERS + np.arange(PLAYERS)).ravel())
    # the start positions seen once: Lucky Pirate's heuristic draws its move where it meets one again
    policy.act_batch(rows * PLAYERS + venv.current_player[rows], venv.observation[rows], venv.action_mask[rows])
    ended = play_out(venv, policy, rows, scores, float(env.SCORE_SCALE), remaining, first_actions=first)
    return scores, remaining, ended


@pytest.mark.parametrize("env_id", FUSED)
@pytest.mark.parametrize("horizon", [1, 3, None])
def test_fused_rollouts_play_the_games_of_the_python_loop(env_id, horizon, monkeypatch):
    memory = short_game_entry(env_id, "fused_small_memory")  # the game's, in tests/<game>/short_games.json
    if memory:  # a small first table: the memory grows in the middle of the rollouts
        monkeypatch.setattr(memory["setting"], memory["capacity"])
    env, venv = _twin_rows(env_id)
    fused_rows, plain_rows = np.arange(ROWS), ROWS + np.arange(ROWS)
    first = None  # to the end: the policy chooses from the start
    if horizon is not None:
        first = np.array([int(np.flatnonzero(venv.action_mask[row])[-1]) for row in fused_rows])
    fused, plain = _policy(env_id, env, True), _policy(env_id, env, False)
    assert fused.fused_rollouts(venv) is not None
    refills = []
    if hasattr(fused, "_rehash"):  # Lucky Pirate's memory grows through Python in the middle of a fused call
        grow = fused._rehash
        fused._rehash = lambda incoming: (refills.append(incoming), grow(incoming))
    got = _roll(env, venv, fused, fused_rows, horizon, first)
    want = _roll(env, venv, plain, plain_rows, horizon, first)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert got[0].any()  # scores changed: the rollouts played
    for name in ("observation", "action_mask", "current_player", "terminated", "truncated"):
        np.testing.assert_array_equal(getattr(venv, name)[fused_rows], getattr(venv, name)[plain_rows])
    for row in fused_rows.tolist():
        assert venv.moves(row) == venv.moves(row + ROWS)
    if memory:
        assert refills, "the rollouts should outgrow the memory's first table"
        assert fused._used == plain._used and len(fused._owners) == len(plain._owners)


@pytest.mark.parametrize("env_id", FUSED)
def test_an_illegal_first_action_moves_no_game(env_id):
    env, venv = _twin_rows(env_id)
    rows = np.arange(ROWS)
    first = np.array([int(np.flatnonzero(venv.action_mask[row])[0]) for row in rows])
    bad = 5
    first[bad] = int(np.flatnonzero(venv.action_mask[bad] == 0)[0])
    before = venv.observation.copy(), [venv.moves(row) for row in rows.tolist()]
    with pytest.raises(BatchIllegalActionError, match=f"game {bad}:"):
        _roll(env, venv, _policy(env_id, env, True), rows, 3, first)
    np.testing.assert_array_equal(venv.observation, before[0])
    assert [venv.moves(row) for row in rows.tolist()] == before[1]


def test_a_heuristic_offers_no_fused_rollouts_on_another_games_engine():
    env = pirate_envs.make("piratenpoker_v0", raw=True, num_players=PLAYERS)
    venv = pirate_envs.vector.make("skull_king_v0", 4, seed=0, num_players=PLAYERS)
    assert make_batched_agent("heuristic", "piratenpoker_v0", env, 16).fused_rollouts(venv) is None


@pytest.mark.parametrize("env_id", FUSED)
def test_the_halving_search_ranks_moves_as_with_the_python_loop(env_id, monkeypatch):
    env = pirate_envs.make(env_id, raw=True, num_players=PLAYERS)
    searched = []
    for fused in (True, False):
        if not fused:
            cls = type(make_batched_agent("heuristic", env_id, env, 1))
            monkeypatch.setattr(cls, "fused_rollouts", None)
        agent = make_agent("halving:24", env_id, seed=9, env=env)
        rng, stats = np.random.default_rng(5), []
        env.reset(seed=21)
        while len(stats) < 4 and not env.game.done:
            legal = np.flatnonzero(env.game.legal_mask())
            if legal.size > 1 and rng.random() < 0.2:
                stats.append(agent.search_root_moves())
            env.step(int(rng.choice(legal)))
        searched.append(stats)
    assert len(searched[0]) == 4 and searched[0] == searched[1]
