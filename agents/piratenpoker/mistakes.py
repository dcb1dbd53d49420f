"""Piratenpoker's situations for "Where play goes wrong" (`agents.analysis.mistakes`): the round x
starting a bid (Pass in hand or spent), adding to or ending it, or the round winner's choices."""

from __future__ import annotations

from typing import Any

import numpy as np

from pirate_envs.piratenpoker.engine import Phase

#: The rounds in words (`TableView.round`).
ROUNDS = ("overboard round", "below-deck round", "loot round")

NOTE = (
    "Situations: the round and the decision (starting a bid with the Pass in hand or spent, adding to or "
    "ending it, or the round winner's choices)."
)


def situation(view: Any, legal: np.ndarray) -> str:
    """The round and the decision: starting a bid, adding to or ending it, or the round winner's choices."""
    table = view.table
    if table.phase == Phase.BID:
        if view.bid.sum() == 0:
            what = "starting your bid, Pass in hand" if view.pass_available else "starting your bid, Pass spent"
        else:
            what = "adding to or ending your bid"
    elif table.phase == Phase.PICK_LOOT:
        what = "as winner, choosing the loot card"
    elif table.phase == Phase.GIFT:
        what = "as winner, giving or keeping negative cards"
    else:
        what = "as winner, choosing who gets the loot card"
    return f"{ROUNDS[table.round]}: {what}"
