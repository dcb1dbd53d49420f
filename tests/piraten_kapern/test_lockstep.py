"""The batched Piraten Kapern kernels against the AEC env, step by step.

`pirate_envs.testing.check_lockstep` mirrors every game of a batch by a raw AEC env whose engine
is ``venv.reference_engine(i)``, reset with ``venv.reset_options(i)``: the same cards and dice.
Random legal play drives both (the player stops now and then, so that turns score and games
end), and after every step the observation, the mask, the seat shown, the rewards of every seat
and the ends must be identical; ``engine(i)`` must reproduce the AEC env's engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET
from pirate_envs.piraten_kapern.engine import MAX_CHEST_MOVES_PER_ROLL
from pirate_envs.testing import LockstepReport, Policy, check_lockstep

KAPERN = "piraten_kapern_v0"
#: The random player stops with this probability when he may (uniform play almost never stops).
STOP_PROBABILITY = 0.3


def _random_actions(venv: vector.VectorEnv, rng: np.random.Generator) -> np.ndarray:
    """Uniform random legal actions; the player stops with `STOP_PROBABILITY` when he may."""
    actions = vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated)
    stop = (venv.action_mask[:, 0] == 1) & (rng.random(venv.num_envs) < STOP_PROBABILITY)
    actions[stop] = 0
    return actions


def _chest_actions(venv: vector.VectorEnv, rng: np.random.Generator) -> np.ndarray:
    """Kapern play that moves dice on and off the Treasure Chest whenever it may (up to the per-roll limit)."""
    actions = _random_actions(venv, rng)
    chest = venv.action_mask.copy()
    chest[:, :CHEST_PUT_OFFSET] = 0
    may_move = chest.any(axis=1)
    actions[may_move] = vector.random_legal_actions(chest, rng, ended=~may_move)[may_move]
    return actions


def kapern_lockstep(num_envs: int, games: int, seed: int, policy: Policy = _random_actions,
                    **env_kwargs: Any) -> tuple[LockstepReport, int]:  # fmt: skip
    """Kapern's ``check_lockstep`` until ``games`` games ended: its report and the row steps that
    found the chest moves used up for the roll."""
    chest_limit = [0]

    def count_chest_limit(venv: vector.VectorEnv, i: int, env: Any, action: int | None) -> None:
        chest_limit[0] += env.game.turn.chest_moves >= MAX_CHEST_MOVES_PER_ROLL

    report = check_lockstep(KAPERN, num_envs, seed=seed, games=games, policy=policy, on_step=count_chest_limit,
                            **env_kwargs)  # fmt: skip
    return report, chest_limit[0]


#: Kapern games short enough for CI: a low target (games end by the final round) and a turn limit.
KAPERN_SHORT = {"target_score": 1500, "max_turns": 40}


@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_kapern_lockstep(num_players: int, reward_mode: str) -> None:
    report, _ = kapern_lockstep(16, 40, seed=200 + num_players, num_players=num_players, reward_mode=reward_mode,
                                promo_cards=True, **KAPERN_SHORT)  # fmt: skip
    assert report.games >= 40 and report.engine_checks > 0
    assert 0 < report.truncated < report.games  # both ends are exercised


def test_kapern_lockstep_default_game_and_a_game_over_at_reset() -> None:
    report, _ = kapern_lockstep(8, 8, seed=5, num_players=2)  # the default deck, target and limit
    assert report.games >= 8
    report, _ = kapern_lockstep(8, 40, seed=6, num_players=3, max_turns=1, reward_mode="score")
    assert report.truncated == report.games


def test_kapern_lockstep_chest_moves_up_to_their_limit() -> None:
    """Dice go on and off the Treasure Chest until the per-roll limit closes the chest moves."""
    report, chest_limit = kapern_lockstep(16, 32, seed=8, policy=_chest_actions, num_players=2, **KAPERN_SHORT)
    assert report.games >= 32 and chest_limit > 0


def test_kapern_lockstep_with_the_harness_random_play() -> None:
    """The harness's own play (a block first: ``stop`` is one of Kapern's few blocks) ends games too."""
    report = check_lockstep(KAPERN, 8, games=16, seed=9, num_players=3, **KAPERN_SHORT)
    assert report.games >= 16 and report.terminated > 0


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_kapern_lockstep_long(num_players: int, reward_mode: str) -> None:
    report, _ = kapern_lockstep(64, 1000, seed=2000 + num_players, num_players=num_players, reward_mode=reward_mode,
                                promo_cards=num_players % 2 == 0, target_score=3000, max_turns=200)  # fmt: skip
    assert report.games >= 1000


@pytest.mark.parametrize("num_players", [2, 4])
def test_kapern_lockstep_max_table_layout(num_players: int) -> None:
    """``table_layout="max"``: the rows of a five-player table (absent seats zero) and ``seat_present``."""
    report, _ = kapern_lockstep(8, 16, seed=210 + num_players, num_players=num_players, table_layout="max",
                                reward_mode="score", **KAPERN_SHORT)  # fmt: skip
    assert report.games >= 16 and report.engine_checks > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_kapern_lockstep_max_table_layout_long(num_players: int) -> None:
    report, _ = kapern_lockstep(64, 300, seed=2100 + num_players, num_players=num_players, table_layout="max",
                                target_score=3000, max_turns=200)  # fmt: skip
    assert report.games >= 300
