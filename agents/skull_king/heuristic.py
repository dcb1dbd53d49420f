"""An honest Skull King heuristic: bid the hand's strength, then play to make the bid exactly.

It reads only its player's `pirate_envs.skull_king.view.View` and the action mask:

* Bid: the sum over the hand of a rough chance that each card wins a trick (the chance that
  none of the other players' cards, drawn at random from the rest of the deck, beats it; plain
  suit cards discounted by rank), rounded and kept within 0..k.
* Play, while tricks are still needed: the weakest card that would take the trick as it
  stands (last to play), or the strongest such card when others still follow; leading, the
  strongest card. With no winning card, throw the weakest card.
* Play, once the bid is reached (or for a zero bid): the strongest card that would not take
  the trick as it stands; with none, the weakest card. Leading, the weakest card (an Escape or
  Scary Mary as Escape first).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import (
    COPIES,
    DECK_SIZE,
    ESCAPE,
    MARY_ESCAPE,
    MARY_PIRATE,
    MERMAID,
    NUM_KINDS,
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
from pirate_envs.skull_king.view import View

#: Cards that beat a led special card (out of the other 65): Pirates (Scary Mary included)
#: beat a Mermaid; the Skull King and, on average, half the other Pirates beat a Pirate; the
#: Mermaids beat the Skull King.
_SPECIAL_BEATERS = {
    MERMAID: COPIES[PIRATE] + 1 + 0.5,
    PIRATE: 1 + (COPIES[PIRATE] - 1 + 1) / 2,
    SCARY_MARY: 1 + COPIES[PIRATE] / 2,
    SKULL_KING: COPIES[MERMAID],
}
#: Cards that beat any suit card whatever its rank: the Pirates, Scary Mary, Mermaids, Skull King.
_SPECIALS_OVER_SUITS = COPIES[PIRATE] + 1 + COPIES[MERMAID] + 1


def token_strength(token: int) -> int:
    """A rough order of the cards, used to pick the weakest or strongest among candidates."""
    if token in (ESCAPE, MARY_ESCAPE):
        return 0
    if token < NUM_SUIT_CARDS:
        return rank_of(token) + (20 if suit_of(token) == TRUMP_SUIT else 0)
    return {MERMAID: 40, MARY_PIRATE: 49, PIRATE: 50, SKULL_KING: 60}[token]


@cache
def win_chances(num_players: int) -> tuple[float, ...]:
    """Per card kind, a rough chance that the card wins the trick it leads."""
    others = DECK_SIZE - 1
    chances = []
    for kind in range(NUM_KINDS):
        if kind == ESCAPE:
            chances.append(0.0)
            continue
        if kind < NUM_SUIT_CARDS:
            rank = rank_of(kind)
            beaters = NUM_RANKS - rank + _SPECIALS_OVER_SUITS
            if suit_of(kind) != TRUMP_SUIT:
                beaters += NUM_RANKS
        else:
            beaters = _SPECIAL_BEATERS[kind]
        chance = (1.0 - beaters / others) ** (num_players - 1)
        if kind < NUM_SUIT_CARDS and suit_of(kind) != TRUMP_SUIT:
            chance *= rank_of(kind) / NUM_RANKS
        chances.append(chance)
    return tuple(chances)


def choose_bid(view: View) -> int:
    """The bid: the hand's expected tricks, rounded, within 0..hand_number."""
    chances = win_chances(view.num_players)
    expected = sum(chances[k] * int(view.hand[k]) for k in np.flatnonzero(view.hand))
    return int(min(view.hand_number, max(0, round(expected))))


def choose_card(view: View, tokens: list[int]) -> int:
    """The trick token to play among the legal ``tokens``."""
    wanted = view.bids[view.seat] - view.tricks_won[view.seat]
    if not view.trick:
        return max(tokens, key=token_strength) if wanted > 0 else min(tokens, key=token_strength)
    trick = list(view.trick)
    position = len(trick)
    winners = [t for t in tokens if winner_of_tokens([*trick, t]) == position]
    losers = [t for t in tokens if t not in winners]
    last_to_play = position == view.num_players - 1
    if wanted > 0:
        if winners:
            return (min if last_to_play else max)(winners, key=token_strength)
        return min(tokens, key=token_strength)
    if losers:
        return max(losers, key=token_strength)
    return min(tokens, key=token_strength)


class SkullKingHeuristic:
    """Bids from hand strength and plays to make the bid exactly (see the module docstring)."""

    name = "heuristic"

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the heuristic is deterministic."""

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """A legal action for ``view`` (the player's `pirate_envs.skull_king.view.View`)."""
        legal = np.flatnonzero(observation["action_mask"])
        if view.phase == Phase.BID:
            bid = BID_OFFSET + choose_bid(view)
            return bid if bid in legal else int(legal[-1])
        return CARD_OFFSET + choose_card(view, [int(a) - CARD_OFFSET for a in legal])
