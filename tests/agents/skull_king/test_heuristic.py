"""The Skull King heuristic: hand-traced decisions and a match against random play."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, RandomAgent, action_blocks
from agents.skull_king.heuristic import SkullKingHeuristic
from pirate_envs.skull_king.actions import ACTIONS
from pirate_envs.skull_king.env import raw_env


def decide(env: raw_env) -> str:
    """The heuristic's choice for the agent on turn, as an action label."""
    seat = env.game.current_player
    action = SkullKingHeuristic().act(env.observe(env.agent_selection), env.game.view(seat))
    return ACTIONS.to_string(action)


def table(deal: list[list[str]], labels: list[str], first_hand: int) -> raw_env:
    """A 4-player env at hand ``first_hand`` with ``deal``, after the actions ``labels``."""
    env = raw_env(num_players=4)
    env.reset(seed=0, options={"first_hand": first_hand, "deal": deal})
    for label in labels:
        env.step(ACTIONS.from_string(label))
    return env


def test_is_an_agent() -> None:
    assert isinstance(SkullKingHeuristic(), Agent)


# Hand 3, dealer seat 2: seat 3 bids and leads first; then seats 0, 1, 2.
DEAL = [
    ["skull_king", "pirate", "escape"],  # seat 0: 0.91 + 0.85 + 0 expected tricks -> bids 2
    ["yellow-10", "black-3", "pirate"],  # seat 1
    ["escape", "escape", "yellow-1"],  # seat 2: next to nothing -> bids 0
    ["yellow-5", "red-8", "red-3"],  # seat 3
]


def test_bids_follow_hand_strength() -> None:
    env = table(DEAL, ["bid 0"], first_hand=3)
    assert decide(env) == "bid 2"  # seat 0
    env = table(DEAL, ["bid 0", "bid 2", "bid 1"], first_hand=3)
    assert decide(env) == "bid 0"  # seat 2


BIDS = ["bid 0", "bid 2", "bid 1", "bid 0"]  # seats 3, 0, 1, 2


def play_decisions(env: raw_env, expected: list[str]) -> None:
    """Let the heuristic choose for each agent on turn; its choices must be ``expected``."""
    for label in expected:
        assert decide(env) == label
        env.step(ACTIONS.from_string(label))


def test_plays_to_make_its_bid() -> None:
    env = table(DEAL, BIDS, first_hand=3)
    play_decisions(
        env,
        [
            "play red-3",  # seat 3, bid 0, leads: his weakest card
            "play skull_king",  # seat 0 wants 2; others follow: the strongest winner
            "play yellow-10",  # seat 1 wants 1; nothing beats the Skull King: his weakest card
            "play yellow-1",  # seat 2, bid 0: his strongest card that loses (the Skull King wins)
            "play pirate",  # seat 0 won and still wants 1: leads his strongest card
            "play black-3",  # seat 1 cannot beat the first Pirate: his weakest card
            "play escape",  # seat 2, bid 0
            "play red-8",  # seat 3, bid 0: the strongest card that loses
        ],
    )
    assert env.game.tricks_won == [2, 0, 0, 0]


def test_ducks_once_its_bid_is_made() -> None:
    env = table(DEAL, ["bid 0", "bid 1", "bid 1", "bid 0", "play red-3", "play skull_king"], first_hand=3)
    env.step(ACTIONS.from_string("play yellow-10"))
    env.step(ACTIONS.from_string("play yellow-1"))
    # seat 0 has made his bid of 1: he leads his weakest card; seat 1 then takes it with the
    # strongest winner, as two players still follow
    play_decisions(env, ["play escape", "play pirate"])


def test_takes_with_the_weakest_winner_when_last() -> None:
    deal = [["escape", "blue-1"], ["red-11", "red-13"], ["red-9", "blue-2"], ["red-10", "black-1"]]
    # hand 2, dealer seat 1: seats 2, 3, 0, 1 bid; seat 2 leads, seat 1 plays last
    env = table(deal, ["bid 0", "bid 0", "bid 0", "bid 2", "play red-9", "play red-10", "play escape"], 2)
    assert decide(env) == "play red-11"


def test_beats_random_players() -> None:
    env = raw_env(num_players=4)
    seed = 0
    rng_seats = np.random.default_rng(seed)
    scores = {"heuristic": [], "random": []}
    wins = 0
    games = 20
    for g in range(games):
        env.reset(seed=seed + g)
        hero = int(rng_seats.integers(4))
        agents = [RandomAgent(seed=g * 10 + s, blocks=action_blocks(env)) for s in range(4)]
        agents[hero] = SkullKingHeuristic()
        game = env.game
        while not game.done:
            seat = game.current_player
            env.step(agents[seat].act(env.observe(env.agent_selection), game.view(seat)))
        for s in range(4):
            scores["heuristic" if s == hero else "random"].append(game.score[s])
        wins += hero in game.winners()
    assert wins >= 0.7 * games
    assert np.mean(scores["heuristic"]) > np.mean(scores["random"]) + 100
