"""The batched Skull King kernels against the AEC env, step by step.

`pirate_envs.testing.check_lockstep` mirrors every game of a batch by a raw AEC env whose engine
is ``venv.reference_engine(i)``, reset with ``venv.reset_options(i)``: the same cards. The
harness's own random legal play drives both, and after every step the observation, the mask, the
seat shown, the rewards of every seat and the ends must be identical; ``engine(i)`` must reproduce
the AEC env's engine.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from pirate_envs.testing import check_lockstep

SKULL_KING = "skull_king_v0"


# Skull King: the harness's own random play (a block first, then an action in it)
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_skull_king_lockstep(num_players: int, reward_mode: str) -> None:
    report = check_lockstep(SKULL_KING, 16, games=40, seed=100 + num_players, num_players=num_players,
                            reward_mode=reward_mode)  # fmt: skip
    assert report.games >= 40 and report.engine_checks > 0


@pytest.mark.parametrize("num_players", [2, 6])
def test_skull_king_lockstep_short_games_and_other_dealer(num_players: int) -> None:
    """Options change the deal sizes, the dealer order and ``hands_left``: the same in both."""
    report = check_lockstep(SKULL_KING, 16, games=60, seed=7, num_players=num_players, num_hands=3,
                            first_dealer=num_players - 1, reward_mode="score")  # fmt: skip
    assert report.games >= 60


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_skull_king_lockstep_long(num_players: int, reward_mode: str) -> None:
    report = check_lockstep(SKULL_KING, 64, games=1000, seed=1000 + num_players, num_players=num_players,
                            reward_mode=reward_mode)  # fmt: skip
    assert report.games >= 1000


@pytest.mark.parametrize("num_players", [2, 5])
def test_skull_king_lockstep_max_table_layout(num_players: int) -> None:
    """``table_layout="max"``: the rows of a six-player table (absent seats zero) and ``seat_present``."""
    report = check_lockstep(SKULL_KING, 8, games=16, seed=60 + num_players, num_players=num_players, num_hands=4,
                            table_layout="max", reward_mode="score")  # fmt: skip
    assert report.games >= 16 and report.engine_checks > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_skull_king_lockstep_max_table_layout_long(num_players: int) -> None:
    report = check_lockstep(SKULL_KING, 64, games=300, seed=1100 + num_players, num_players=num_players,
                            table_layout="max")  # fmt: skip
    assert report.games >= 300
