"""Situations a player recognises, named from the deciding seat's View and its legal moves.

`situation(env_id, view, legal)` gives one short phrase per decision (every decision gets one): the
rows of a page's "Where play goes wrong" table. Each game's function reads only what the seat sees.

* Skull King: bidding by hand size and strong cards; leading or following (whether a legal card
  takes the trick as it stands) by where the bid stands (a bid of 0 still clean, tricks still
  needed, the bid made, the bid already over).
* Piraten Kapern: the fortune card's kind (a Sea Battle, the Treasure Chest, the Sorceress, Storm,
  Peace, or another card) x skulls showing (the card's included) x points at risk.
* Piratenpoker: the round (overboard, below deck, loot) x starting a bid (Pass in hand or spent),
  adding to or ending it, or the round winner's choices.
* Lucky Pirate: what the seat may play (numbers, special cards, both) x the pile's value band; laying
  up cards in the set-up. A choice among blind down cards only is no choice (`interchangeable`): the
  seat cannot tell them apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.lucky_pirate.heuristic import NUMBERS_LOW_TO_HIGH, SPECIALS_CHEAPEST_FIRST
from agents.piraten_kapern.analysis import risk_bucket
from agents.skull_king.rule_card import strong_cards
from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, LAY_UP_OFFSET, NUM_PLAY_ACTIONS, PLAY_OFFSET
from pirate_envs.lucky_pirate.cards import MAX_COPIES, MAX_UP_DOWN
from pirate_envs.piraten_kapern.rules import SEA_BATTLES, SKULL, card_skulls
from pirate_envs.piratenpoker.engine import Phase as PokerPhase
from pirate_envs.skull_king.actions import CARD_OFFSET
from pirate_envs.skull_king.engine import Phase as SkullKingPhase
from pirate_envs.skull_king.rules import winner_of_tokens

#: Skull King hand sizes named together when bidding: (largest hand of the band, its words).
HAND_BANDS = ((3, "1-3 cards"), (6, "4-6 cards"), (10, "7-10 cards"))
#: Lucky Pirate pile values named together: (largest value of the band, its words).
PILE_BANDS = (
    (0, "an empty pile"),
    (4, "a pile of value 1-4"),
    (7, "a pile of value 5-7"),
    (10, "a pile of value 8-10"),
)
#: Kapern's cards that change how far a turn is pushed, named alone (Sea Battles by their sabres).
KAPERN_CARDS = {"treasure_chest": "Treasure Chest", "sorceress": "Sorceress", "storm": "Storm", "peace": "Peace"}
#: The other cards (Captain, Gold, Diamond, Monkey Business, skull cards), named together.
PLAIN_CARD = "another card"
#: Piratenpoker's rounds in words (`TableView.round`).
POKER_ROUNDS = ("overboard round", "below-deck round", "loot round")


def _band(value: int, bands: tuple[tuple[int, str], ...]) -> str:
    return next((words for high, words in bands if value <= high), bands[-1][1])


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def skull_king_situation(view: Any, legal: np.ndarray) -> str:
    """Bidding by hand size and strong cards; else leading or following by where the bid stands."""
    if view.phase == SkullKingPhase.BID:
        strong = strong_cards(view)
        held = "no strong card" if strong == 0 else ("1 strong card" if strong == 1 else "2+ strong cards")
        return f"bidding with {_band(view.hand_number, HAND_BANDS)}, {held}"
    bid, won = int(view.bids[view.seat]), int(view.tricks_won[view.seat])
    if bid == 0 and won == 0:
        stands = "a bid of 0 still clean"
    elif won < bid:
        stands = "your bid still needs tricks"
    elif won == bid:
        stands = "your bid made (no more tricks wanted)"
    else:
        stands = "your bid already over"
    if not view.trick:
        return f"leading, {stands}"
    trick = list(view.trick)
    can_win = any(winner_of_tokens([*trick, int(a) - CARD_OFFSET]) == len(trick) for a in legal if a >= CARD_OFFSET)
    return f"following {'and able' if can_win else 'unable'} to take the trick, {stands}"


def kapern_situation(view: Any, legal: np.ndarray) -> str:
    """The fortune card's kind, skulls showing (the card's included) and points at risk (stopping's score)."""
    card = view.card
    kind = f"Sea Battle ({SEA_BATTLES[card][0]} sabres)" if card in SEA_BATTLES else KAPERN_CARDS.get(card, PLAIN_CARD)
    skulls = int(view.showing[SKULL]) + card_skulls(card)
    return f"{kind}, {_plural(skulls, 'skull')} showing, {risk_bucket(view.turn_points)} points at risk"


def piratenpoker_situation(view: Any, legal: np.ndarray) -> str:
    """The round and the decision: starting a bid, adding to or ending it, or the round winner's choices."""
    table = view.table
    round_words = POKER_ROUNDS[table.round]
    if table.phase == PokerPhase.BID:
        if view.bid.sum() == 0:
            what = "starting your bid, Pass in hand" if view.pass_available else "starting your bid, Pass spent"
        else:
            what = "adding to or ending your bid"
    elif table.phase == PokerPhase.PICK_LOOT:
        what = "as winner, choosing the loot card"
    elif table.phase == PokerPhase.GIFT:
        what = "as winner, giving or keeping negative cards"
    else:
        what = "as winner, choosing who gets the loot card"
    return f"{round_words}: {what}"


def lucky_pirate_situation(view: Any, legal: np.ndarray) -> str:
    """What the seat may play (numbers, special cards, blind down cards) by the pile's value band."""
    if view.setting_up or any(a >= LAY_UP_OFFSET for a in legal):
        return "choosing cards to lay face up"
    kinds = {(int(a) - PLAY_OFFSET) // MAX_COPIES for a in legal if PLAY_OFFSET <= a < PLAY_OFFSET + NUM_PLAY_ACTIONS}
    numbers = any(k in kinds for k in NUMBERS_LOW_TO_HIGH)
    specials = any(k in kinds for k in SPECIALS_CHEAPEST_FIRST)
    if numbers and specials:
        what = "a number or a special card to play"
    elif numbers:
        what = "only numbers to play"
    elif specials:
        what = "no number to play, a special card you may"
    else:
        what = "only a blind down card or picking up"
    return f"{what}, {_band(int(view.pile_value), PILE_BANDS)}"


#: Each game's situation function ``(view, legal actions) -> phrase``.
SITUATIONS: dict[str, Callable[[Any, np.ndarray], str]] = {
    "skull_king_v0": skull_king_situation,
    "piraten_kapern_v0": kapern_situation,
    "piratenpoker_v0": piratenpoker_situation,
    "lucky_pirate_v0": lucky_pirate_situation,
}


#: How each game's situations are named, for the page.
NOTES = {
    "skull_king_v0": "Situations: bidding by the cards dealt and the strong cards held (the Skull King, Pirates, "
    "Mermaids, black 10+, coloured 12+); playing by leading or following (and whether a legal card takes the "
    "trick as it stands) and where your bid stands.",
    "piraten_kapern_v0": "Situations: the fortune card (another card: the Captain, Gold, Diamond, Monkey Business "
    "or a skull card), the skulls showing (the card's included) and the points at risk (what stopping scores now).",
    "piratenpoker_v0": "Situations: the round and the decision (starting a bid with the Pass in hand or spent, "
    "adding to or ending it, or the round winner's choices).",
    "lucky_pirate_v0": "Situations: what you may play (numbers, special cards, both) and the pile's value; a "
    "choice among blind down cards only is none (you cannot tell them apart) and is not counted.",
}


def _blind_down_cards(legal: np.ndarray) -> bool:
    return all(DOWN_OFFSET <= a < DOWN_OFFSET + MAX_UP_DOWN for a in legal)


#: Per game, whether a set of legal moves is all alike to the seat (Lucky Pirate's blind down cards).
ALIKE: dict[str, Callable[[np.ndarray], bool]] = {"lucky_pirate_v0": _blind_down_cards}


def interchangeable(env_id: str, legal: np.ndarray) -> bool:
    """Whether the legal moves are all alike to the seat, so no choice at all (`ALIKE`)."""
    alike = ALIKE.get(env_id)
    return alike is not None and alike(legal)


def situation(env_id: str, view: Any, legal: np.ndarray) -> str:
    """The situation of a decision of ``env_id`` in words (``KeyError`` for a game without situations)."""
    return SITUATIONS[env_id](view, legal)


__all__ = ["ALIKE", "NOTES", "SITUATIONS", "interchangeable", "situation"]
