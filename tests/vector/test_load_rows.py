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
from tests.game_data import short_game_entry
from tests.games import GAME_IDS, require

SKULL_KING = "skull_king_v0"
KAPERN = "piraten_kapern_v0"
PIRATENPOKER = "piratenpoker_v0"


def load_cases(env_id: str) -> list[dict[str, Any]]:
    """The game's cases ``{case, options, players}``: its ``load_rows`` entry in ``tests/<game>/short_games.json``
    (short options: games end within a few hundred moves; the table sizes played), else its quick game at its
    fewest, a middle and its most players."""
    spec = pirate_envs.game_spec(env_id)
    counts = spec.player_counts
    players = sorted({counts[0], counts[len(counts) // 2], counts[-1]})
    return short_game_entry(env_id, "load_rows") or [
        {"case": spec.package, "options": spec.quick_options, "players": players}
    ]


def load_case(env_id: str, case: str) -> dict[str, Any]:
    """The case named ``case`` of `load_cases`."""
    (found,) = [entry for entry in load_cases(env_id) if entry["case"] == case]
    return found


#: Most batch steps a loaded game may take to end (the longest game of the cases is far shorter).
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
    """Every case of every game at each of its table sizes, the second with the ``"max"`` table layout where the
    game has it; one case (skipped by name) for a game without batched kernels."""
    for env_id in GAME_IDS:
        spec = pirate_envs.game_spec(env_id)
        if not spec.has("batched_kernels"):
            yield pytest.param(env_id, "", spec.min_players, "seated", id=env_id)
            continue
        for case in load_cases(env_id):
            for k, num_players in enumerate(case["players"]):
                layout = "max" if k == 1 and spec.has("table_layouts") else "seated"
                name = case["case"]
                yield pytest.param(env_id, name, num_players, layout, id=f"{env_id}-{name}-{num_players}p-{layout}")


@pytest.mark.parametrize(("env_id", "case", "num_players", "table_layout"), list(_cases()))
def test_loaded_rows_play_in_lockstep_with_the_engine(
    env_id: str, case: str, num_players: int, table_layout: str
) -> None:
    require(env_id, "batched_kernels")
    options = load_case(env_id, case)["options"]
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
        tournament = options.get("wins_to_win", 1) > 1
        games_at_load = {i: _games_dealt(env.game) for i, env in envs.items()} if tournament else {}
        assert play_in_lockstep(venv, envs, rng, where, env_kwargs, copy_at=3) > 0
        if tournament:  # later games were dealt from the rows' streams
            assert any(_games_dealt(envs[i].game) > games_at_load[i] + 1 for i in rows)
        # a loaded game that ended starts a new game on the row's next step: an ordinary one again
        ended = rows[0]
        venv.step(block_first_actions(venv, rng), np.arange(num_envs) == ended)
        assert not venv.is_loaded(ended)
        fresh = pirate_envs.make(env_id, raw=True, **env_kwargs)
        _start_row(venv, fresh, ended)
        _compare_row(venv, fresh, ended, where)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_without_seeds_a_loaded_row_goes_on_with_its_own_stream(env_id: str) -> None:
    require(env_id, "batched_kernels")
    options = load_cases(env_id)[0]["options"]
    kwargs = {"num_players": 3, **options}
    position = reference_positions(env_id, 3, 2, **kwargs)[0]
    venv = vector.make(env_id, 3, seed=4, **kwargs)
    venv.reset()
    stream = int(venv._backend.rng[2])
    venv.load([2], [position])
    env = aec_on(env_id, position.clone(SplitMix64Stream(stream)), **kwargs)
    play_in_lockstep(venv, {2: env}, np.random.default_rng(5), _Where("load", env_id, 4), kwargs)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_copy_rows_lists_every_per_game_array(env_id: str) -> None:
    """Every array of the backend with one row per game is copied (a batch size no table has tells them apart)."""
    require(env_id, "batched_kernels")
    options = load_cases(env_id)[0]["options"]
    venv = vector.make(env_id, 13, seed=0, num_players=3, **options)
    backend = venv._backend
    per_game = {name for name, value in vars(backend).items() if isinstance(value, np.ndarray) and len(value) == 13}
    assert per_game == {*backend.BASE_ROW_ARRAYS, *backend.ROW_ARRAYS}


def test_a_loaded_row_has_no_reset_start_until_a_reset() -> None:
    venv = vector.make(SKULL_KING, 3, seed=0, num_players=2, num_hands=2)
    venv.reset()
    position = reference_positions(SKULL_KING, 0, 2, num_players=2, num_hands=2)[1]
    loaded = position.clone()
    venv.load(0, position, seeds=7)
    position.apply(position.legal_actions()[0])  # the row keeps the game as loaded
    assert all(venv.start_engine(0).view(s) == loaded.view(s) for s in range(2))
    for call in (venv.reference_engine, venv.reset_options, venv.chance_outcomes):
        with pytest.raises(RuntimeError, match=r"^game 0 was loaded from an engine .* venv.start_engine\(0\)"):
            call(0)
    venv.copy_rows(0, [1, 2])
    assert venv.is_loaded(1) and venv.is_loaded(2)
    venv.reset()
    assert not any(venv.is_loaded(i) for i in range(3))
    assert venv.reset_options(0)["deals"]  # a reset game again


def test_copy_rows_over_a_loaded_row_makes_it_the_source_game() -> None:
    venv = vector.make(KAPERN, 3, seed=0, num_players=2)
    venv.reset()
    engine = pirate_envs.make(KAPERN, raw=True, num_players=2).game
    engine.reset(np.random.default_rng(0))
    venv.load(1, engine, seeds=3)
    assert venv.is_loaded(1)
    venv.copy_rows([0], [1])
    assert not venv.is_loaded(1) and venv.moves(1) == venv.moves(0)
    assert venv.engine(1).view(0) == venv.engine(0).view(0)
    assert (
        venv._backend.reference_engine(1).pinned_chance.state == venv._backend.reference_engine(0).pinned_chance.state
    )


def test_copy_rows_of_a_shorter_game_over_a_longer_one_plays_on_as_its_source() -> None:
    """A copy writes the source's moves only (a row's history past its count is never read): the row
    that held a longer game keeps the source's moves and goes on beside it."""
    venv = vector.make(SKULL_KING, 3, seed=0, num_players=2, num_hands=4)
    venv.reset()
    rng = np.random.default_rng(2)

    def play(rows: list[int], moves: int) -> None:
        for _ in range(moves):
            actions = np.zeros(3, dtype=np.int64)
            actions[rows] = rng.choice(np.flatnonzero(venv.action_mask[rows[0]]))
            active = np.zeros(3, dtype=bool)
            active[rows] = True
            venv.step(actions, active)

    play([0], 12)
    play([1], 3)
    longer = venv.moves(0)
    venv.copy_rows([1], [0])
    assert venv.moves(0) == venv.moves(1) and len(venv.moves(0)) == 3 and len(longer) == 12
    play([0, 1], 6)  # the same moves in both rows
    assert venv.moves(0) == venv.moves(1) and len(venv.moves(0)) == 9
    assert all(venv.engine(0).view(seat) == venv.engine(1).view(seat) for seat in range(2))
    np.testing.assert_array_equal(venv.observation[0], venv.observation[1])


def _finished(env_id: str, **kwargs: Any) -> Engine:
    engine = pirate_envs.make(env_id, raw=True, **kwargs).game
    engine.reset(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    while not engine.done:
        legal = engine.legal_actions()
        engine.apply(legal[int(rng.integers(len(legal)))])
    return engine


def test_bad_input_is_refused_in_one_line_and_writes_nothing() -> None:
    kwargs = {"num_players": 2, "num_hands": 2}
    venv = vector.make(SKULL_KING, 3, seed=0, **kwargs)
    engine = reference_positions(SKULL_KING, 0, 2, **kwargs)[1]
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before loading or copying games$"):
        venv.load(0, engine)
    venv.reset()
    kapern = pirate_envs.make(KAPERN, raw=True, num_players=2).game
    three = reference_positions(SKULL_KING, 0, 2, num_players=3, num_hands=2)[1]
    longer = reference_positions(SKULL_KING, 0, 2, num_players=2, num_hands=3)[1]
    before = {i: row_state(venv, i) for i in range(3)}
    refused = [
        (ValueError, r"^rows: 3 is not a game index; expected integers 0\.\.2$", lambda: venv.load(3, engine)),
        (ValueError, r"^rows: -1 is not a game index", lambda: venv.load([-1], [engine])),
        (TypeError, r"^rows=True is not valid; expected a game index or a sequence", lambda: venv.load(True, engine)),
        (ValueError, r"^rows: True is not a game index", lambda: venv.load([True], [engine])),
        (ValueError, r"^rows is empty; expected at least one game index 0\.\.2$", lambda: venv.load([], [])),
        (ValueError, r"^rows repeats a game index \(\[1, 1\]\)", lambda: venv.load([1, 1], [engine, engine])),
        (TypeError, r"^engines\[0\] is a KapernEngine; expected a SkullKingEngine$", lambda: venv.load(0, kapern)),
        (ValueError, r"^engines\[1\] has 3 players; this batch plays 2$", lambda: venv.load([0, 1], [engine, three])),
        (ValueError, r"^engines\[0\]'s config differs from this batch's: num_hands=3 \(batch: 2\)$",
         lambda: venv.load(0, longer)),
        (ValueError, r"^engines\[0\]'s game is over \(terminated\); load a game still in play$",
         lambda: venv.load(0, _finished(SKULL_KING, **kwargs))),
        (ValueError, r"^1 engines given for 2 rows; give one engine per row$", lambda: venv.load([0, 1], [engine])),
        (TypeError, r"^engines must be an engine or a sequence of engines; got int$", lambda: venv.load(0, 5)),
        (ValueError, r"^seeds: -1 is not valid; expected integers 0\.\.2\*\*64-1", lambda: venv.load(0, engine, -1)),
        (ValueError, r"^seeds: 18446744073709551616 is not valid", lambda: venv.load(0, engine, 2**64)),
        (ValueError, r"^2 seeds given for 1 rows; give one seed per row$", lambda: venv.load(0, engine, [1, 2])),
        (ValueError, r"^dst repeats a game index", lambda: venv.copy_rows(0, [1, 1])),
        (ValueError, r"^dst: 7 is not a game index", lambda: venv.copy_rows(0, 7)),
        # integer arrays (the searches' form) give the same errors as lists
        (ValueError, r"^dst: 3 is not a game index; expected integers 0\.\.2$",
         lambda: venv.copy_rows(0, np.array([1, 3]))),
        (ValueError, r"^dst: 4 is not a game index", lambda: venv.copy_rows(0, [np.int64(4)])),
        (ValueError, r"^dst: -1 is not a game index", lambda: venv.copy_rows(0, np.array([-1]))),
        (ValueError, r"^dst: 18446744073709551615 is not a game index",
         lambda: venv.copy_rows(0, np.array([2**64 - 1], dtype=np.uint64))),
        (ValueError, r"^dst repeats a game index \(\[2, 2\]\)", lambda: venv.copy_rows(0, np.array([2, 2]))),
        (ValueError, r"^dst is empty; expected at least one game index", lambda: venv.copy_rows(0, np.array([], int))),
        (ValueError, r"^2 src rows for 1 dst rows; give one src or one per dst$", lambda: venv.copy_rows([0, 1], 2)),
    ]  # fmt: skip
    for error, message, call in refused:
        with pytest.raises(error, match=message) as raised:
            call()
        assert "\n" not in str(raised.value)
    for i in range(3):
        for name, value in before[i].items():
            assert np.array_equal(row_state(venv, i)[name], value), f"a refused call changed row {i}'s {name}"
    assert not any(venv.is_loaded(i) for i in range(3))


def test_a_backend_without_a_loader_says_so() -> None:
    """Every covered game loads; a backend that lists no per-game arrays (a game yet to get its loader) refuses."""
    venv = vector.make(PIRATENPOKER, 2, seed=0, num_players=3)
    venv.reset()
    venv._backend.ROW_ARRAYS = None
    engine = pirate_envs.make(PIRATENPOKER, raw=True, num_players=3).game
    for call in (lambda: venv.load(0, engine), lambda: venv.copy_rows(0, 1)):
        with pytest.raises(
            NotImplementedError, match=r"^the batched piratenpoker engine cannot load engines or copy rows yet"
        ):
            call()
    assert all(vector.make(env_id, 1, num_players=3)._backend.ROW_ARRAYS for env_id in vector.COVERED_ENV_IDS)
