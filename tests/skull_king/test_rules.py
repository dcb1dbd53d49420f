"""The pure Skull King helpers, hand-traced from the first-edition rule text and the project's rulings."""

from __future__ import annotations

import pytest

from pirate_envs.skull_king.rules import hand_score, legal_cards, trick_bonus, trick_winner


# ----------------------------------------------------------------------------- trick winner
@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        # the rule text's example: black trumps; without black the highest yellow wins
        (["yellow-2", "yellow-12", "blue-13", "black-1"], 3),
        (["yellow-2", "yellow-12", "blue-13"], 1),
        # an off-suit higher card never wins; the led suit's highest does
        (["red-5", "blue-13", "red-4"], 0),
        (["red-5", "red-11", "red-13"], 2),
        # black led: highest black
        (["black-3", "black-9", "yellow-13"], 1),
        # Escape is the lowest card: the first suit card played sets the suit
        (["escape", "yellow-1"], 1),
        (["escape", "blue-3", "blue-9", "yellow-13"], 2),
        (["scary_mary:escape", "red-2", "red-7"], 2),
        (["escape", "escape", "red-2"], 2),
        # only Escapes: the first one wins (Scary Mary as Escape counts as an Escape)
        (["escape", "escape", "escape"], 0),
        (["scary_mary:escape", "escape"], 0),
        (["escape", "scary_mary:escape"], 0),
        # Mermaid beats every suit card, black included
        (["black-13", "mermaid"], 1),
        (["yellow-1", "mermaid", "black-13"], 1),
        # two Mermaids: the first wins
        (["mermaid", "mermaid"], 0),
        (["red-3", "mermaid", "black-2", "mermaid"], 1),
        # Pirates beat suits and the Mermaid; the first Pirate wins
        (["mermaid", "pirate"], 1),
        (["pirate", "mermaid"], 0),
        (["black-13", "pirate", "pirate"], 1),
        (["pirate", "scary_mary:pirate"], 0),
        (["scary_mary:pirate", "pirate"], 0),
        (["yellow-3", "scary_mary:pirate", "mermaid"], 1),
        # Scary Mary as Escape loses to any suit card
        (["scary_mary:escape", "yellow-1"], 1),
        # the Skull King beats Pirates, played before or after them
        (["pirate", "skull_king"], 1),
        (["skull_king", "pirate"], 0),
        (["scary_mary:pirate", "black-13", "skull_king"], 2),
        # ... unless a Mermaid is in the trick: the (first) Mermaid wins, whatever else is there
        (["skull_king", "mermaid"], 1),
        (["mermaid", "skull_king"], 0),
        (["pirate", "skull_king", "mermaid"], 2),
        (["pirate", "mermaid", "skull_king", "mermaid"], 1),
        # Skull King alone with suit cards and escapes
        (["escape", "black-13", "skull_king"], 2),
    ],
)
def test_trick_winner(trick: list[str], winner: int) -> None:
    assert trick_winner(trick) == winner


# ----------------------------------------------------------------------------- bonus
@pytest.mark.parametrize(
    ("trick", "bonus"),
    [
        (["yellow-2", "yellow-12", "blue-13", "black-1"], 0),
        (["pirate", "pirate"], 0),  # no Skull King: Pirates are no bonus
        (["mermaid", "pirate"], 0),
        (["skull_king", "black-13"], 0),
        (["skull_king", "pirate"], 30),
        (["pirate", "skull_king", "pirate"], 60),
        (["pirate", "pirate", "skull_king", "scary_mary:pirate"], 90),
        # Scary Mary counts as a Pirate even when played as an Escape
        (["skull_king", "scary_mary:escape"], 30),
        (["scary_mary:escape", "pirate", "skull_king"], 60),
        # a Mermaid catching the Skull King: +50, and no Pirate bonus
        (["skull_king", "mermaid"], 50),
        (["pirate", "skull_king", "mermaid", "pirate"], 50),
        (["mermaid", "mermaid", "skull_king"], 50),
    ],
)
def test_trick_bonus(trick: list[str], bonus: int) -> None:
    assert trick_bonus(trick) == bonus


