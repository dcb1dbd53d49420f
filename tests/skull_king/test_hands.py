"""Whole Skull King hands scripted from chosen deals, traced by hand through the env."""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs.skull_king.actions import ACTIONS
from pirate_envs.skull_king.engine import Phase
from pirate_envs.skull_king.env import raw_env

Script = list[tuple[int, str]]


def run_script(env: raw_env, script: Script) -> dict[str, float]:
    """Play ``(seat, action label)`` steps, checking whose turn it is; return the last step's rewards."""
    for seat, label in script:
        assert env.agent_selection == f"player_{seat}", f"expected player_{seat} to act for {label!r}"
        env.step(ACTIONS.from_string(label))
    return dict(env.rewards)


def legal_labels(env: raw_env) -> set[str]:
    """Labels of the legal actions of the agent on turn (from its observation's mask)."""
    mask = env.observe(env.agent_selection)["action_mask"]
    return {ACTIONS.to_string(a) for a in np.flatnonzero(mask)}


def bids_of(seat_bids: dict[int, int]) -> Script:
    return [(seat, f"bid {bid}") for seat, bid in seat_bids.items()]


# ----------------------------------------------------------------------------- 3 players, 2 hands
HAND_1 = [["skull_king"], ["pirate"], ["mermaid"]]
HAND_2 = [["yellow-2", "skull_king"], ["blue-13", "pirate"], ["scary_mary", "yellow-12"]]


def make_three_player_game(reward_mode: str = "win") -> raw_env:
    env = raw_env(num_players=3, num_hands=2, reward_mode=reward_mode)
    env.reset(seed=0, options={"deals": [HAND_1, HAND_2]})
    return env


def test_two_hands_three_players() -> None:
    env = make_three_player_game()
    game = env.game
    # hand 1: seat 0 deals, seat 1 bids and leads first
    assert (game.hand_number, game.dealer, game.leader) == (1, 0, 1)
    assert legal_labels(env) == {"bid 0", "bid 1"}
    run_script(env, bids_of({1: 0, 2: 1, 0: 0}))
    assert game.phase == Phase.PLAY
    # Pirate, Mermaid, Skull King: the Mermaid catches the Skull King (+50)
    run_script(env, [(1, "play pirate"), (2, "play mermaid"), (0, "play skull_king")])
    # seat 0: bid 0 made in hand 1 -> +10; seat 1: +10; seat 2: 1 of 1 + 50 -> 70
    assert game.score == [10, 10, 70]
    assert game.results[0].bonuses == (0, 0, 50)
    # hand 2: seat 1 deals, seat 2 bids and leads first
    assert (game.hand_number, game.dealer, game.leader, game.current_player) == (2, 1, 2, 2)
    assert legal_labels(env) == {"bid 0", "bid 1", "bid 2"}
    run_script(env, bids_of({2: 1, 0: 1, 1: 0}))
    run_script(env, [(2, "play yellow-12")])
    # seat 0 holds yellow: yellow-2 or a special card
    assert legal_labels(env) == {"play yellow-2", "play skull_king"}
    run_script(env, [(0, "play skull_king")])
    # seat 1 has no yellow: anything
    assert legal_labels(env) == {"play blue-13", "play pirate"}
    run_script(env, [(1, "play pirate")])
    # the Skull King catches a Pirate: seat 0 wins (+30 if his bid is made) and leads
    assert game.tricks_won == [1, 0, 0] and game.bonuses == [30, 0, 0] and game.leader == 0
    run_script(env, [(0, "play yellow-2"), (1, "play blue-13")])
    assert legal_labels(env) == {"play scary_mary:pirate", "play scary_mary:escape"}
    rewards = run_script(env, [(2, "play scary_mary:escape")])
    # yellow-2 wins (blue is off-suit, Mary escapes): seat 0 took 2 of 1 -> -10, bonus lost;
    # seat 1 bid 0 made in hand 2 -> +20; seat 2 took 0 of 1 -> -10
    assert game.results[1].points == (-10, 20, -10)
    assert game.score == [0, 30, 60]
    assert game.terminated and game.winners() == [2]
    assert rewards == {"player_0": -0.5, "player_1": -0.5, "player_2": 1.0}
    assert all(env.terminations.values())


def test_score_mode_pays_each_hand_as_settled() -> None:
    env = make_three_player_game(reward_mode="score")
    rewards = run_script(env, bids_of({1: 0, 2: 1, 0: 0}))
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    rewards = run_script(env, [(1, "play pirate"), (2, "play mermaid"), (0, "play skull_king")])
    assert rewards == pytest.approx({"player_0": 0.1, "player_1": 0.1, "player_2": 0.7})
    script = [*bids_of({2: 1, 0: 1, 1: 0}), (2, "play yellow-12"), (0, "play skull_king"), (1, "play pirate")]
    script += [(0, "play yellow-2"), (1, "play blue-13"), (2, "play scary_mary:escape")]
    rewards = run_script(env, script)
    assert rewards == pytest.approx({"player_0": -0.1, "player_1": 0.2, "player_2": -0.1})


