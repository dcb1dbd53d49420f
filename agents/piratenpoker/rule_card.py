"""Piratenpoker's rule-card vocabulary: features of the bid, the hand and the table; moves in words.

Bidding moves add one card (the cheapest, the highest, or the highest of the loot's colour),
end the bid or pass; the round winner's choices (loot, gift, recipient) are the heuristic's
(`agents.piratenpoker.heuristic`), named as such.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.piratenpoker.heuristic import CHEAP_VALUE, PiratenpokerHeuristic
from agents.rules.vocabulary import Choice, Feature, Vocabulary, agent_choice
from pirate_envs.piratenpoker.actions import ADD, COMMIT, NUM_ACTIONS, PASS
from pirate_envs.piratenpoker.cards import KIND_COLOUR, KIND_VALUE, NUM_COLOURS
from pirate_envs.piratenpoker.engine import LOOT_ROUND, Phase

FLAG = "flag"
_VALUES = np.array(KIND_VALUE)


def _bidding(v: Any) -> bool:
    return v.table.phase == Phase.BID


def _loot_colour(v: Any) -> int:
    if v.table.round != LOOT_ROUND:
        return -1
    return next((c for c in range(NUM_COLOURS) if v.table.face_up[c] >= 0), -1)


def _lead(v: Any) -> float:
    scores = v.table.scores
    return float(scores[v.seat] - max(s for seat, s in enumerate(scores) if seat != v.seat))


def _add(pick: Any) -> Any:
    def choose(v: Any, legal: np.ndarray) -> int | None:
        kinds = [k for k in np.flatnonzero(v.hand) if ADD + k in legal]
        if not _bidding(v) or not kinds:
            return None
        kind = pick(v, kinds)
        return None if kind is None else ADD + int(kind)

    return choose


def _highest_of_loot(v: Any, kinds: list[int]) -> int | None:
    colour = _loot_colour(v)
    mine = [k for k in kinds if KIND_COLOUR[k] == colour]
    return max(mine, key=KIND_VALUE.__getitem__) if mine else None


FEATURES = (
    Feature("bidding", "you are bidding", lambda v, legal: float(_bidding(v)), FLAG, "you won the round and choose"),
    Feature("round", "the round (0 overboard, 1 below deck, 2 loot)", lambda v, legal: v.table.round),
    Feature("bid_cards", "cards in your bid", lambda v, legal: int(v.bid.sum())),
    Feature("bid_value", "the value of your bid", lambda v, legal: float(_VALUES @ v.bid)),
    Feature("hand_cards", "cards in your hand", lambda v, legal: int(v.hand.sum())),
    Feature(
        "cheap",
        f"cheap cards (value {CHEAP_VALUE} or less) in your hand",
        lambda v, legal: int(v.hand[_VALUES <= CHEAP_VALUE].sum()),
    ),
    Feature("high", "cards of value 5 or more in your hand", lambda v, legal: int(v.hand[_VALUES >= 5].sum())),
    Feature(
        "loot_colour_cards",
        "cards of the loot's colour in your hand (round 2)",
        lambda v, legal: int(sum(v.hand[k] for k in range(len(KIND_COLOUR)) if KIND_COLOUR[k] == _loot_colour(v))),
    ),
    Feature(
        "pass_left",
        "your Pass is still available",
        lambda v, legal: float(v.pass_available),
        FLAG,
        "your Pass is spent",
    ),
    Feature("lead", "your score less the best other score", lambda v, legal: _lead(v), "number"),
)

CHOICES = (
    agent_choice(
        "heuristic",
        "do as the simple heuristic: bid cheap cards (or pass) in rounds 0 and 1, in the loot round the loot's colour, "
        "cheap cards and high cards up to 10 + the loot's worth; as round winner keep sharks, send negative cards to "
        "the leader",
        PiratenpokerHeuristic(),
        NUM_ACTIONS,
    ),
    Choice("commit", "end your bid", lambda v, legal: COMMIT if _bidding(v) else None),
    Choice("pass", "play your Pass", lambda v, legal: PASS if _bidding(v) else None),
    Choice(
        "add_cheapest", "add your cheapest card to the bid", _add(lambda v, ks: min(ks, key=KIND_VALUE.__getitem__))
    ),
    Choice("add_highest", "add your highest card to the bid", _add(lambda v, ks: max(ks, key=KIND_VALUE.__getitem__))),
    Choice("add_loot_colour", "add your highest card of the loot's colour to the bid", _add(_highest_of_loot)),
)

VOCABULARY = Vocabulary("piratenpoker_v0", FEATURES, CHOICES, fallback="heuristic", players=4)

__all__ = ["VOCABULARY"]
