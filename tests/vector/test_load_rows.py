"""``VectorEnv.load`` and ``copy_rows``: a batched row given any engine's game plays it in lockstep.

Positions come from seeded random games of the reference engine (the start, every few moves,
the last decision) and from determinized worlds of them (``clone`` + ``resample_hidden``). Each
is loaded into a row with a stream seed; a raw AEC env plays ``engine.clone(SplitMix64Stream(seed))``
(the row's reference twin) beside it, and random legal play runs both to the end of the game:
after every step the observation, the mask, the seat shown, the rewards and the ends must be
identical (`pirate_envs.testing`'s row comparison), and ``venv.engine(i)`` must rebuild the
reference game. Rows copied with ``copy_rows`` in the middle of such a game play on, with other
actions, beside a clone of the reference. Loading leaves the other rows untouched, and bad input
is refused in one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from pirate_envs import vector
from pirate_envs.core.chance import GeneratorChance, SplitMix64Stream
from pirate_envs.core.engine import Engine
from pirate_envs.testing import _compare_engine, _compare_row, _start_row, _Where, block_first_actions

SKULL_KING = "skull_king_v0"
KAPERN = "piraten_kapern_v0"
LUCKY_PIRATE = "lucky_pirate_v0"
#: Per case: the env id, short options (games end within a few hundred moves) and the table sizes played.
#: Lucky Pirate's tournament deals its later games (and draws their dealers) after the load.
GAMES: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "skull_king": (SKULL_KING, {"num_hands": 4}, (2, 4, 6)),
    "kapern": (KAPERN, {"target_score": 1500, "max_turns": 40, "promo_cards": True}, (2, 3, 5)),
    "lucky_pirate": (LUCKY_PIRATE, {"max_turns": 300}, (2, 4, 6)),
    "lucky_pirate_tournament": (
        LUCKY_PIRATE,
        {
            "max_turns": 60,
            "wins_to_win": 2,
            "choose_up_cards": True,
            "set_aside_dealer": "random",
            "max_set_aside_games": 3,
        },
        (3,),
    ),
}
#: Most batch steps a loaded game may take to end (the longest game above is far shorter).
MAX_STEPS = 5000


def reference_positions(env_id: str, seed: int, count: int, **env_kwargs: Any) -> list[Engine]:
    """``count`` positions of one seeded random game of the reference engine: the start, evenly spaced moves,
    the last decision; with a determinized world (other seats' cards redrawn) beside every other one."""
    env = pirate_envs.make(env_id, raw=True, **env_kwargs)
    engine = env.game
    rng = np.random.default_rng(seed)
    engine.reset(GeneratorChance(np.random.default_rng(seed)))
    states = []
    while not engine.done:
        states.append(engine.clone())
        legal = engine.legal_actions()
        engine.apply(legal[int(rng.integers(len(legal)))])
    picks = sorted({0, len(states) - 1, *np.linspace(0, len(states) - 1, count).astype(int).tolist()})
    positions = []
    for k, pick in enumerate(picks):
        positions.append(states[pick])
        if k % 2:
            world = states[pick].clone()
            world.resample_hidden(world.current_player, np.random.default_rng(seed + k))
            positions.append(world)
    return positions


def aec_on(env_id: str, engine: Engine, **env_kwargs: Any) -> Any:
    """A raw AEC env playing ``engine``'s game from where it stands (rewards zero, as a loaded row's)."""
    env = pirate_envs.make(env_id, raw=True, **env_kwargs)
    env.reset(seed=0)
    env.game = engine
    agents = env.possible_agents
    env.agents = agents[:]
    env.rewards = {a: 0.0 for a in agents}
    env._cumulative_rewards = {a: 0.0 for a in agents}
    env.terminations = {a: False for a in agents}
    env.truncations = {a: False for a in agents}
    env._scores = engine.scores()
    env._obs_cache.clear()
    env._mask = None
    env.agent_selection = agents[engine.current_player]
    return env


def row_state(venv: vector.VectorEnv, index: int) -> dict[str, np.ndarray]:
    """Copies of every per-game array of row ``index`` (the backend's whole state of that game)."""
    backend = venv._backend
    return {name: getattr(backend, name)[index].copy() for name in (*backend.BASE_ROW_ARRAYS, *backend.ROW_ARRAYS)}


def play_in_lockstep(venv: vector.VectorEnv, envs: dict[int, Any], rng: np.random.Generator, where: _Where,
                     env_kwargs: dict[str, Any], copy_at: int | None = None) -> int:  # fmt: skip
    """Step the rows ``envs`` (row -> its reference env) with random legal actions until every game ended,
    comparing each row with its env after every step; the other rows wait. With ``copy_at``: after that
    many steps, each row is copied into a free row which then plays on beside a clone of its env.
    Returns the moves played."""
    moves = 0
    played: dict[int, list[int]] = {i: [] for i in envs}  # each row's moves since its load
    for i, env in envs.items():
        where.details = {"row": i, "batch step": 0}
        _compare_row(venv, env, i, where)
    playing = dict(envs)
    for step in range(1, MAX_STEPS + 1):
        if not playing:
            return moves
        if step == copy_at:
            free = [i for i in range(venv.num_envs) if i not in envs][: len(playing)]
            venv.copy_rows(list(playing)[: len(free)], free)
            for src, dst in zip(list(playing), free):
                twin = aec_on(venv.env_id, playing[src].game.clone(), **env_kwargs)
                twin.rewards = dict(playing[src].rewards)  # a copy shows its source's outputs, rewards too
                played[dst] = list(played[src])
                where.details = {"row": dst, "copied from": src}
                _compare_row(venv, twin, dst, where)
                _compare_engine(venv, twin, dst, where)
                playing[dst] = envs[dst] = twin
        active = np.zeros(venv.num_envs, dtype=bool)
        active[list(playing)] = True
        actions = block_first_actions(venv, rng)
        venv.step(actions, active)
        for i, env in list(playing.items()):
            env.step(int(actions[i]))
            played[i].append(int(actions[i]))
            moves += 1
            where.details = {"row": i, "batch step": step}
            _compare_row(venv, env, i, where)
            if env.game.done or rng.random() < 0.05:
                _compare_engine(venv, env, i, where)
            if env.game.done:
                assert venv.is_loaded(i) and venv.moves(i) == played[i]
                del playing[i]
    raise AssertionError(f"the loaded games have not ended after {MAX_STEPS} steps")


def _games_dealt(engine: Any) -> int:
    """The games a Lucky Pirate episode has dealt (won, set aside, and the one in play or ended)."""
    return int(engine.wins.sum()) + len(engine.set_aside_games) + 1


def _cases() -> Iterator[Any]:
    for case, (_, _, sizes) in GAMES.items():
        for k, num_players in enumerate(sizes):
            layout = "max" if k == 1 else "seated"
            yield pytest.param(case, num_players, layout, id=f"{case}-{num_players}p-{layout}")


@pytest.mark.parametrize(("case", "num_players", "table_layout"), list(_cases()))
def test_loaded_rows_play_in_lockstep_with_the_engine(case: str, num_players: int, table_layout: str) -> None:
    env_id, options, _ = GAMES[case]
    kwargs = {"num_players": num_players, "table_layout": table_layout, **options}
    for game_seed, reward_mode in ((num_players, "win"), (100 + num_players, "score")):
        positions = reference_positions(env_id, game_seed, 6, **kwargs)
        num_envs = 2 * len(positions) + 3
        env_kwargs = {**kwargs, "reward_mode": reward_mode}
        venv = vector.make(env_id, num_envs, seed=game_seed, **env_kwargs)
        venv.reset()
        rng = np.random.default_rng(game_seed)
        venv.step(block_first_actions(venv, rng))  # the other rows stand somewhere in a game
        rows = list(range(1, 1 + len(positions)))
        seeds = [int(s) for s in rng.integers(0, 2**64, len(rows), dtype=np.uint64)]
        others = [i for i in range(num_envs) if i not in rows]
        before = {i: row_state(venv, i) for i in others}
        originals = [position.clone() for position in positions]
        venv.load(rows, positions, seeds=seeds)
        for i in others:  # loading touches no other row
            for name, value in before[i].items():
                assert np.array_equal(row_state(venv, i)[name], value), f"row {i}'s {name} changed by the load"
        for position, original in zip(positions, originals):  # nor the engines
            assert all(position.view(s) == original.view(s) for s in range(num_players))
        envs = {
            i: aec_on(env_id, position.clone(SplitMix64Stream(seed)), **env_kwargs)
            for i, position, seed in zip(rows, positions, seeds)
        }
        for i, env in envs.items():
            assert venv.is_loaded(i) and venv.moves(i) == []
            assert all(venv.start_engine(i).view(s) == env.game.view(s) for s in range(num_players))
        where = _Where("load", env_id, game_seed)
        games_at_load = {i: _games_dealt(env.game) for i, env in envs.items()}
        assert play_in_lockstep(venv, envs, rng, where, env_kwargs, copy_at=3) > 0
        if options.get("wins_to_win", 1) > 1:  # later games were dealt from the rows' streams
            assert any(_games_dealt(envs[i].game) > games_at_load[i] + 1 for i in rows)
        # a loaded game that ended starts a new game on the row's next step: an ordinary one again
        ended = rows[0]
        venv.step(block_first_actions(venv, rng), np.arange(num_envs) == ended)
        assert not venv.is_loaded(ended)
        fresh = pirate_envs.make(env_id, raw=True, **env_kwargs)
        _start_row(venv, fresh, ended)
        _compare_row(venv, fresh, ended, where)
