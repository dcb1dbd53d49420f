"""Skull King engine and env: validation, masks against the helpers, views, observation, API."""

from __future__ import annotations

import numpy as np
import pytest

from pirate_envs import skull_king_v0
from pirate_envs.core.errors import IllegalActionError
from pirate_envs.skull_king.actions import ACTIONS, CARD_OFFSET
from pirate_envs.skull_king.cards import COPIES, KIND_NAMES, MARY_ESCAPE, NUM_SUITS, TOKEN_NAMES, suit_of
from pirate_envs.skull_king.engine import Config, Phase, SkullKingEngine
from pirate_envs.skull_king.env import raw_env
from pirate_envs.skull_king.observation import encode
from pirate_envs.skull_king.rules import held_card_actions, legal_cards
from tests.doc_pages import game_page
from tests.helpers import pettingzoo_api_test


def random_states(num_players: int, seed: int, games: int = 2):
    """Yield a random-play engine at every decision of ``games`` games."""
    rng = np.random.default_rng(seed)
    game = SkullKingEngine(Config(num_players=num_players))
    for _ in range(games):
        game.reset(rng)
        while not game.terminated:
            yield game
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"num_hands": 0}, "num_hands"),
        ({"num_hands": 11}, "num_hands"),
        ({"num_players": 6, "num_hands": 11}, "num_hands"),
        ({"first_dealer": 4}, "first_dealer"),
        ({"first_dealer": -1}, "first_dealer"),
        ({"num_players": 3.0}, "num_players"),
    ],
)
def test_config_rejects_bad_values(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Config(**kwargs)


def test_largest_configs_fit_the_deck() -> None:
    assert Config(num_players=6, num_hands=10).num_hands * 6 == 60
    raw_env(num_players=2, num_hands=1).reset(seed=0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deal": [["escape"], ["escape"]]}, "4 lists of 1"),
        ({"deal": [["escape", "pirate"]] * 4}, r"deal\[0\]=.* has 2 items; expected a list of 1 card names"),
        ({"deal": [["skull_king"], ["skull_king"], ["escape"], ["escape"]]}, "skull_king is given 2 times"),
        ({"deal": [["purple-3"], ["escape"], ["escape"], ["escape"]]}, "unknown card"),
        ({"deal": [["escape"]] * 4, "deals": []}, "either"),
        ({"first_hand": 11}, "first_hand"),
        ({"first_hand": 10, "deals": [[["escape"] * 10] * 4] * 2}, "deals"),
    ],
)
def test_reset_rejects_bad_options(options: dict, message: str) -> None:
    env = raw_env()
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_unknown_reset_options_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="dealer"):
        raw_env().reset(seed=0, options={"dealer": 2})


# ----------------------------------------------------------------------------- masks and helpers
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_mask_is_exactly_the_helpers_legal_cards(num_players: int) -> None:
    checked = 0
    for game in random_states(num_players, seed=num_players):
        mask = game.legal_mask()
        if game.phase == Phase.BID:
            assert np.flatnonzero(mask).tolist() == list(range(game.hand_number + 1))
            continue
        hand = [KIND_NAMES[k] for k in np.flatnonzero(game.hands[game.current_player])]
        expected = set()
        for card in legal_cards(hand, [TOKEN_NAMES[t] for t in game.trick]):
            expected |= {f"play {card}:pirate", f"play {card}:escape"} if card == "scary_mary" else {f"play {card}"}
        assert {ACTIONS.to_string(a) for a in np.flatnonzero(mask)} == expected
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("num_players", [3, 5])
def test_cards_are_conserved_and_hand_sizes_match(num_players: int) -> None:
    for game in random_states(num_players, seed=7, games=1):
        in_play = game.hands.sum(axis=0) + game.played
        assert (in_play <= np.asarray(COPIES)).all()
        assert in_play.sum() == num_players * game.hand_number
        sizes = game.hands.sum(axis=1)
        for i in range(len(game.trick)):  # who has played into this trick holds one card fewer
            seat = (game.leader + i) % num_players
            assert sizes[seat] == game.hand_number - game.tricks_done - 1
        assert game.played.sum() == game.tricks_done * num_players + len(game.trick)
        assert_derived_tables_match_hands(game)


def assert_derived_tables_match_hands(game: SkullKingEngine) -> None:
    """The engine's incremental card-action masks and suit counts agree with its hands."""
    assert game.counts == game.hands.tolist() and game.played_counts == game.played.tolist()
    np.testing.assert_array_equal(game.held, np.stack([held_card_actions(h) for h in game.hands]))
    suits = [[int(h[s * 13 : (s + 1) * 13].sum()) for s in range(NUM_SUITS)] for h in game.hands]
    assert game.suit_counts == suits


def test_a_void_is_recorded_only_when_a_suit_card_does_not_follow() -> None:
    for game in random_states(4, seed=3, games=1):
        for seat in range(4):
            for suit in range(NUM_SUITS):
                if game.voids[seat][suit]:
                    held = game.hands[seat, suit * 13 : (suit + 1) * 13].sum()
                    assert held == 0, "a seat shown void still holds the suit"


