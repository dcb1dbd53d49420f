"""Games that wait: ``VectorEnv.step(actions, active)`` moves only the active games.

A batch is stepped with a random subset active at every step; a second batch of the same seed,
stepping every game on every step, replays each game's own actions in order. Each game must show
the same outputs after its ``k``-th own step in both, and a waiting game must not change at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from pirate_envs import vector
from tests.game_data import short_game
from tests.games import GAME_IDS, require


def short_games(env_id: str) -> dict[str, Any]:
    """Options of games that end (and wait while ended) within the test: the game's ``waiting_games`` entry
    (``tests/<game>/short_games.json``), else its quick game at its fewest players."""
    return {"num_players": pirate_envs.game_spec(env_id).min_players, **short_game(env_id, "waiting_games")}


def _outputs(venv: vector.VectorEnv, i: int) -> tuple[Any, ...]:
    """Copies of everything game ``i`` shows."""
    return (
        venv.observation[i].copy(),
        venv.action_mask[i].copy(),
        int(venv.current_player[i]),
        venv.rewards[i].copy(),
        bool(venv.terminated[i]),
        bool(venv.truncated[i]),
    )


def _assert_same(shown: tuple[Any, ...], expected: tuple[Any, ...], what: str) -> None:
    names = ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated")
    for name, a, b in zip(names, shown, expected):
        assert np.array_equal(a, b), f"{what}: {name} differs\n{a}\n{b}"


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_active_games_move_as_alone_and_waiting_games_stand_still(env_id: str) -> None:
    require(env_id, "batched_kernels")
    kwargs = short_games(env_id)
    num_envs, own_steps = 6, 80
    subset = vector.make(env_id, num_envs, seed=21, **kwargs)
    subset.reset()
    rng = np.random.default_rng(5)
    played: list[list[int]] = [[] for _ in range(num_envs)]  # each game's actions, in its own order
    seen: list[list[tuple]] = [[] for _ in range(num_envs)]  # its outputs after each of its own steps
    waited = waited_ended = ended = 0
    while min(len(p) for p in played) < own_steps:
        active = rng.random(num_envs) < 0.5
        actions = vector.random_legal_actions(subset.action_mask, rng, subset.terminated | subset.truncated)
        actions[~active] = -3 if rng.random() < 0.5 else 10**6  # a waiting game's action is not checked
        before = [_outputs(subset, i) for i in range(num_envs)]
        moves_before = [len(subset.moves(i)) for i in range(num_envs)]
        subset.step(actions, active=active)
        for i in range(num_envs):
            if active[i]:
                played[i].append(int(actions[i]))
                seen[i].append(_outputs(subset, i))
                ended += subset.terminated[i] or subset.truncated[i]
                continue
            waited += 1
            waited_ended += before[i][4] or before[i][5]
            obs, mask, player, _, terminated, truncated = before[i]
            expected = (obs, mask, player, np.zeros_like(before[i][3]), terminated, truncated)
            _assert_same(_outputs(subset, i), expected, f"waiting game {i}")
            assert len(subset.moves(i)) == moves_before[i]
    # waits, ends, and waits while ended all happened (else: shorter games in tests/<game>/short_games.json)
    assert waited > 0 and ended > 0 and waited_ended > 0, (kwargs, waited, ended, waited_ended)

    alone = vector.make(env_id, num_envs, seed=21, **kwargs)
    alone.reset()
    for k in range(own_steps):
        alone.step(np.array([played[i][k] for i in range(num_envs)]))
        for i in range(num_envs):
            _assert_same(_outputs(alone, i), seen[i][k], f"game {i}, own step {k}")


def test_active_is_validated_and_an_active_games_illegal_action_still_raises() -> None:
    venv = vector.make("skull_king_v0", 3, seed=0, num_players=4)
    venv.reset()
    actions = np.zeros(3, dtype=np.int64)
    for bad in ([True, False], np.ones(3, dtype=np.int8), [[True, True, True]], "yes"):
        with pytest.raises(TypeError, match=r"active must be 3 booleans, one per game .*; got shape"):
            venv.step(actions, active=bad)
    actions[1] = 5  # bid 5 is illegal in hand 1
    with pytest.raises(vector.BatchIllegalActionError, match=r"^game 1: illegal action 5"):
        venv.step(actions, active=[True, True, False])
    assert all(venv.moves(i) == [] for i in range(3))
    venv.step(actions, active=[True, False, True])  # game 1 waits: its action is not checked
    assert [venv.moves(i) for i in range(3)] == [[0], [], [0]]
    with pytest.raises(vector.BatchIllegalActionError, match=r"^game 1: illegal action 5"):
        venv.step(actions, active=None)  # None: every game moves, and every action is checked
    actions[1] = 0
    venv.step(actions, active=None)
    assert [venv.moves(i) for i in range(3)] == [[0, 0], [0], [0, 0]]