# ----------------------------------------------------------------------------- the rule text's trick
def test_yellow_blue_black_example_as_a_hand() -> None:
    env = raw_env(num_players=4, num_hands=1)
    env.reset(seed=0, options={"deal": [["black-1"], ["yellow-2"], ["yellow-12"], ["blue-13"]]})
    run_script(env, bids_of({1: 0, 2: 1, 3: 1, 0: 1}))
    run_script(env, [(1, "play yellow-2"), (2, "play yellow-12"), (3, "play blue-13"), (0, "play black-1")])
    # Black 1 wins: seat 0 makes 1 (+20); seat 1 makes 0 in hand 1 (+10); seats 2, 3 miss by 1
    assert env.game.score == [20, 10, -10, -10]


# ----------------------------------------------------------------------------- hand 9, the -90 example
def test_zero_bid_in_hand_nine_taking_two_tricks() -> None:
    env = raw_env(num_players=2, num_hands=9)
    david = ["black-13", "black-12", *["escape"] * 5, "scary_mary", "red-1"]
    other = [f"yellow-{r}" for r in range(1, 10)]
    env.reset(seed=0, options={"first_hand": 9, "deal": [other, david]})
    game = env.game
    assert (game.hand_number, game.dealer, game.leader) == (9, 0, 1)
    run_script(env, bids_of({1: 0, 0: 3}))
    # David is forced to take his two blacks (the opponent has none)
    run_script(env, [(1, "play black-13"), (0, "play yellow-1"), (1, "play black-12"), (0, "play yellow-2")])
    assert game.tricks_won == [0, 2] and game.voids[0][3]
    # an Escape led: yellow-3 sets the suit and wins
    run_script(env, [(1, "play escape"), (0, "play yellow-3")])
    assert game.tricks_won == [1, 2] and game.leader == 0
    for r, card in zip(range(4, 10), ["escape"] * 4 + ["scary_mary:escape", "red-1"]):
        run_script(env, [(0, f"play yellow-{r}"), (1, f"play {card}")])
    # David: bid 0 in hand 9, two tricks: -90; the other: bid 3, won 7: -40
    assert game.tricks_won == [7, 2]
    assert game.score == [-40, -90]
    assert game.terminated and game.winners() == [0]


# ----------------------------------------------------------------------------- bids are hidden
def test_later_bidders_do_not_see_earlier_bids() -> None:
    observations = []
    for first_bid in (0, 1):
        env = make_three_player_game()
        run_script(env, [(1, f"bid {first_bid}")])
        view = env.game.view(2)
        assert view.bids == (-1, -1, -1) and not view.bids_revealed
        observations.append(env.observe("player_2")["observation"])
        run_script(env, [(2, "bid 1")])
        assert env.game.view(2).bids == (-1, -1, 1)  # his own bid only
        run_script(env, [(0, "bid 0")])
        assert env.game.view(2).bids == (0, first_bid, 1) and env.game.view(2).bids_revealed
    np.testing.assert_array_equal(observations[0], observations[1])


def test_dealer_rotates_and_the_player_left_of_him_bids_first() -> None:
    env = raw_env(num_players=5, num_hands=7, first_dealer=3)
    env.reset(seed=4)
    game = env.game
    rng = np.random.default_rng(1)
    seen = []
    while not game.terminated:
        if game.phase == Phase.BID and all(b < 0 for b in game.bids):
            seen.append((game.hand_number, game.dealer, game.current_player, int(game.hands.sum())))
        legal = game.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    expected = [(k, (3 + k - 1) % 5, (3 + k) % 5, 5 * k) for k in range(1, 8)]
    assert seen == expected
    assert [r.dealer for r in game.results] == [d for _, d, _, _ in expected]


# ----------------------------------------------------------------------------- hand 4: 60 and +40
def test_exact_bid_of_three_and_zero_bid_in_hand_four() -> None:
    env = raw_env(num_players=3, num_hands=4)
    eloise = ["escape", "escape", "escape", "red-1"]
    david = ["black-13", "black-12", "black-11", "escape"]
    other = ["yellow-5", "yellow-6", "yellow-7", "yellow-13"]
    env.reset(seed=0, options={"first_hand": 4, "deal": [eloise, david, other]})
    game = env.game
    assert (game.dealer, game.leader) == (0, 1)
    run_script(env, bids_of({1: 3, 2: 1, 0: 0}))
    for black, yellow in [("black-13", "yellow-5"), ("black-12", "yellow-6"), ("black-11", "yellow-7")]:
        run_script(env, [(1, f"play {black}"), (2, f"play {yellow}"), (0, "play escape")])
    # David's Escape leads; yellow-13 sets the suit and wins over Eloise's red-1
    run_script(env, [(1, "play escape"), (2, "play yellow-13"), (0, "play red-1")])
    # David: 3 of 3 -> 60; Eloise: zero bid made in hand 4 -> 40; the other: 1 of 1 -> 20
    assert game.tricks_won == [0, 3, 1]
    assert game.score == [40, 60, 20]
    assert game.terminated and game.winners() == [1]
