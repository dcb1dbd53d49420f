"""The Kapern observation vector, piece by piece, for a hand-built state."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from pirate_envs.piraten_kapern.rules import CARDS
from tests.doc_pages import game_page


def test_every_piece_holds_what_its_name_says():
    env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=3)
    env.reset(seed=0, options={"first_card": "sorceress"})
    game = env.game
    game.current_player = 1
    game.turn.free = [2, 1, 0, 0, 3, 2]
    game.turn.chest = [0] * 6
    game.turn.rolls = 2
    game.turn_points = 400
    game._scores = [1200, -300, 6000]
    game.final_trigger = 2
    game.final_turns_left = [True, False, False]
    env._obs_cache.clear()
    pieces = env.observation_layout.unpack(env.observe("player_0")["observation"])
    assert pieces["on_turn"].tolist() == [0, 1, 0]  # player_1 is next after me
    assert pieces["card"].tolist() == [float(c == "sorceress") for c in CARDS]
    assert pieces["dice"].tolist() == pytest.approx([2 / 8, 1 / 8, 0, 0, 3 / 8, 2 / 8])
    assert pieces["chest"].tolist() == [0] * 6
    assert pieces["rolls"][0] == pytest.approx(0.2)
    assert pieces["sorceress_available"][0] == 1
    assert pieces["island"][0] == 0
    assert pieces["skulls"][0] == pytest.approx(2 / 8)
    assert pieces["turn_points"][0] == pytest.approx(0.4)
    assert pieces["scores"].tolist() == pytest.approx([0.2, -0.05, 1.0])
    assert pieces["final_round"][0] == 1
    assert pieces["final_turn_left"].tolist() == [1, 0, 0]
    assert pieces["deck_left"].sum() * 4 == pytest.approx(34)
    # seat-relative: player_2 sees himself first
    seen_by_2 = env.observation_layout.unpack(env.observe("player_2")["observation"])
    assert seen_by_2["scores"].tolist() == pytest.approx([1.0, 0.2, -0.05])
    assert seen_by_2["on_turn"].tolist() == [0, 0, 1]
    assert seen_by_2["final_turn_left"].tolist() == [0, 1, 0]
    assert np.array_equal(seen_by_2["dice"], pieces["dice"])


def test_resampling_hidden_information_changes_the_future():
    """The invariance test is not vacuous: resampling really redraws the deck and the dice."""
    env = pirate_envs.make("piraten_kapern_v0", raw=True)
    env.reset(seed=0)
    decks = set()
    for seed in range(5):
        env.game.resample_hidden(0, np.random.default_rng(seed))
        decks.add(tuple(env.game.deck))
    assert len(decks) > 1


def test_the_pages_tables_match_the_code():
    from pirate_envs.piraten_kapern.actions import ACTIONS
    from pirate_envs.piraten_kapern.observation import build_layout

    doc = game_page("piraten_kapern_v0")
    assert build_layout(2).table() in doc
    for block in ACTIONS.blocks:
        span = f"{block.start}" if len(block.labels) == 1 else f"{block.start}-{block.stop - 1}"
        assert f"| {span} | {block.name} |" in doc
    assert f"Discrete({len(ACTIONS)})" in doc
