"""Pig's rules traced by hand, with exact scores (scripted dice: `ScriptedChance`)."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from examples.pig.actions import HOLD, ROLL
from examples.pig.rules import after_roll, has_won
from examples.pig.text import parse_move, seat_text
from pirate_envs.core.chance import ScriptedChance
from pirate_envs.core.errors import IllegalActionError
from pirate_envs.core.text import Refusal
from tests.games import PIG

assert PIG.env_id == "pig_v0"  # registered by tests.games


def scripted(rolls: list[int], **options) -> pirate_envs.registry.AECEnv:
    """A raw Pig env whose die rolls ``rolls`` in order."""
    env = pirate_envs.make("pig_v0", raw=True, **options)
    env.game.pinned_chance = ScriptedChance(rolls)
    env.reset()
    return env


def play(env, actions: list[int]) -> dict[str, float]:
    """Step ``actions``; every agent's rewards over them, summed."""
    paid = dict.fromkeys(env.possible_agents, 0.0)
    for action in actions:
        env.step(action)
        for agent, reward in env.rewards.items():
            paid[agent] += reward
    return paid


def test_a_roll_adds_its_face_and_a_one_loses_the_turn_total():
    assert after_roll(0, 4) == 4 and after_roll(4, 6) == 10 and after_roll(10, 2) == 12
    assert after_roll(10, 1) is None
    with pytest.raises(ValueError, match=r"face=7 is not a face of the die; expected 1\.\.6"):
        after_roll(0, 7)
    assert has_won(20, 20) and has_won(23, 20) and not has_won(19, 20)


def test_a_traced_game_to_twenty():
    """player_0: 4, 6, hold (10). player_1: 3, then a 1 (nothing). player_0: 5, 5, hold (20): wins."""
    env = scripted([4, 6, 3, 1, 5, 5], target_score=20, reward_mode="score")
    game = env.game
    assert game.legal_actions() == [ROLL]  # the first roll of a turn is compulsory
    play(env, [ROLL, ROLL])
    assert (game.current_player, game.turn_total, game.legal_actions()) == (0, 10, [ROLL, HOLD])
    play(env, [HOLD])
    assert (game.current_player, game.bank, game.turn_total) == (1, [10, 0], 0)
    play(env, [ROLL])
    assert game.turn_total == 3
    play(env, [ROLL])  # a 1: the 3 is lost and the turn passes
    assert (game.current_player, game.bank, game.turn_total, game.last_roll) == (0, [10, 0], 0, 1)
    paid = play(env, [ROLL, ROLL, HOLD])
    assert game.terminated and not game.truncated
    assert game.bank == [20, 0] and game.winners() == [0]
    assert game.scores().tolist() == [20.0, 0.0]
    assert paid == {"player_0": pytest.approx(0.1), "player_1": 0.0}  # score mode: the last hold's 10 points / 100


def test_win_rewards_and_the_wrapped_env():
    env = pirate_envs.make("pig_v0", target_score=6)
    env.unwrapped.game.pinned_chance = ScriptedChance([6])
    env.reset()
    play(env, [ROLL, HOLD])
    assert env.unwrapped.game.winners() == [0]
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_hold_without_a_turn_total_is_illegal_and_typed_says_why():
    env = scripted([], num_players=3)
    with pytest.raises(IllegalActionError):
        env.step(HOLD)
    view = env.game.view(0)
    assert parse_move("r", view, [ROLL]) == ROLL
    refusal = parse_move("hold", view, [ROLL])
    assert isinstance(refusal, Refusal) and refusal.reason == "hold needs a turn total: roll at least once this turn"


def test_the_observation_and_screen_after_a_roll():
    env = scripted([5], num_players=3, target_score=50)
    env.step(ROLL)
    layout = env.observation_layout
    mine = layout.unpack(env.observe("player_0")["observation"])
    theirs = layout.unpack(env.observe("player_2")["observation"])
    assert mine["on_turn"].tolist() == [1, 0, 0] and theirs["on_turn"].tolist() == [0, 1, 0]  # seat-relative
    assert mine["turn_total"].tolist() == [np.float32(0.1)] and mine["last_roll"].tolist() == [0, 0, 0, 0, 1, 0]
    text = seat_text(env.game.view(2))
    assert "Pig | first to 50 | you are player_2" in text
    assert "turn total: 5 after 1 rolls; last roll: 5 (a 1 loses the total)" in text


def test_the_turn_guard_truncates_with_no_winner():
    env = scripted([1, 1], max_turns=2)
    play(env, [ROLL, ROLL])
    assert env.game.truncated and not env.game.terminated and env.game.winners() == []


def test_bad_options_name_themselves():
    with pytest.raises(ValueError, match="num_players=7"):
        pirate_envs.make("pig_v0", num_players=7)
    with pytest.raises(ValueError, match="target_score=0"):
        pirate_envs.make("pig_v0", target_score=0)
