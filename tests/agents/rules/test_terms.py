"""The rule card's terms are defined in words a player can apply, and the words say what the code computes."""

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from agents.skull_king.heuristic import choose_bid
from agents.skull_king.rule_card import terms
from pirate_envs.skull_king.cards import (
    ESCAPE,
    MERMAID,
    NUM_KINDS,
    NUM_SUIT_CARDS,
    PIRATE,
    SCARY_MARY,
    SKULL_KING,
    TRUMP_SUIT,
    rank_of,
    suit_of,
)

PLAYERS = 4


def values_from_words(lines: list[str]) -> np.ndarray:
    """Each card kind's value, read back from the words (as a player would read them)."""
    text = "\n".join(lines)
    values = np.full(NUM_KINDS, np.nan)
    for kind, name in (
        (SKULL_KING, "the Skull King"),
        (SCARY_MARY, "Scary Mary"),
        (PIRATE, "each Pirate"),
        (MERMAID, "each Mermaid"),
        (ESCAPE, "each Escape"),
    ):
        values[kind] = float(re.search(rf"{name} (\d\.\d\d)", text).group(1))
    rows = {
        row.split("|")[1].strip(): [float(x) for x in row.split("|")[2:-1]] for row in lines if row.startswith("| ")
    }
    for kind in range(NUM_SUIT_CARDS):
        row = rows["black (trump)" if suit_of(kind) == TRUMP_SUIT else "coloured"]
        values[kind] = row[rank_of(kind) - 1]
    assert not np.isnan(values).any()
    return values


def test_the_rough_trick_count_in_words_gives_the_codes_bid_on_random_hands():
    values = values_from_words(terms(PLAYERS))
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(3000):
        hand_number = int(rng.integers(1, 11))
        hand = np.bincount(rng.choice(NUM_KINDS, hand_number), minlength=NUM_KINDS)
        by_words = float(values @ hand)
        if abs(by_words - np.floor(by_words) - 0.5) <= 0.005 * hand_number:
            continue  # within the words' rounding (hundredths) of a half: either bid is what the words say
        view = SimpleNamespace(num_players=PLAYERS, hand=hand, hand_number=hand_number)
        assert choose_bid(view) == min(hand_number, max(0, round(by_words))), hand
        checked += 1
    assert checked > 2500


def test_the_rule_card_page_defines_the_rough_trick_count_in_the_codes_words():
    page = Path("docs/strategy/rule_cards.md").read_text()
    assert "rough trick count" in page
    assert "\n".join(terms(PLAYERS)) in page
