"""The batched Skull King kernels against the reference engine and the AEC env, step by step.

Every game of a batch is mirrored by a raw AEC env dealt the same cards (``reset_options``);
random legal play drives both, and after every step the observation, the mask, the seat shown,
the rewards of every seat and the ends must be identical. ``engine(i)`` must reproduce the
AEC env's engine (every seat's view, the scores, the hand records).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pirate_envs

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.skull_king.batched import (
    hand_score_kernel,
    trick_bonus_kernel,
    trick_winner_kernel,
)
from pirate_envs.skull_king.cards import (
    MARY_ESCAPE,
    MARY_PIRATE,
    NUM_SUIT_CARDS,
    NUM_TOKENS,
)
from pirate_envs.skull_king.rules import bonus_of_tokens, hand_score, led_suit_of, winner_of_tokens

ENV_ID = "skull_king_v0"
PLAYER_COUNTS = (2, 3, 4, 5, 6)


def _mismatch(what: str, i: int, step: int, batched: object, reference: object) -> str:
    return f"game {i}, batch step {step}: {what} differs\nbatched:   {batched}\nreference: {reference}"


def _compare(venv: vector.VectorEnv, env, i: int, step: int) -> None:
    """Assert that game ``i`` of ``venv`` shows exactly what the AEC env ``env`` shows."""
    agent = env.agent_selection
    seat = env.possible_agents.index(agent)
    obs = env.observe(agent)
    assert venv.current_player[i] == seat, _mismatch("seat shown", i, step, venv.current_player[i], seat)
    if not np.array_equal(venv.observation[i], obs["observation"]):
        diff = np.flatnonzero(venv.observation[i] != obs["observation"]).tolist()
        raise AssertionError(_mismatch(f"observation (indices {diff})", i, step, venv.observation[i][diff],
                                       obs["observation"][diff]))  # fmt: skip
    assert np.array_equal(venv.action_mask[i], obs["action_mask"]), _mismatch(
        "action mask", i, step, np.flatnonzero(venv.action_mask[i]), np.flatnonzero(obs["action_mask"])
    )
    rewards = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
    assert np.array_equal(venv.rewards[i], rewards), _mismatch("rewards", i, step, venv.rewards[i], rewards)
    terminated = all(env.terminations.values())
    truncated = all(env.truncations.values())
    assert venv.terminated[i] == terminated, _mismatch("terminated", i, step, venv.terminated[i], terminated)
    assert venv.truncated[i] == truncated, _mismatch("truncated", i, step, venv.truncated[i], truncated)


def _compare_engine(venv: vector.VectorEnv, env, i: int) -> None:
    """``venv.engine(i)`` holds the AEC env's game: every view, the scores, the records, whose turn."""
    rebuilt, game = venv.engine(i), env.game
    for seat in range(game.num_players):
        assert rebuilt.view(seat) == game.view(seat)
    assert rebuilt.results == game.results
    assert rebuilt.scores().tolist() == game.scores().tolist()
    assert (rebuilt.current_player, rebuilt.terminated, rebuilt.truncated) == (
        game.current_player,
        game.terminated,
        game.truncated,
    )
    assert rebuilt.render() == game.render()


def play_lockstep(num_envs: int, games: int, seed: int, **env_kwargs) -> dict[str, int]:
    """Play at least ``games`` games in lockstep; return the counts of games, steps and engine checks."""
    venv = vector.make(ENV_ID, num_envs, seed=seed, **env_kwargs)
    envs = [pirate_envs.make(ENV_ID, raw=True, **env_kwargs) for _ in range(num_envs)]
    venv.reset()
    for i, env in enumerate(envs):
        env.reset(options=venv.reset_options(i))
        _compare(venv, env, i, 0)
    rng = np.random.default_rng(seed)
    finished = steps = engine_checks = batch_steps = 0
    while finished < games:
        ended = venv.terminated | venv.truncated
        actions = vector.random_legal_actions(venv.action_mask, rng)
        venv.step(actions)
        batch_steps += 1
        for i, env in enumerate(envs):
            if ended[i]:
                env.reset(options=venv.reset_options(i))
            else:
                env.step(int(actions[i]))
                steps += 1
            _compare(venv, env, i, batch_steps)
        finished += int(np.count_nonzero(venv.terminated | venv.truncated))
        # the rebuilt engine: game 0 at every end of a game, and a random game now and then
        if venv.terminated[0] or rng.random() < 0.05:
            i = 0 if venv.terminated[0] else int(rng.integers(num_envs))
            _compare_engine(venv, envs[i], i)
            engine_checks += 1
    return {"games": finished, "steps": steps, "engine_checks": engine_checks}


@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_lockstep_every_player_count(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(16, 40, seed=100 + num_players, num_players=num_players, reward_mode=reward_mode)
    assert counts["games"] >= 40 and counts["engine_checks"] > 0


@pytest.mark.parametrize("num_players", [2, 6])
def test_lockstep_short_games_and_other_dealer(num_players: int) -> None:
    """Options change the deal sizes, the dealer order and ``hands_left``: the same in both."""
    counts = play_lockstep(
        16, 60, seed=7, num_players=num_players, num_hands=3, first_dealer=num_players - 1, reward_mode="score"
    )
    assert counts["games"] >= 60


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_lockstep_long(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(64, 1000, seed=1000 + num_players, num_players=num_players, reward_mode=reward_mode)
    assert counts["games"] >= 1000


# ----------------------------------------------------------------------------- the rule kernels alone
def _random_trick(rng: np.random.Generator, length: int) -> list[int]:
    """A trick of ``length`` tokens with the special cards over-represented (copies not enforced: the rules
    functions take any tokens)."""
    tokens = []
    for _ in range(length):
        if rng.random() < 0.5:
            tokens.append(int(rng.integers(NUM_SUIT_CARDS, NUM_TOKENS)))
        else:
            tokens.append(int(rng.integers(NUM_SUIT_CARDS)))
    return tokens


def test_trick_winner_and_bonus_kernels_match_the_rules() -> None:
    rng = np.random.default_rng(3)
    checked = 0
    for length in range(1, 7):
        for _ in range(4000):
            tokens = _random_trick(rng, length)
            trick = np.array(tokens + [0] * (6 - length), dtype=np.int8)
            led = led_suit_of(tokens)
            assert trick_winner_kernel(trick, length, led) == winner_of_tokens(tokens), tokens
            assert trick_bonus_kernel(trick, length) == bonus_of_tokens(tokens), tokens
            checked += 1
    assert checked == 24000


def test_trick_kernels_on_every_pair_of_special_cards() -> None:
    specials = list(range(NUM_SUIT_CARDS, NUM_TOKENS))
    for first, second in itertools.product([*specials, 0, 13, 39, 51], repeat=2):
        tokens = [first, second, 12]
        trick = np.array(tokens, dtype=np.int8)
        assert trick_winner_kernel(trick, 3, led_suit_of(tokens)) == winner_of_tokens(tokens), tokens
        assert trick_bonus_kernel(trick, 3) == bonus_of_tokens(tokens), tokens
    assert MARY_PIRATE in specials and MARY_ESCAPE in specials


def test_hand_score_kernel_matches_the_rules() -> None:
    for k in range(1, 11):
        for bid in range(k + 1):
            for tricks in range(k + 1):
                for bonus in (0, 30, 50, 90) if tricks else (0,):
                    assert hand_score_kernel(bid, tricks, k, bonus) == hand_score(bid, tricks, k, bonus)
