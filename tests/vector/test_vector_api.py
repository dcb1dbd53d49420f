"""The batched engine's front: arguments, errors, seeding, restarts and the lazy import of numba."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import pirate_envs

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.core.chance import ScriptedChance, SplitMix64Stream
from pirate_envs.piraten_kapern.batched import KapernBatch
from pirate_envs.piraten_kapern.engine import KapernEngine
from pirate_envs.skull_king.engine import SkullKingEngine

ENV_ID = "skull_king_v0"


def _venv(num_envs: int = 4, seed: int | None = 0, env_id: str = ENV_ID, **kwargs) -> vector.VectorEnv:
    venv = vector.make(env_id, num_envs, seed=seed, **kwargs)
    venv.reset()
    return venv


def _play_to_end(venv: vector.VectorEnv, rng: np.random.Generator) -> int:
    """Random legal steps until some game ends; the number of steps taken."""
    steps = 0
    while not venv.terminated.any():
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
        steps += 1
    return steps


def test_import_pirate_envs_imports_no_numba() -> None:
    code = "import sys, pirate_envs, pirate_envs.vector; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_clear_error_without_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = vector.importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "numba" else real_find_spec(name, *args)

    monkeypatch.setattr(vector.importlib.util, "find_spec", find_spec)
    with pytest.raises(ImportError, match=r"needs numba: pip install .*\[fast\]"):
        vector.make(ENV_ID, 2)


def test_shapes_and_dtypes() -> None:
    venv = _venv(5, num_players=3)
    size = pirate_envs.make(ENV_ID, num_players=3).unwrapped.observation_layout.size
    assert venv.observation.shape == (5, size) and venv.observation.dtype == np.float32
    assert venv.action_mask.shape == (5, venv.num_actions) and venv.action_mask.dtype == np.int8
    assert venv.current_player.shape == (5,)
    assert venv.rewards.shape == (5, 3) and venv.rewards.dtype == np.float32
    assert venv.terminated.dtype == np.bool_ and venv.truncated.dtype == np.bool_
    assert not venv.terminated.any() and not venv.truncated.any()


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"num_players": 7}, "num_players=7 is out of range"),
        ({"num_players": 4, "num_hands": 11}, "num_hands=11 is out of range"),
        ({"reward_mode": "points"}, "reward_mode='points' is not valid"),
        ({"colour": 1}, "unknown keyword argument"),
        ({"render_mode": "ansi"}, "render_mode='ansi' is not valid here"),
    ],
)
def test_options_are_validated_as_the_env_does(kwargs: dict, error: str) -> None:
    with pytest.raises((ValueError, TypeError), match=error) as batched:
        vector.make(ENV_ID, 2, **kwargs)
    if "render_mode" not in kwargs:  # the env gives the very same error
        with pytest.raises(batched.type) as single:
            pirate_envs.make(ENV_ID, **kwargs)
        assert str(single.value) == str(batched.value)


def test_numpy_integers_are_accepted() -> None:
    venv = vector.make(ENV_ID, np.int64(2), seed=np.int32(1), num_players=np.int64(3))
    venv.reset(seed=np.uint8(2))
    assert venv.num_players == 3 and venv.num_envs == 2


@pytest.mark.parametrize(
    ("env_id", "num_envs", "seed", "error"),
    [
        ("skull_queen_v0", 2, 0, "unknown env id 'skull_queen_v0'"),
        (ENV_ID, 0, 0, "num_envs=0 is out of range"),
        (ENV_ID, 2.5, 0, "num_envs=2.5 must be an integer"),
        (ENV_ID, True, 0, "num_envs=True must be an integer"),
        (ENV_ID, 2, -1, "seed=-1 is negative"),
        (ENV_ID, 2, "x", "seed='x'"),
    ],
)
def test_bad_arguments(env_id: str, num_envs: object, seed: object, error: str) -> None:
    with pytest.raises((ValueError, TypeError), match=error):
        vector.make(env_id, num_envs, seed=seed)


def test_step_before_reset_and_bad_action_arrays() -> None:
    venv = vector.make(ENV_ID, 3, seed=0)
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step([0, 0, 0])
    venv.reset()
    with pytest.raises(TypeError, match=r"shape \(3,\)"):
        venv.step([0, 0])
    with pytest.raises(TypeError, match="dtype float64"):
        venv.step([0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="dtype bool"):
        venv.step([True, False, True])


def test_illegal_action_names_game_action_and_legal_ones_and_moves_nothing() -> None:
    venv = _venv(3, num_players=4)
    before = venv.observation.copy()
    actions = np.zeros(3, dtype=np.int64)  # bid 0 is legal in hand 1
    actions[2] = 5  # bid 5 is not (hand 1 allows bids 0 and 1)
    with pytest.raises(vector.BatchIllegalActionError, match=r"^game 2: illegal action 5 \(bid 5\); legal actions: "
                       r"\[0=bid 0, 1=bid 1\]") as error:  # fmt: skip
        venv.step(actions)
    assert error.value.game == 2 and error.value.action == 5 and error.value.legal == [0, 1]
    actions[2] = 69
    with pytest.raises(vector.BatchIllegalActionError, match="game 2: illegal action 69 \\(outside"):
        venv.step(actions)
    actions[2] = -1  # "wait" to the kernels, but not an action
    with pytest.raises(vector.BatchIllegalActionError, match="game 2: illegal action -1 \\(outside"):
        venv.step(actions)
    beyond = np.array([0, 0, 2**64 - 1], dtype=np.uint64)  # negative as an int64: still outside the space
    with pytest.raises(vector.BatchIllegalActionError, match="game 2: illegal action 18446744073709551615 \\(outside"):
        venv.step(beyond)
    assert np.array_equal(venv.observation, before)
    assert all(venv.moves(i) == [] for i in range(3))
    venv.step(np.array([0, 0, 1], dtype=np.int32))  # any integer dtype
    assert [venv.moves(i) for i in range(3)] == [[0], [0], [1]]


def test_ended_game_starts_anew_on_the_next_step_and_ignores_its_action() -> None:
    venv = _venv(2, seed=3, num_players=2, num_hands=2)
    rng = np.random.default_rng(0)
    _play_to_end(venv, rng)
    assert venv.terminated.all()  # equal lengths: both end together
    final = venv.rewards.copy()
    assert np.allclose(final.sum(axis=1), 0.0) and (final != 0).any()  # win mode: zero-sum at the end
    assert not venv.action_mask.any()
    assert all(venv.engine(i).terminated for i in range(2))
    venv.step(np.array([-7, 1000]))  # any integers: ignored
    assert not venv.terminated.any() and not venv.rewards.any()
    assert venv.moves(0) == [] and venv.engine(0).hand_number == 1
    assert venv.action_mask[:, :2].all() and venv.action_mask.sum() == 4  # bids 0..1 of hand 1


def test_same_seed_same_games_and_reset_seeding() -> None:
    def trajectory(venv: vector.VectorEnv, steps: int) -> list[np.ndarray]:
        rng = np.random.default_rng(9)
        seen = [venv.observation.copy()]
        for _ in range(steps):
            venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
            seen.append(venv.observation.copy())
        return seen

    first = trajectory(_venv(4, seed=11), 30)
    again = trajectory(_venv(4, seed=11), 30)
    other = trajectory(_venv(4, seed=12), 30)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))
    venv = _venv(4, seed=11)
    deals = [venv.reset_options(i) for i in range(4)]
    venv.reset()  # continues each game's stream: new deals
    assert [venv.reset_options(i) for i in range(4)] != deals
    venv.reset(seed=11)  # the seed of make, again: the first deals
    assert [venv.reset_options(i) for i in range(4)] == deals
    assert len({str(d) for d in deals}) == 4  # the games of a batch differ


def test_engine_is_a_detached_reference_engine() -> None:
    venv = _venv(2, num_players=4)
    rng = np.random.default_rng(1)
    for _ in range(25):
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    engine = venv.engine(1)
    assert isinstance(engine, SkullKingEngine)
    assert engine.legal_mask().tolist() == venv.action_mask[1].tolist()
    assert engine.current_player == venv.current_player[1]
    engine.apply(engine.legal_actions()[0])
    assert len(venv.moves(1)) == 25 and venv.engine(1).current_player == venv.current_player[1]
    assert "Skull King: hand" in engine.render()
    with pytest.raises(IndexError, match=r"game index 2 is not valid; expected an integer 0\.\.1"):
        venv.engine(2)
    with pytest.raises(IndexError, match="game index -1"):
        venv.reset_options(-1)


def test_reset_options_deal_the_game_to_the_aec_env() -> None:
    venv = _venv(2, num_players=3)
    env = pirate_envs.make(ENV_ID, num_players=3)
    env.reset(options=venv.reset_options(1))
    assert np.array_equal(env.observe(env.agent_selection)["observation"], venv.observation[1])


def test_score_mode_pays_every_hand() -> None:
    venv = _venv(3, seed=5, num_players=3, num_hands=2, reward_mode="score")
    rng = np.random.default_rng(2)
    paid_steps = 0
    total = np.zeros((3, 3))
    while not venv.terminated.any():
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
        if venv.rewards.any():
            paid_steps += 1
        total += venv.rewards
    assert paid_steps == 2  # once per hand, at its last card
    for i in range(3):
        assert np.allclose(total[i], venv.engine(i).scores() * 0.01)


def test_random_legal_actions_are_legal_and_uniform() -> None:
    mask = np.zeros((2, 6), dtype=np.int8)
    mask[0, [1, 4]] = 1
    mask[1, [0, 2, 5]] = 1
    picks = np.array([vector.random_legal_actions(mask, np.random.default_rng(s)) for s in range(3000)])
    assert set(picks[:, 0]) == {1, 4} and set(picks[:, 1]) == {0, 2, 5}
    assert abs(np.mean(picks[:, 0] == 1) - 0.5) < 0.05
    assert all(abs(np.mean(picks[:, 1] == a) - 1 / 3) < 0.05 for a in (0, 2, 5))
    empty = np.zeros((2, 3), np.int8)
    empty[0, 1] = 1
    with pytest.raises(ValueError, match=r"^action_mask row 1 has no legal action"):
        vector.random_legal_actions(empty, np.random.default_rng(0))
    assert vector.random_legal_actions(empty, np.random.default_rng(0), np.array([False, True])).tolist() == [1, 0]


def test_kapern_engine_and_its_move_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    venv = _venv(2, env_id="piraten_kapern_v0", num_players=2)
    rng = np.random.default_rng(4)
    for _ in range(6):
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    engine = venv.engine(0)
    assert type(engine) is KapernEngine and isinstance(engine.pinned_chance, SplitMix64Stream)
    assert engine.legal_mask().tolist() == venv.action_mask[0].tolist()
    assert venv.reset_options(0) == {} and len(venv.moves(0)) == 6
    monkeypatch.setattr(KapernBatch, "HISTORY_SIZE", 4)
    short = _venv(1, env_id="piraten_kapern_v0", num_players=2)
    for _ in range(5):
        short.step(np.array([0]))  # stop: always legal; five turns cannot reach the target
    assert not short.terminated[0]
    with pytest.raises(RuntimeError, match="game 0 has made 5 moves; only the first 4 are kept"):
        short.engine(0)


@pytest.mark.parametrize("env_id", ["piraten_kapern_v0", "lucky_pirate_v0", "piratenpoker_v0"])
def test_a_rows_chance_outcomes_read_back_from_its_stream(env_id: str) -> None:
    """The row's stream is its record: the outcomes read back replay the row's game on a plain engine."""
    venv = _venv(2, env_id=env_id)
    rng = np.random.default_rng(3)
    for _ in range(12):
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    outcomes = venv.chance_outcomes(1)
    assert outcomes
    replay = venv.reference_engine(1)
    replay.pinned_chance = None
    script = ScriptedChance(outcomes)
    replay.reset(script, venv.reset_options(1))
    for move in venv.moves(1):
        replay.apply(move)
    assert replay.render() == venv.engine(1).render() and not script.script


@pytest.mark.parametrize("env_id", ["skull_king_v0", "piraten_kapern_v0", "lucky_pirate_v0", "piratenpoker_v0"])
def test_games_given_one_stream_state_play_alike_and_scores_are_the_engines(env_id: str) -> None:
    """``reset(streams=...)`` starts each game from its own stream state (duplicate deals); ``scores``
    reads every seat's score as the reference engine gives it."""
    venv = vector.make(env_id, 4, seed=0)
    venv.reset(streams=[7, 7, 9, 7])
    assert venv.reset_options(0) == venv.reset_options(1) == venv.reset_options(3)
    assert (venv.observation[0] == venv.observation[1]).all() and (venv.observation[0] == venv.observation[3]).all()
    rng = np.random.default_rng(1)
    for _ in range(30):
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    for i in range(4):
        assert venv.scores([i])[0].tolist() == venv.engine(i).scores().tolist()
    assert venv.scores().shape == (4, venv.num_players)
    with pytest.raises(TypeError, match=r"^streams must be 4 integers"):
        venv.reset(streams=[1, 2])
    with pytest.raises(ValueError, match=r"^streams must be integers in 0\.\.2\*\*64-1"):
        venv.reset(streams=[-1, 0, 0, 0])
    with pytest.raises(ValueError, match=r"^give reset either seed or streams"):
        venv.reset(seed=1, streams=[0, 0, 0, 0])
