"""Skull King's rule-card vocabulary: features of the seat's view and moves in words.

Bidding reads the hand (trumps, high cards, special cards, the hand number); playing reads the
trick (leading or following, whether a legal card takes the trick as it stands, last to play)
and the bid (tricks still needed). Moves: a bid from a count of the hand, or a card by its
strength among the legal ones (`agents.skull_king.heuristic.token_strength`). `terms` defines in words
the terms a card uses that a player cannot read off the table (the rough trick count), from the code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.rules.vocabulary import Choice, Feature, Vocabulary, agent_choice
from agents.skull_king.heuristic import SkullKingHeuristic, choose_bid, token_strength, win_chances
from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET, NUM_ACTIONS
from pirate_envs.skull_king.cards import (
    ESCAPE,
    MARY_ESCAPE,
    MERMAID,
    NUM_RANKS,
    NUM_SUIT_CARDS,
    PIRATE,
    SCARY_MARY,
    SKULL_KING,
    TRUMP_SUIT,
    rank_of,
    suit_of,
)
from pirate_envs.skull_king.engine import Phase
from pirate_envs.skull_king.rules import winner_of_tokens

HIGH_TRUMP = 10  # a black card this high counts as strong
HIGH_SUIT = 12  # a coloured card this high counts as strong


def _suit_cards(view: Any, trump: bool, low_rank: int = 1) -> int:
    return sum(
        int(view.hand[k])
        for k in range(NUM_SUIT_CARDS)
        if (suit_of(k) == TRUMP_SUIT) == trump and rank_of(k) >= low_rank
    )


def _pirates(view: Any) -> int:
    return int(view.hand[PIRATE]) + int(view.hand[SCARY_MARY])


def strong_cards(view: Any) -> int:
    """The Skull King, Pirates (Scary Mary too), Mermaids, black 10+ and coloured 12+."""
    return (
        _pirates(view)
        + int(view.hand[SKULL_KING])
        + int(view.hand[MERMAID])
        + _suit_cards(view, True, HIGH_TRUMP)
        + _suit_cards(view, False, HIGH_SUIT)
    )


def _tokens(legal: np.ndarray) -> list[int]:
    return [int(a) - CARD_OFFSET for a in legal if a >= CARD_OFFSET]


def _winners(view: Any, tokens: list[int]) -> list[int]:
    trick = list(view.trick)
    return [t for t in tokens if winner_of_tokens([*trick, t]) == len(trick)]


def _bidding(view: Any) -> bool:
    return view.phase == Phase.BID


def _needed(view: Any) -> int:
    return int(view.bids[view.seat]) - int(view.tricks_won[view.seat])


FEATURES = (
    Feature("bidding", "you are bidding", lambda v, legal: float(_bidding(v)), "flag", "you are playing a card"),
    Feature("hand_number", "the hand number (cards dealt to each)", lambda v, legal: v.hand_number),
    Feature("trumps", "your black (trump) cards", lambda v, legal: _suit_cards(v, True)),
    Feature("pirates", "your Pirates (Scary Mary included)", lambda v, legal: _pirates(v)),
    Feature("skull_king", "your Skull King", lambda v, legal: int(v.hand[SKULL_KING])),
    Feature("mermaids", "your Mermaids", lambda v, legal: int(v.hand[MERMAID])),
    Feature("escapes", "your Escapes", lambda v, legal: int(v.hand[ESCAPE])),
    Feature(
        "strong",
        "your strong cards (Skull King, Pirates, Mermaids, black 10+, coloured 12+)",
        lambda v, legal: strong_cards(v),
    ),
    Feature(
        "rough_tricks",
        "your rough trick count (the simple heuristic's bid)",
        lambda v, legal: choose_bid(v) if _bidding(v) else 0,
    ),
    Feature(
        "leading",
        "you lead the trick",
        lambda v, legal: float(not _bidding(v) and not v.trick),
        "flag",
        "you follow (or bid)",
    ),
    Feature(
        "last",
        "you play last to the trick",
        lambda v, legal: float(not _bidding(v) and len(v.trick) == v.num_players - 1),
        "flag",
        "others play after you (or you bid)",
    ),
    Feature(
        "can_win",
        "a legal card of yours takes the trick as it stands",
        lambda v, legal: float(not _bidding(v) and bool(v.trick) and bool(_winners(v, _tokens(legal)))),
        "flag",
        "no legal card of yours takes the trick as it stands (or you lead or bid)",
    ),
    Feature("needed", "the tricks you still need for your bid", lambda v, legal: 0 if _bidding(v) else _needed(v)),
    Feature("cards_left", "the cards in your hand", lambda v, legal: int(np.sum(v.hand))),
)


def _bid(amount: Any) -> Any:
    def choose(view: Any, legal: np.ndarray) -> int | None:
        if not _bidding(view):
            return None
        return BID_OFFSET + int(min(view.hand_number, max(0, amount(view))))

    return choose


def _card(pick: Any) -> Any:
    def choose(view: Any, legal: np.ndarray) -> int | None:
        tokens = _tokens(legal)
        if _bidding(view) or not tokens:
            return None
        token = pick(view, tokens)
        return None if token is None else CARD_OFFSET + token

    return choose


def _weakest(tokens: list[int]) -> int | None:
    return min(tokens, key=token_strength) if tokens else None


def _strongest(tokens: list[int]) -> int | None:
    return max(tokens, key=token_strength) if tokens else None


def _losers(view: Any, tokens: list[int]) -> list[int]:
    won = _winners(view, tokens) if view.trick else []
    return [t for t in tokens if t not in won and (view.trick or t in (ESCAPE, MARY_ESCAPE))]


CHOICES = (
    agent_choice(
        "heuristic",
        "do as the simple heuristic: bid your rough trick count; play to make the bid exactly (the weakest "
        "winning card when last, else the strongest; with no winner or the bid made, the strongest losing card, "
        "else the weakest)",
        SkullKingHeuristic(),
        NUM_ACTIONS,
    ),
    Choice("bid_0", "bid 0", _bid(lambda v: 0)),
    Choice("bid_strong", "bid your strong cards", _bid(strong_cards)),
    Choice("bid_strong_less", "bid your strong cards less one", _bid(lambda v: strong_cards(v) - 1)),
    Choice("bid_strong_more", "bid your strong cards plus one", _bid(lambda v: strong_cards(v) + 1)),
    Choice("bid_rough", "bid your rough trick count", _bid(choose_bid)),
    Choice("bid_rough_more", "bid your rough trick count plus one", _bid(lambda v: choose_bid(v) + 1)),
    Choice("bid_rough_less", "bid your rough trick count less one", _bid(lambda v: choose_bid(v) - 1)),
    Choice(
        "weakest_winner",
        "play your weakest card that takes the trick",
        _card(lambda v, t: _weakest(_winners(v, t)) if v.trick else None),
    ),
    Choice(
        "strongest_winner",
        "play your strongest card that takes the trick",
        _card(lambda v, t: _strongest(_winners(v, t)) if v.trick else None),
    ),
    Choice(
        "strongest_loser",
        "play your strongest card that does not take the trick",
        _card(lambda v, t: _strongest(_losers(v, t))),
    ),
    Choice("strongest", "play your strongest card", _card(lambda v, t: _strongest(t))),
    Choice("weakest", "play your weakest card", _card(lambda v, t: _weakest(t))),
    Choice(
        "strongest_suit",
        "play your strongest coloured (non-black) card",
        _card(lambda v, t: _strongest([x for x in t if x < NUM_SUIT_CARDS and suit_of(x) != TRUMP_SUIT])),
    ),
    Choice(
        "weakest_suit",
        "play your weakest coloured (non-black) card",
        _card(lambda v, t: _weakest([x for x in t if x < NUM_SUIT_CARDS and suit_of(x) != TRUMP_SUIT])),
    ),
)

VOCABULARY = Vocabulary("skull_king_v0", FEATURES, CHOICES, fallback="heuristic", players=4, balance="bidding")


def _value(chance: float) -> str:
    return f"{chance:.2f}"


def terms(num_players: int) -> list[str]:
    """Markdown lines that define the rough trick count (`choose_bid`) at ``num_players`` in words a player can
    apply at the table: the value each card adds, from `win_chances` itself (hundredths)."""
    chances = win_chances(num_players)
    ranks = range(1, NUM_RANKS + 1)
    trump = {rank_of(k): chances[k] for k in range(NUM_SUIT_CARDS) if suit_of(k) == TRUMP_SUIT}
    coloured = {rank_of(k): chances[k] for k in range(NUM_SUIT_CARDS) if suit_of(k) != TRUMP_SUIT}
    return [
        f"**Your rough trick count** (the simple heuristic's bid; at {num_players} players): add up a value for "
        f"each card in your hand: the Skull King {_value(chances[SKULL_KING])}, Scary Mary "
        f"{_value(chances[SCARY_MARY])}, each Pirate {_value(chances[PIRATE])}, each Mermaid "
        f"{_value(chances[MERMAID])}, each Escape {_value(chances[ESCAPE])}, and a numbered card by its colour "
        "and rank from the table below (each value is the card's rough chance to win a trick); round the sum "
        "to the nearest whole number (exactly one half goes to the even number) and keep it between 0 and the "
        "hand number (the cards dealt to each).",
        "",
        "| rank | " + " | ".join(str(rank) for rank in ranks) + " |",
        "|---|" + "---|" * NUM_RANKS,
        "| black (trump) | " + " | ".join(_value(trump[rank]) for rank in ranks) + " |",
        "| coloured | " + " | ".join(_value(coloured[rank]) for rank in ranks) + " |",
    ]


__all__ = ["VOCABULARY", "strong_cards", "terms"]
