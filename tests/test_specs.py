"""Every game's `GameSpec` says what the game itself enforces: ids, players, options, and every named object."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.rewards import winners_by_score
from pirate_envs.core.spec import GameSpec, UserOption, resolve
from pirate_envs.testing import play_random_game
from tests.games import GAME_SPECS, PIG

ROOT = Path(__file__).resolve().parent.parent
SPECS = {spec.env_id: spec for spec in GAME_SPECS}
#: Player counts probed around every game's range: wider than any game's.
PROBED_COUNTS = range(0, 12)


@pytest.fixture(params=sorted(SPECS))
def spec(request) -> GameSpec:
    return SPECS[request.param]


def test_the_specs_are_the_registry():
    assert tuple(SPECS) == (*pirate_envs.ENV_IDS, PIG.env_id)  # Pig: registered by the tests, not shipped
    assert pirate_envs.registered_specs() == (*pirate_envs.GAME_SPECS, PIG)
    assert len({spec.gym_id for spec in pirate_envs.GAME_SPECS}) == len(pirate_envs.GAME_SPECS)
    assert {spec.gym_id: spec.env_id for spec in pirate_envs.GAME_SPECS} == pirate_envs.GYMNASIUM_IDS
    for spec in SPECS.values():
        assert pirate_envs.game_spec(spec.env_id) is spec
        assert (spec.gym_id in gymnasium.registry) == (spec.gym_id is not None)
    with pytest.raises(ValueError, match=r"unknown env id 'chess_v0'; valid ids: \['piraten_kapern_v0'"):
        pirate_envs.player_counts("chess_v0")


def test_player_range_is_what_make_accepts(spec):
    accepted = []
    for n in PROBED_COUNTS:
        try:
            pirate_envs.make(spec.env_id, raw=True, num_players=n)
        except ValueError:
            continue
        accepted.append(n)
    assert tuple(accepted) == spec.player_counts == pirate_envs.player_counts(spec.env_id)
    assert len(pirate_envs.make(spec.env_id, raw=True).possible_agents) == spec.default_players


def test_every_named_object_resolves(spec):
    module = pirate_envs.env_module(spec.env_id)
    assert module.__name__ == spec.entry_module and callable(module.env) and callable(module.raw_env)
    assert module.raw_env.metadata["name"] == spec.env_id
    assert resolve(spec.config) is type(pirate_envs.make(spec.env_id, raw=True).config)
    if spec.batched_backend is not None:
        pytest.importorskip("numba")
        assert hasattr(resolve(spec.batched_backend), "step_kernel")
    assert resolve(spec.config).__module__.startswith(spec.module(""))


def test_a_bad_target_names_itself():
    with pytest.raises(ValueError, match=r"'agents\.search\.ismcts' is not a 'module:name' string"):
        resolve("agents.search.ismcts")


def test_options_are_config_fields_of_their_kind_and_their_ranges_build(spec):
    fields = {field.name: field for field in dataclasses.fields(resolve(spec.config))}
    for option in spec.options:
        assert isinstance(option, UserOption)
        assert option.name in fields and option.name != "num_players", option.name
        default = getattr(resolve(spec.config)(), option.name)
        if option.kind == "int":
            assert isinstance(default, int) and not isinstance(default, bool), option.name
        else:
            assert isinstance(default, tuple | list) and all(isinstance(v, int) for v in default), option.name
            assert option.low is None and option.high is None
        if option.low is not None:
            assert option.high is not None and option.low <= option.high
            for value in (option.low, option.high):
                pirate_envs.make(spec.env_id, raw=True, **{option.name: value})  # the game accepts both ends
    assert len({option.name for option in spec.options}) == len(spec.options)


def test_winners_by_score_is_what_the_engine_says(spec):
    if not spec.winners_by_score:
        pytest.skip(f"{spec.env_id} does not declare its winners by score")
    rng = np.random.default_rng(0)
    for n in spec.player_counts:
        env = pirate_envs.make(spec.env_id, raw=True, num_players=n, **spec.quick_options)
        for seed in range(3):
            env.reset(seed=seed)
            play_random_game(env, rng, max_steps=20_000)
            game = env.game
            assert game.winners() == winners_by_score(game.scores().tolist()), (n, seed)


@pytest.mark.parametrize("spec", [s for s in SPECS.values() if s.same_game_as], ids=lambda s: s.env_id)
def test_a_later_version_holds_every_piece_and_action_of_the_versions_it_names(spec):
    """``same_game_as`` is what lets an earlier version's agents play: the same game, action table and pieces."""
    for earlier_id in spec.same_game_as:
        earlier = SPECS[earlier_id]
        assert earlier.package == spec.package and earlier.player_counts == spec.player_counts
        assert spec.plays_agents_of(earlier_id) and not earlier.plays_agents_of(spec.env_id)
        for players in spec.player_counts:
            for layout in ("seated", "max"):
                old = pirate_envs.make(earlier_id, raw=True, num_players=players, table_layout=layout)
                new = pirate_envs.make(spec.env_id, raw=True, num_players=players, table_layout=layout)
                assert old.num_actions == new.num_actions
                for piece in old.observation_layout.pieces:
                    assert piece.name in new.observation_layout
                    assert new.observation_layout.piece(piece.name).shape == piece.shape


def test_a_game_declared_elsewhere_is_known_only_once_registered():
    code = (
        "import pirate_envs\n"
        "from examples.pig.spec import SPEC\n"
        "try:\n    pirate_envs.make('pig_v0')\nexcept ValueError as error:\n    print(error)\n"
        "pirate_envs.register(SPEC)\n"
        "pirate_envs.register(SPEC)\n"  # the same spec again: nothing changes
        "print(len(pirate_envs.make('pig_v0', num_players=6).possible_agents), 'pig_v0' in pirate_envs.ENV_IDS)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"unknown env id 'pig_v0'; valid ids: {list(pirate_envs.ENV_IDS)}", "6 False"]


def test_register_refuses_what_is_not_a_new_spec():
    with pytest.raises(TypeError, match=r"register takes a GameSpec, not 'pig_v0' \(str\)"):
        pirate_envs.register("pig_v0")
    with pytest.raises(ValueError, match=r"env id 'skull_king_v0' is already declared by another spec"):
        pirate_envs.register(dataclasses.replace(PIG, env_id="skull_king_v0"))


def test_a_quick_game_is_declared_and_ends_sooner(spec):
    """Every game declares a quick game (its options are Config fields), whose random games end sooner."""
    fields = {field.name for field in dataclasses.fields(resolve(spec.config))}
    assert spec.quick_options and set(spec.quick_options) <= fields - {"num_players"}
    whole, quick = (random_decisions(spec.env_id, spec.min_players, options) for options in ({}, spec.quick_options))
    assert quick < whole, (quick, whole)


def random_decisions(env_id: str, num_players: int, options: dict, games: int = 3) -> int:
    """The decisions of ``games`` random games of ``env_id`` under ``options``."""
    env = pirate_envs.make(env_id, raw=True, num_players=num_players, **options)
    rng = np.random.default_rng(0)
    decisions = 0

    def count(env) -> None:
        nonlocal decisions
        decisions += 1

    for seed in range(games):
        env.reset(seed=seed)
        play_random_game(env, rng, check=count)
    return decisions