@pytest.mark.parametrize("bad", [[], ["green-3"], ["scary_mary"], ["yellow-14"], ["skull_king", "skull_king"]])
def test_bad_tricks_are_rejected(bad: list[str]) -> None:
    with pytest.raises(ValueError):
        trick_winner(bad)
    with pytest.raises(ValueError):
        trick_bonus(bad)


# ----------------------------------------------------------------------------- scoring
@pytest.mark.parametrize(
    ("bid", "tricks", "hand_number", "bonus", "score"),
    [
        (3, 3, 5, 0, 60),  # David bids 3 and gets 3: 60
        (5, 1, 7, 0, -40),  # Simon bids 5 and wins 1: 40 minus points
        (0, 0, 4, 0, 40),  # Eloise, round 4, no-trick bid made: 40
        (0, 2, 9, 0, -90),  # David, round 9, no-trick bid, takes 2: -90
        (0, 1, 9, 0, -90),  # one trick or three: the same -90
        (0, 3, 9, 30, -90),  # ... and no bonus
        (1, 1, 1, 0, 20),
        (2, 2, 6, 80, 120),  # bonus only with the exact bid
        (2, 3, 6, 80, -10),
        (2, 1, 6, 50, -10),
        (10, 10, 10, 0, 200),
        (0, 0, 10, 0, 100),
        (4, 0, 10, 0, -40),
    ],
)
def test_hand_score(bid: int, tricks: int, hand_number: int, bonus: int, score: int) -> None:
    assert hand_score(bid, tricks, hand_number, bonus) == score


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((3, 2, 2, 0), "bid"),
        ((-1, 0, 2, 0), "bid"),
        ((1, 3, 2, 0), "tricks"),
        ((0, 0, 0, 0), "hand_number"),
        ((1, 1, 2, -30), "bonus"),
        ((0, 0, 3, 30), "bonus"),
    ],
)
def test_hand_score_rejects_bad_input(args: tuple[int, int, int, int], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        hand_score(*args)


# ----------------------------------------------------------------------------- legal cards
@pytest.mark.parametrize(
    ("hand", "trick", "legal"),
    [
        # leading: anything
        (["red-5", "yellow-2", "escape"], [], ["escape", "red-5", "yellow-2"]),
        # must follow yellow; specials are always allowed
        (
            ["yellow-3", "yellow-9", "red-5", "black-13", "escape", "scary_mary"],
            ["yellow-2"],
            ["escape", "scary_mary", "yellow-3", "yellow-9"],
        ),
        # cannot follow: anything, black included
        (["red-5", "black-13", "pirate"], ["yellow-2"], ["black-13", "pirate", "red-5"]),
        # black led: follow black if possible ...
        (["black-1", "red-13", "mermaid"], ["black-7"], ["black-1", "mermaid"]),
        # ... otherwise anything (no need to play a Pirate)
        (["red-13", "blue-2", "pirate"], ["black-7"], ["blue-2", "pirate", "red-13"]),
        # a special card led: the first suit card played later sets the suit
        (["red-13", "blue-2"], ["escape"], ["blue-2", "red-13"]),
        (["red-13", "blue-2"], ["scary_mary:escape", "blue-8"], ["blue-2"]),
        (["red-13", "blue-2", "skull_king"], ["pirate", "mermaid", "red-1"], ["red-13", "skull_king"]),
        (["red-13", "blue-2"], ["skull_king", "pirate"], ["blue-2", "red-13"]),
        # duplicates are listed once
        (["escape", "escape", "pirate", "pirate", "yellow-1"], ["red-3"], ["escape", "pirate", "yellow-1"]),
        # only specials left while the suit is led
        (["mermaid", "skull_king"], ["yellow-4"], ["mermaid", "skull_king"]),
    ],
)
def test_legal_cards(hand: list[str], trick: list[str], legal: list[str]) -> None:
    assert legal_cards(hand, trick) == legal


@pytest.mark.parametrize(("hand", "trick"), [(["purple-3"], []), (["escape"], ["scary_mary"]), (["mermaid"] * 3, [])])
def test_legal_cards_rejects_bad_names(hand: list[str], trick: list[str]) -> None:
    with pytest.raises(ValueError):
        legal_cards(hand, trick)
