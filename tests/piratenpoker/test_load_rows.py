"""Piratenpoker's loaded rows at every kind of moment of its rules (``tests/vector/test_load_rows.py`` plays
every game's loaded rows; the cases are Piratenpoker's in ``tests/piratenpoker/short_games.json``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from pirate_envs import vector
from pirate_envs.core.chance import GeneratorChance, SplitMix64Stream
from pirate_envs.core.engine import Engine
from pirate_envs.testing import _Where
from tests.vector.test_load_rows import PIRATENPOKER, aec_on, load_case, play_in_lockstep


def _piratenpoker_moment(engine: Any) -> tuple[Any, ...]:
    """What kind of moment a Piratenpoker position is: the phase and round, whether a gift was made or a
    card may go to its winner, whether the next deal may reshuffle the discard, whether one was reshuffled."""
    low = len(engine.draw) < engine.num_players * engine.config.hand_size
    reshuffled = len(engine.piles.compositions) > 1
    return int(engine.phase), engine.round, engine.gifts > 0, engine.may_give_to_self, low, reshuffled


@pytest.mark.parametrize("case", ["piratenpoker", "piratenpoker_readings"])
def test_piratenpoker_rows_load_at_every_kind_of_moment(case: str) -> None:
    """Positions of every phase and round (a bid half built, a loot card to pick, a gift to make or keep, a
    recipient to name), before and after the discard is reshuffled, true and determinized, play in lockstep."""
    env_id = PIRATENPOKER
    found = load_case(env_id, case)
    kwargs = {
        "num_players": found["players"][-1],
        **found["options"],
        "loot_fronts": (5, 5, 6, 6, 8, 8, 10),
    }  # long enough to reshuffle
    positions: list[Engine] = []
    seen: set[tuple[Any, ...]] = set()
    for game_seed in range(6):
        engine = pirate_envs.make(env_id, raw=True, **kwargs).game
        engine.reset(GeneratorChance(np.random.default_rng(game_seed)))
        rng = np.random.default_rng(game_seed)
        while not engine.done:
            moment = _piratenpoker_moment(engine)
            if moment not in seen:
                seen.add(moment)
                positions.append(engine.clone())
                world = engine.clone()
                world.resample_hidden(world.current_player, rng)
                positions.append(world)
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.integers(len(legal)))])
    assert {moment[0] for moment in seen} == {0, 1, 2, 3}  # every phase (the bid, the loot, the gift, the recipient)
    assert any(moment[4] for moment in seen) and any(moment[5] for moment in seen)
    env_kwargs = {**kwargs, "reward_mode": "score"}
    venv = vector.make(env_id, 2 * len(positions), seed=1, **env_kwargs)
    venv.reset()
    rows = list(range(len(positions)))
    seeds = list(range(10, 10 + len(rows)))
    venv.load(rows, positions, seeds=seeds)
    envs = {
        i: aec_on(env_id, position.clone(SplitMix64Stream(seed)), **env_kwargs)
        for i, position, seed in zip(rows, positions, seeds)
    }
    draws = {i: len(env.game.draw) for i, env in envs.items()}
    play_in_lockstep(venv, envs, np.random.default_rng(2), _Where("load", env_id, 1), env_kwargs, copy_at=2)
    assert any(len(env.game.draw) > draws[i] for i, env in envs.items())  # some row reshuffled from its stream
