"""The observation piece ``known``: the cards every player saw go into a hand, per seat.

Hand-traced games (dealt with the reset options ``deal``, ``dealer`` and ``pile``): a picked-up
pile and a failed blind down card show in the taker's row, seat-relative for every observer,
until played from the hand; a tournament's next deal clears them; ``table_layout="max"`` pads
the piece to six rows; the older pieces keep their offsets.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, PICK_UP, play_action
from pirate_envs.lucky_pirate.cards import KIND_INDEX, NUM_KINDS
from pirate_envs.lucky_pirate_v0 import raw_env
from tests.lucky_pirate.pieces import COPIES, counts, observed_piece


def known_piece(env: raw_env, agent: str) -> np.ndarray:
    """``agent``'s observed ``known`` piece, in copies (rows seat-relative)."""
    return observed_piece(env, agent, "known")


def pick_up_game(**kwargs) -> raw_env:
    """Three players; seat 0 starts on a pile of 5 and 7 it cannot beat, and picks it up."""
    env = raw_env(num_players=3, observe_known=True, **kwargs)
    deal = [
        {"hand": ["2", "3"], "up": ["1"], "down": ["1"]},
        {"hand": ["1", "8"], "up": ["2"], "down": ["2"]},
        {"hand": ["4", "8"], "up": ["3"], "down": ["3"]},
    ]
    env.reset(seed=0, options={"deal": deal, "dealer": 2, "pile": ["5", "7"]})
    for agent in env.possible_agents:
        assert not known_piece(env, agent).any()
    env.step(PICK_UP)
    return env


def test_a_picked_up_pile_shows_in_the_takers_row_for_every_observer_until_played() -> None:
    env = pick_up_game()
    taken = counts("5", "7")
    for seat, agent in enumerate(env.possible_agents):
        rows = known_piece(env, agent)
        row = (0 - seat) % 3  # seat 0's row, seat-relative to the observer
        assert rows[row].tolist() == taken
        assert not np.delete(rows, row, axis=0).any()
    env.step(play_action(KIND_INDEX["1"], 1))  # seat 1 starts a new pile
    env.step(play_action(KIND_INDEX["4"], 1))  # seat 2
    env.step(play_action(KIND_INDEX["7"], 1))  # seat 0 plays the picked-up 7 from its hand
    assert known_piece(env, "player_1")[2].tolist() == counts("5")
    assert known_piece(env, "player_2")[1].tolist() == counts("5")


def test_the_own_row_is_the_part_of_the_hand_the_others_know_of() -> None:
    """Row 0 of the taker's observation shows its own known cards, also counted in ``hand``."""
    env = pick_up_game()
    parts = env.observation_layout.unpack(env.observe("player_0")["observation"])
    assert (parts["known"][0] * COPIES).tolist() == counts("5", "7")
    assert (parts["hand"] * COPIES).tolist() == counts("2", "3", "5", "7")
    assert not parts["known"][1:].any()


def test_a_failed_down_card_goes_into_known_with_the_pile() -> None:
    env = raw_env(num_players=2, observe_known=True)
    deal = [{"hand": [], "up": [], "down": ["2"]}, {"hand": ["1"], "up": ["1"], "down": ["1"]}]
    env.reset(seed=0, options={"deal": deal, "dealer": 1, "pile": ["8"]})
    env.step(DOWN_OFFSET)  # seat 0 turns its 2 over: it cannot go on the 8
    assert known_piece(env, "player_1")[1].tolist() == counts("2", "8")
    assert known_piece(env, "player_0")[0].tolist() == counts("2", "8")


def test_the_next_deal_of_a_tournament_clears_known() -> None:
    env = raw_env(num_players=2, wins_to_win=2, observe_known=True)
    deal = [{"hand": ["6", "7"], "up": [], "down": []}, {"hand": ["2"], "up": ["1"], "down": ["3"]}]
    env.reset(seed=0, options={"deal": deal, "dealer": 1, "pile": ["5"]})
    env.step(play_action(KIND_INDEX["6"], 1))
    env.step(PICK_UP)  # seat 1 cannot beat the 6
    assert known_piece(env, "player_0")[1].tolist() == counts("5", "6")
    env.step(play_action(KIND_INDEX["7"], 1))  # seat 0 sheds its last card: game 1 is won
    assert env.game.wins.tolist() == [1, 0] and not env.terminations["player_0"]
    for agent in env.possible_agents:
        assert not known_piece(env, agent).any()


def test_known_comes_after_every_older_piece() -> None:
    """Trained agents read the pieces by their offsets: known is appended after to_play."""
    layout = raw_env(num_players=4, observe_known=True).observation_layout
    assert layout.piece("to_play").start == 197 and layout.piece("known").start == 201
    assert layout.piece("known").shape == (4, NUM_KINDS) and layout.size == 269


def test_the_default_observation_has_no_known_and_is_unchanged() -> None:
    """Off by default (the env id observes what it always did): the same vectors, without the piece."""
    plain, with_known = raw_env(num_players=4), raw_env(num_players=4, observe_known=True)
    assert "known" not in plain.observation_layout and plain.observation_layout.size == 201
    for env in (plain, with_known):
        env.reset(seed=3)
    for _ in range(40):
        agent = plain.agent_selection
        a, b = plain.observe(agent), with_known.observe(agent)
        np.testing.assert_array_equal(a["observation"], b["observation"][:201])
        action = int(np.flatnonzero(a["action_mask"])[0])
        plain.step(action)
        with_known.step(action)


def test_the_max_layout_pads_known_to_six_rows() -> None:
    seated, padded = pick_up_game(), pick_up_game(table_layout="max")
    for agent in seated.possible_agents:
        rows = padded.observation_layout.unpack(padded.observe(agent)["observation"])["known"]
        assert rows.shape == (6, NUM_KINDS)
        np.testing.assert_array_equal(rows[:3] * COPIES, known_piece(seated, agent))
        assert rows[:3].any() and not rows[3:].any()  # absent seats are zero
