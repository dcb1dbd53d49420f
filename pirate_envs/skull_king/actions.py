"""Skull King action table: the bids, then one action per trick token.

* ``bid``: action ``BID_OFFSET + b`` bids ``b`` tricks (0..``MAX_BID``).
* ``card``: action ``CARD_OFFSET + token`` plays the card of trick token ``token`` (see
  `pirate_envs.skull_king.cards.TOKEN_NAMES`; Scary Mary has two tokens, as Pirate and as Escape).
"""

from __future__ import annotations

from pirate_envs.core.actions import ActionTable
from pirate_envs.skull_king.cards import TOKEN_NAMES

#: Highest bid the action space holds, hence the most hands (and cards per hand) a game may have.
MAX_BID = 10

ACTIONS = ActionTable(
    [
        ("bid", [f"bid {b}" for b in range(MAX_BID + 1)]),
        ("card", [f"play {name}" for name in TOKEN_NAMES]),
    ]
)
NUM_ACTIONS = len(ACTIONS)
BID_OFFSET = ACTIONS.offset("bid")
CARD_OFFSET = ACTIONS.offset("card")

__all__ = ["ACTIONS", "BID_OFFSET", "CARD_OFFSET", "MAX_BID", "NUM_ACTIONS"]