# ----------------------------------------------------------------------------- information
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_resampling_hidden_information_keeps_every_observation(num_players: int) -> None:
    env = raw_env(num_players=num_players)
    env.reset(seed=11)
    rng = np.random.default_rng(5)
    game = env.game
    for step in range(400):
        if game.terminated:
            break
        seat = game.current_player
        before = env.encode(game.view(seat))
        hands_before = game.hands.copy()
        sizes = game.hands.sum(axis=1)
        game.resample_hidden(seat, rng)
        np.testing.assert_array_equal(env.encode(game.view(seat)), before)
        np.testing.assert_array_equal(game.hands[seat], hands_before[seat])
        np.testing.assert_array_equal(game.hands.sum(axis=1), sizes)
        assert_derived_tables_match_hands(game)
        assert (game.hands.sum(axis=0) + game.played <= np.asarray(COPIES)).all()
        for s in range(num_players):
            for k in np.flatnonzero(game.hands[s]):
                suit = suit_of(int(k))
                assert suit < 0 or not game.voids[s][suit]
        if step == 200 and num_players > 2:
            others = [s for s in range(num_players) if s != seat]
            assert any((game.hands[s] != hands_before[s]).any() for s in others)
        legal = game.legal_actions()
        env.step(legal[rng.integers(len(legal))])


def test_view_is_read_only() -> None:
    game = SkullKingEngine()
    view = game.view(0)
    with pytest.raises(ValueError):
        view.hand[0] = 3
    with pytest.raises(AttributeError):
        view.seat = 2  # type: ignore[misc]


# ----------------------------------------------------------------------------- observation
def test_observation_pieces_are_seat_relative() -> None:
    env = raw_env(num_players=3, num_hands=2)
    deal = [["yellow-2", "skull_king"], ["blue-13", "pirate"], ["scary_mary", "yellow-12"]]
    env.reset(seed=0, options={"first_hand": 2, "deal": deal})
    layout = env.observation_layout
    for label in ["bid 1", "bid 1", "bid 0", "play yellow-12"]:  # seats 2, 0, 1 bid; seat 2 leads
        env.step(ACTIONS.from_string(label))
    obs = layout.unpack(env.observe("player_0")["observation"])
    assert obs["hand"][KIND_NAMES.index("yellow-2")] == 1 and obs["hand"].sum() == 2
    # seat 2 led: for seat 0 he is row 2 (seat 0, then 1, then 2)
    assert obs["trick"][2, TOKEN_NAMES.index("yellow-12")] == 1 and obs["trick"].sum() == 1
    assert obs["leader"].tolist() == [0, 0, 1] and obs["dealer"].tolist() == [0, 1, 0]
    assert obs["led_suit"].tolist() == [1, 0, 0, 0]
    assert obs["bids"][:, :3].tolist() == [[0, 1, 0], [1, 0, 0], [0, 1, 0]]
    assert obs["bids_revealed"][0] == 1 and obs["phase"].tolist() == [0, 1, 0]
    assert obs["hand_number"][1] == 1 and obs["played"][KIND_NAMES.index("yellow-12")] == 1
    obs1 = layout.unpack(env.observe("player_1")["observation"])
    assert obs1["trick"][1, TOKEN_NAMES.index("yellow-12")] == 1 and obs1["dealer"].tolist() == [1, 0, 0]
    assert env.observe("player_1")["action_mask"].sum() == 0
    for label in ["play skull_king", "play pirate"]:
        env.step(ACTIONS.from_string(label))
    obs = layout.unpack(env.observe("player_0")["observation"])
    assert obs["tricks_won"].tolist() == pytest.approx([0.1, 0, 0])
    assert obs["trick"].sum() == 0 and obs["leader"].tolist() == [1, 0, 0]
    assert obs["voids"].sum() == 0  # seat 1's Pirate is a special card: it shows no void
    env.step(ACTIONS.from_string("play yellow-2"))
    env.step(ACTIONS.from_string("play blue-13"))  # seat 1 does not follow yellow
    obs = layout.unpack(env.observe("player_0")["observation"])
    assert obs["voids"].tolist() == [[0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    obs2 = layout.unpack(env.observe("player_2")["observation"])
    assert obs2["voids"][2].tolist() == [1, 0, 0, 0]  # seat 1 is seat 2's row 2


# ----------------------------------------------------------------------------- PettingZoo API
def test_pettingzoo_api() -> None:
    pettingzoo_api_test(skull_king_v0.env(num_players=3, num_hands=3), num_cycles=200)


def test_illegal_actions() -> None:
    env = raw_env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="bid 2"):
        env.step(ACTIONS.from_string("bid 2"))  # hand 1 allows bids 0..1
    wrapped = skull_king_v0.env()
    wrapped.reset(seed=0)
    cheat = wrapped.agent_selection
    wrapped.step(CARD_OFFSET + MARY_ESCAPE)  # a card during the bidding
    assert wrapped.rewards[cheat] == -1 and all(wrapped.terminations.values())


def test_render_and_labels() -> None:
    env = skull_king_v0.env(render_mode="ansi", num_players=2)
    env.reset(seed=0, options={"deal": [["mermaid"], ["black-7"]]})
    text = env.render()
    assert "hand 1 of 10" in text and "mermaid" in text and "black-7" in text
    assert env.unwrapped.action_to_string(CARD_OFFSET + MARY_ESCAPE) == "play scary_mary:escape"
    assert env.unwrapped.action_to_string(3) == "bid 3"
    assert len(ACTIONS) == 69


def test_views_compare_by_value() -> None:
    a, b = SkullKingEngine(), SkullKingEngine()  # both dealt from seed 0
    assert a.view(2) == b.view(2) and a.view(2) is not b.view(2)
    assert a.view(2) != a.view(3)
    a.apply(a.legal_actions()[0])
    assert a.view(2) != b.view(2)


def test_the_pages_tables_match_the_layout_and_actions() -> None:
    page = game_page("skull_king_v0")
    assert raw_env().observation_layout.table() in page
    assert ACTIONS.table() in page


def test_cached_table_segments_match_a_fresh_encoding() -> None:
    env = raw_env(num_players=3)
    layout = env.observation_layout
    for game in random_states(3, seed=9, games=1):
        env.game = game
        for seat in range(3):
            view = game.view(seat)
            np.testing.assert_array_equal(env.encode(view), encode(view, layout))
