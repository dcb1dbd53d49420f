"""An honest Lucky Pirate heuristic: it reads only its view and its observation (vector and mask).

* Plays its lowest legal number (1..8, the First Mate as a 9, the Kraken as a 10), all the
  copies it may, so sets and runs of three leave its hand together.
* Keeps the special cards for when it is stuck: with no number to play it spends one special,
  the cheapest first (Porthole, Skip, Reverse, Mermaid, Parrot, Walk the Plank, Captain).
* Empties its hand before using up cards (the rules force that order: the mask only offers
  the current source) and turns its down cards over from the first slot on.
* Picks up the pile only when nothing else is legal.
* Makes progress: two deterministic players can repeat the same positions for ever. It
  remembers the positions it has seen (what its default observation vector holds: `position_key`;
  the options ``observe_known`` and ``observe_pile`` leave it unchanged) and, on a position seen
  before, plays a random legal action instead (seeded by ``reset(seed)``), which breaks the
  loop. The memory is cleared at ``reset`` and when it grows past ``MAX_REMEMBERED``.
* Set-up (option ``choose_up_cards``): lays its strongest cards face up (they come into play
  late, when it most needs them): clearing and wild cards first, then high numbers.
"""

from __future__ import annotations

import random

import numpy as np

from agents.base import sample_legal
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
from pirate_envs.lucky_pirate.view import View

#: Plain numbers, lowest first (the First Mate is a 9).
NUMBERS_LOW_TO_HIGH = (*range(len(NUMBER_CARDS)), FIRST_MATE, KRAKEN)
#: Special cards, cheapest to give up first.
SPECIALS_CHEAPEST_FIRST = (PORTHOLE, SKIP, REVERSE, MERMAID, PARROT, WALK_THE_PLANK, CAPTAIN)
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
#: Positions remembered before the memory is cleared (a long game stays well below it).
MAX_REMEMBERED = 20_000


def position_key(view: View) -> tuple[object, ...]:
    """The seat and what the default observation vector holds of ``view``, field by field: two views
    have the same key exactly when their seat and default observation vectors agree. The observation
    options ``observe_known`` and ``observe_pile`` do not change it, so the heuristic plays alike with
    and without them."""
    return (
        view.seat,
        view.hand.tobytes(),
        view.table.tobytes(),
        view.removed.tobytes(),
        view.down_slots,
        view.pile_top,
        view.pile_size,
        view.pile_value,
        int(view.pile_mode),
        view.run_kind,
        view.run_length,
        view.direction,
        view.setting_up,
        view.to_play,
    )


class LuckyPirateHeuristic:
    """Lowest numbers first, specials only when stuck, a random move on a repeated position."""

    name = "lucky_pirate_heuristic"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self._seen: set[tuple[object, ...]] = set()

    def reset(self, seed: int | None = None) -> None:
        """Forget the positions seen; ``seed`` reseeds the choices on repeated positions."""
        if seed is not None:
            self.rng = random.Random(seed)
        self._seen.clear()

    def act(self, observation: dict[str, np.ndarray], view: View) -> int:
        mask = observation["action_mask"]
        if self._repeated(view) and np.count_nonzero(mask) > 1:
            return sample_legal(mask, self.rng)
        return self.preferred(mask, view)

    def _repeated(self, view: View) -> bool:
        """Whether this seat has seen this position before (and remember it)."""
        seen = self._seen
        if len(seen) >= MAX_REMEMBERED:
            seen.clear()
        position = position_key(view)
        if position in seen:
            return True
        seen.add(position)
        return False

    @staticmethod
    def preferred(mask: np.ndarray, view: View) -> int:
        """The heuristic's deterministic choice (see the module docstring)."""
        for kind in LAY_UP_FIRST:
            if mask[LAY_UP_OFFSET + kind]:
                return LAY_UP_OFFSET + kind
        # plays[kind, count - 1]: that set is legal
        plays = mask[:NUM_PLAY_ACTIONS].reshape(-1, MAX_COPIES)
        for kind in NUMBERS_LOW_TO_HIGH:
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
