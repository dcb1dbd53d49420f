"""The single-agent Gymnasium ids: registration, the env checker, masks, seeding and options."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents  # noqa: F401  (registers the Gymnasium ids)
import pirate_envs
from agents.selfplay.env import SelfPlayEnv
from pirate_envs import GYMNASIUM_IDS


def small(gym_id: str) -> dict:
    """A quick game at the smallest table of ``gym_id``'s game (its spec's quick options)."""
    spec = pirate_envs.game_spec(GYMNASIUM_IDS[gym_id])
    return {"num_players": spec.min_players, **spec.quick_options}


@pytest.fixture(params=sorted(GYMNASIUM_IDS))
def gym_id(request) -> str:
    return request.param


def play_episode(env: gymnasium.Env, rng: np.random.Generator, seed: int | None) -> tuple[list[int], float, dict]:
    """Uniform random legal moves to the end: the actions, the return and the final info."""
    obs, _ = env.reset(seed=seed)
    masks = env.get_wrapper_attr("action_masks")
    actions, total = [], 0.0
    while True:
        assert env.observation_space.contains(obs)
        mask = masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,) and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            return actions, total, info


def test_every_game_has_an_id_registered_by_the_import():
    assert sorted(GYMNASIUM_IDS.values()) == sorted(pirate_envs.ENV_IDS)
    for gym_id in GYMNASIUM_IDS:
        assert gym_id in gymnasium.registry


#: Makes every id in a fresh interpreter that imports only ``pirate_envs`` (a deprecation warning is an error).
MAKE_AFTER_IMPORT_PIRATE_ENVS = """
import sys
import gymnasium
import pirate_envs
assert "agents" not in sys.modules
for gym_id, env_id in pirate_envs.GYMNASIUM_IDS.items():
    env = gymnasium.make(gym_id, num_players=pirate_envs.game_spec(env_id).min_players)
    assert env.unwrapped.env_id == env_id
print("made", len(pirate_envs.GYMNASIUM_IDS))
"""


def test_every_id_is_made_after_import_pirate_envs_without_a_deprecation_warning():
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", MAKE_AFTER_IMPORT_PIRATE_ENVS],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"made {len(GYMNASIUM_IDS)}"


def test_env_checker_passes(gym_id):
    env = gymnasium.make(gym_id, **small(gym_id))
    assert isinstance(env.unwrapped, SelfPlayEnv)  # the class training uses
    assert env.unwrapped.env_id == GYMNASIUM_IDS[gym_id]
    check_env(env.unwrapped, skip_render_check=True)


def test_episodes_with_masks_against_the_default_heuristic(gym_id):
    env = gymnasium.make(gym_id, **small(gym_id))
    rng = np.random.default_rng(0)
    for episode in range(3):
        _, total, info = play_episode(env, rng, seed=episode)
        opponents = info["opponents"]
        assert len(opponents) == env.unwrapped.num_players - 1 and all("heuristic" in name for name in opponents)
        assert 0 <= info["seat"] < env.unwrapped.num_players
        assert np.isfinite(total)


def test_seeded_episodes_repeat_and_seeds_differ():
    def run(seed: int) -> tuple[list[int], float]:
        env = gymnasium.make("pirate_envs/SkullKing-v0", num_players=4, num_hands=2, opponents=["heuristic", "random"])
        actions, total, _ = play_episode(env, np.random.default_rng(seed), seed)
        return actions, total

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_env_options_and_reset_options_reach_the_game():
    env = gymnasium.make("pirate_envs/SkullKing-v0", num_players=3, num_hands=2).unwrapped
    assert (env.raw.config.num_players, env.raw.config.num_hands) == (3, 2)
    size = pirate_envs.make("skull_king_v0", raw=True, num_players=3).observation_layout.size
    assert env.observation_space.shape == (size,)

    kapern = gymnasium.make("pirate_envs/PiratenKapern-v0", learner_seat=0).unwrapped
    with pytest.raises(ValueError, match="no_such_card"):
        kapern.reset(seed=0, options={"first_card": "no_such_card"})
    seen = 0
    for seed in range(10):
        kapern.reset(seed=seed, options={"first_card": "captain"})
        game = kapern.game
        if len(game.deck) == len(game.deck_cards) - 1:  # still the first turn: only one card drawn
            assert game.turn.card == "captain"
            seen += 1
    assert seen > 0


def test_fixed_learner_seat():
    env = gymnasium.make("pirate_envs/LuckyPirate-v0", num_players=3, learner_seat=2).unwrapped
    for seed in range(4):
        _, info = env.reset(seed=seed)
        assert info["seat"] == env.learner_seat == 2
        assert env.game.current_player == 2
    with pytest.raises(ValueError, match=r"learner_seat=3 must be None or a seat in 0\.\.2"):
        gymnasium.make("pirate_envs/LuckyPirate-v0", num_players=3, learner_seat=3)


@pytest.mark.parametrize(
    ("opponents", "bad"),
    [("heuristc", "heuristc"), (["random", "orcale"], "orcale"), ({"heuristic": 1.0, "oracle": 1.0}, "oracle")],
)
def test_bad_opponent_names_give_one_clear_error(opponents, bad):
    with pytest.raises(ValueError, match=f"opponent '{bad}' is not an agent of skull_king_v0") as error:
        gymnasium.make("pirate_envs/SkullKing-v0", opponents=opponents)
    assert "valid: ['random', 'heuristic'" in str(error.value)


@pytest.mark.parametrize("opponents", [3, ["heuristic", None], {}])
def test_opponents_of_the_wrong_kind_are_refused(opponents):
    with pytest.raises(ValueError, match="opponents="):
        gymnasium.make("pirate_envs/SkullKing-v0", opponents=opponents)


def test_an_illegal_action_ends_the_game_as_a_loss():
    env = gymnasium.make("pirate_envs/PiratenKapern-v0").unwrapped
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)


def test_render_ansi_is_the_game_table():
    env = gymnasium.make("pirate_envs/PiratenKapern-v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.unwrapped.game.render()


def test_the_env_does_not_import_torch():
    code = (
        "import sys, gymnasium, agents\n"
        "env = gymnasium.make('pirate_envs/PiratenKapern-v0')\n"
        "env.reset(seed=0)\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_games_floor_registers_the_ids_lazily_and_the_module_prefix_still_finds_them():
    code = (
        "import sys, gymnasium, pirate_envs\n"
        "assert 'pirate_envs/SkullKing-v0' in gymnasium.registry and 'agents' not in sys.modules\n"
        "env = gymnasium.make('agents:pirate_envs/SkullKing-v0', num_players=3, num_hands=1)\n"
        "env.reset(seed=0)\n"
        "assert type(env.unwrapped).__module__ == 'agents.selfplay.env'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
