"""Copies of a Piraten Kapern game: pickle and deep copy at any point, each with its own dice.

A copy plays on independently: given the same actions it plays exactly what the original would
(the same cards and dice), and stepping it leaves the original's future untouched.
"""

from __future__ import annotations

import copy
import pickle

import pytest

import pirate_envs
from agents.base import RandomAgent, action_blocks
from pirate_envs.piraten_kapern.engine import Phase

ENV_ID = "piraten_kapern_v0"


def snapshot(env) -> tuple:
    """What the player on turn sees, with the step's reward and end flags."""
    obs, reward, terminated, truncated, _ = env.last()
    arrays = obs["observation"].tobytes(), obs["action_mask"].tobytes()
    return env.agent_selection, *arrays, reward, terminated, truncated


def step_all(envs: list, agent: RandomAgent) -> bool:
    """One step of every env with the action ``agent`` picks from the first; False once all are done."""
    if not envs[0].agents:
        assert all(not env.agents for env in envs)
        return False
    first = snapshot(envs[0])
    for other in envs[1:]:
        assert snapshot(other) == first
    obs, _, terminated, truncated, _ = envs[0].last()
    action = None if terminated or truncated else agent.act(obs)
    for env in envs:
        env.step(action)
    return True


def play_to_mid_turn(env, agent: RandomAgent, min_steps: int, lockstep: tuple = ()) -> None:
    """Step (``lockstep`` envs alongside) until at least ``min_steps`` taken and a turn has re-rolled."""
    steps = 0
    while steps < min_steps or env.unwrapped.game.turn.rolls < 2 or env.unwrapped.game.phase is Phase.GAME_OVER:
        assert step_all([env, *lockstep], agent), "the game ended before the copy point"
        steps += 1


def make_game(seed: int, **kwargs):
    env = pirate_envs.make(ENV_ID, **kwargs)
    env.reset(seed=seed)
    return env


def pickled(env):
    return pickle.loads(pickle.dumps(env))


COPIERS = pytest.mark.parametrize("make_copy", [copy.deepcopy, pickled], ids=["deepcopy", "pickle"])
CASES = [(2, {}, 0), (2, {}, 30), (4, {}, 90), (3, {"promo_cards": True}, 60)]


@COPIERS
@pytest.mark.parametrize(("num_players", "options", "min_steps"), CASES)
def test_a_copy_plays_on_as_the_original(make_copy, num_players, options, min_steps):
    env = make_game(seed=11 + min_steps, num_players=num_players, **options)
    agent = RandomAgent(seed=3, blocks=action_blocks(env))
    play_to_mid_turn(env, agent, min_steps)
    copied = make_copy(env)
    steps = 0
    while step_all([env, copied], agent):  # compares every step of both to the end
        steps += 1
    assert steps > 10 and not env.agents


@COPIERS
def test_stepping_a_copy_leaves_the_original_future_unchanged(make_copy):
    original, reference = make_game(seed=5), make_game(seed=5)
    agent = RandomAgent(seed=8, blocks=action_blocks(original))
    play_to_mid_turn(original, agent, min_steps=12, lockstep=(reference,))
    copied = make_copy(original)
    other_agent = RandomAgent(seed=99, blocks=action_blocks(copied))
    copy_steps = 0
    while step_all([copied], other_agent):  # the copy plays a whole different game out
        copy_steps += 1
    assert copy_steps > 10
    steps = 0
    while step_all([original, reference], agent):  # the original plays as if never copied
        steps += 1
    assert steps > 10


def test_the_engines_own_clone_copies_what_the_generic_clone_copies():
    """``KapernEngine.clone`` (hand-written, for speed) against ``Engine.clone`` (generic) at many points of games:
    equal attributes, and every attribute the generic clone copies is copied (not shared), the turn's dice too."""
    from pirate_envs.core.engine import Engine

    env = make_game(seed=21, num_players=3, promo_cards=True)
    agent = RandomAgent(seed=4, blocks=action_blocks(env))
    checked = 0
    while step_all([env], agent):
        game = env.unwrapped.game
        fast, generic = game.clone(), Engine.clone(game)
        assert vars(fast).keys() == vars(generic).keys()
        for name, value in vars(game).items():
            if name == "chance":
                continue
            assert vars(fast)[name] == vars(generic)[name], name
            if vars(generic)[name] is not value:
                assert vars(fast)[name] is not value, f"{name} is shared by the clone"
        assert vars(fast.turn) == vars(game.turn)
        assert fast.turn.free is not game.turn.free and fast.turn.chest is not game.turn.chest
        checked += 1
    assert checked > 50
