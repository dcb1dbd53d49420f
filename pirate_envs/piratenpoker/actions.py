"""Piratenpoker action table: build a bid card by card, pass, and the round winner's choices.

* ``add``: one per poker kind: move one card of that kind from the hand into the own bid.
* ``commit``: end the bid (legal once it holds a card); ``pass``: play the Pass card instead.
* ``loot``: one per colour: the loot card going overboard (round 1) or below deck (round 2).
* ``give`` / ``keep``: the round-2 winner gives one displayed negative card, or keeps them.
* ``recipient``: who receives the pending loot card, relative to the chooser (``to self``,
  ``to seat +r``: r seats further in play order).
"""

from __future__ import annotations

from pirate_envs.core.actions import ActionTable
from pirate_envs.piratenpoker.cards import COLOURS, DISPLAYED_NAMES, NEGATIVE_KINDS, POKER_NAMES
from pirate_envs.piratenpoker.rules import MAX_PLAYERS

ACTIONS = ActionTable(
    [
        ("add", [f"bid {name}" for name in POKER_NAMES]),
        ("commit", ["commit bid"]),
        ("pass", ["pass"]),
        ("loot", [f"choose {c} loot" for c in COLOURS]),
        ("give", [f"give {DISPLAYED_NAMES[k]}" for k in NEGATIVE_KINDS]),
        ("keep", ["keep negatives"]),
        ("recipient", ["to self"] + [f"to seat +{r}" for r in range(1, MAX_PLAYERS)]),
    ]
)
NUM_ACTIONS = len(ACTIONS)
ADD = ACTIONS.offset("add")
COMMIT = ACTIONS.offset("commit")
PASS = ACTIONS.offset("pass")
LOOT = ACTIONS.offset("loot")
GIVE = ACTIONS.offset("give")
KEEP = ACTIONS.offset("keep")
RECIPIENT = ACTIONS.offset("recipient")
