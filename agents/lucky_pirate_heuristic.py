"""An honest Lucky Pirate heuristic: it reads only its view and the action mask.

* Sheds its First Mates whenever one is legal (only on a Captain, a rare chance).
* Otherwise plays its lowest legal plain number (1..8, Kraken 10), all the copies it may, so sets and
  runs of three leave its hand together.
* Keeps the special cards for when it is stuck: with no number to play it spends one special,
  the cheapest first (Porthole, Skip, Reverse, Mermaid, Parrot, First Mate, Walk the Plank,
  Captain).
* Empties its hand before using up cards (the rules force that order: the mask only offers
  the current source) and turns its down cards over from the first slot on.
* Picks up the pile only when nothing else is legal.
* Set-up (option ``choose_up_cards``): lays its strongest cards face up (they come into play
  late, when it most needs them): clearing and wild cards first, then high numbers.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, LAY_UP_OFFSET, NUM_PLAY_ACTIONS, PICK_UP, play_action
from pirate_envs.lucky_pirate.cards import (
    CAPTAIN,
    FIRST_MATE,
    KRAKEN,
    MAX_COPIES,
    MERMAID,
    NUMBER_CARDS,
    PARROT,
    PORTHOLE,
    REVERSE,
    SKIP,
    WALK_THE_PLANK,
)
from pirate_envs.lucky_pirate.view import LuckyPirateView

#: Plain numbers, lowest first.
NUMBERS_LOW_TO_HIGH = (*range(len(NUMBER_CARDS)), KRAKEN)
#: Special cards, cheapest to give up first.
SPECIALS_CHEAPEST_FIRST = (PORTHOLE, SKIP, REVERSE, MERMAID, PARROT, FIRST_MATE, WALK_THE_PLANK, CAPTAIN)
#: Set-up: the cards laid face up first (the strongest).
LAY_UP_FIRST = (
    WALK_THE_PLANK,
    CAPTAIN,
    KRAKEN,
    PARROT,
    MERMAID,
    PORTHOLE,
    *reversed(range(len(NUMBER_CARDS))),
    SKIP,
    REVERSE,
    FIRST_MATE,
)


class LuckyPirateHeuristic:
    """Lowest numbers first, specials only when stuck (see the module docstring)."""

    name = "lucky_pirate_heuristic"

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the heuristic is deterministic."""

    def act(self, observation: dict[str, np.ndarray], view: LuckyPirateView) -> int:
        mask = observation["action_mask"]
        for kind in LAY_UP_FIRST:
            if mask[LAY_UP_OFFSET + kind]:
                return LAY_UP_OFFSET + kind
        # plays[kind, count - 1]: that set is legal
        plays = mask[:NUM_PLAY_ACTIONS].reshape(-1, MAX_COPIES)
        for kind in (FIRST_MATE, *NUMBERS_LOW_TO_HIGH):
            legal_counts = np.flatnonzero(plays[kind])
            if legal_counts.size:
                return play_action(kind, int(legal_counts[-1]) + 1)
        for kind in SPECIALS_CHEAPEST_FIRST:
            if plays[kind, 0]:
                return play_action(kind, 1)
        down = np.flatnonzero(mask[DOWN_OFFSET:PICK_UP])
        if down.size:
            return DOWN_OFFSET + int(down[0])
        if mask[PICK_UP]:
            return PICK_UP
        raise ValueError(f"no legal action in the mask for seat {view.seat}: is it this agent's turn?")
