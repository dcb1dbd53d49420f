"""The observation piece ``pile_cards`` (option ``observe_pile``): the pile's cards per kind.

Hand-traced games (dealt with the reset options ``deal``, ``dealer`` and ``pile``): every card
played goes into the piece for every observer; a pick-up and a clear empty it; the piece comes
after every older piece (after ``known`` when both options are on); off by default.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.lucky_pirate.actions import PICK_UP, play_action
from pirate_envs.lucky_pirate.cards import KIND_INDEX, NUM_KINDS
from pirate_envs.lucky_pirate_v0 import raw_env
from tests.lucky_pirate.pieces import COPIES, counts, observed_piece


def pile_piece(env: raw_env, agent: str) -> list[float]:
    """``agent``'s observed ``pile_cards`` piece, in copies."""
    return observed_piece(env, agent, "pile_cards").tolist()


def three_player_game(**kwargs) -> raw_env:
    """Three players, seat 0 first, on a pile of 5 and 7."""
    env = raw_env(num_players=3, observe_pile=True, **kwargs)
    deal = [
        {"hand": ["8", "2"], "up": ["1"], "down": ["1"]},
        {"hand": ["1", "3"], "up": ["2"], "down": ["2"]},
        {"hand": ["8", "8", "4"], "up": ["3"], "down": ["3"]},
    ]
    env.reset(seed=0, options={"deal": deal, "dealer": 2, "pile": ["5", "7"]})
    return env


def test_every_observer_sees_the_pile_by_kind_and_a_pick_up_empties_it() -> None:
    env = three_player_game()
    for agent in env.possible_agents:
        assert pile_piece(env, agent) == counts("5", "7")
    env.step(play_action(KIND_INDEX["8"], 1))  # seat 0 plays its 8 on the 7
    for agent in env.possible_agents:
        assert pile_piece(env, agent) == counts("5", "7", "8")
    env.step(PICK_UP)  # seat 1 (a 1 and a 3) cannot beat the 8
    for agent in env.possible_agents:
        assert pile_piece(env, agent) == counts()


def test_a_clear_empties_the_piece_into_removed() -> None:
    """Seat 1 plays two 8s on seat 0's 8: three 8s in a row clear the pile out of the game."""
    env = raw_env(num_players=3, observe_pile=True)
    deal = [
        {"hand": ["8", "2"], "up": ["1"], "down": ["1"]},
        {"hand": ["8", "8", "3"], "up": ["2"], "down": ["2"]},
        {"hand": ["4"], "up": ["3"], "down": ["3"]},
    ]
    env.reset(seed=0, options={"deal": deal, "dealer": 2, "pile": ["5"]})
    env.step(play_action(KIND_INDEX["8"], 1))  # seat 0: 5, 8
    env.step(play_action(KIND_INDEX["8"], 2))  # seat 1: 8, 8 makes three 8s in a row: cleared
    parts = env.observation_layout.unpack(env.observe("player_2")["observation"])
    assert (parts["pile_cards"] * COPIES).tolist() == counts()
    assert (parts["removed"] * COPIES).tolist() == counts("5", "8", "8", "8")


def test_pile_cards_comes_after_every_older_piece_and_after_known() -> None:
    """Trained agents read the pieces by their offsets: pile_cards is appended last."""
    layout = raw_env(num_players=4, observe_pile=True).observation_layout
    assert layout.piece("to_play").stop == 201 and layout.piece("pile_cards").start == 201
    assert layout.piece("pile_cards").shape == (NUM_KINDS,) and layout.size == 218
    both = raw_env(num_players=4, observe_known=True, observe_pile=True).observation_layout
    assert both.piece("known").start == 201 and both.piece("pile_cards").start == 269 and both.size == 286


def test_the_default_observation_has_no_pile_cards_and_is_unchanged() -> None:
    """Off by default: the same vectors as with the option, without the piece; the piece matches the pile."""
    plain, with_pile = raw_env(num_players=4), raw_env(num_players=4, observe_pile=True)
    assert "pile_cards" not in plain.observation_layout
    for env in (plain, with_pile):
        env.reset(seed=5)
    seen_sizes = set()
    for _ in range(80):
        agent = plain.agent_selection
        a, b = plain.observe(agent), with_pile.observe(agent)
        np.testing.assert_array_equal(a["observation"], b["observation"][:201])
        assert np.rint(b["observation"][201:] * COPIES).astype(int).tolist() == with_pile.game.pile_counts.tolist()
        seen_sizes.add(len(with_pile.game.pile))
        legal = np.flatnonzero(a["action_mask"])
        action = int(legal[0]) if len(legal) else None  # None: the game is over, its seats leave
        plain.step(action)
        with_pile.step(action)
        if not plain.agents:
            break
    assert len(seen_sizes) > 3  # the pile grew and shrank


def test_the_max_layout_keeps_the_piece() -> None:
    seated, padded = three_player_game(), three_player_game(table_layout="max")
    for agent in seated.possible_agents:
        assert pile_piece(padded, agent) == pile_piece(seated, agent) == counts("5", "7")
