"""One-step look-ahead in Piraten Kapern: what each move puts at stake, in expectation.

The search (`agents.search.ismcts`) adds moves to its tree best first by these values:

* stop: the points at stake now (``turn_points``; 0 on the Island of Skulls);
* a re-roll: the expected points at stake right after it, over every outcome of the dice
  re-rolled, a bust counted at its value (0, the Sea Battle's loss, the Peace penalty, or the
  Treasure Chest's dice); on the Island of Skulls, the expected skulls it rolls, 100 points each;
* putting a die on the Treasure Chest first (it protects the die, the re-roll after it is
  worth at least as much), taking one off last.

Reads only the mover's `pirate_envs.piraten_kapern.view.View`; the tables are exact dice probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.once import once
from agents.search.ismcts import TURN
from pirate_envs.piraten_kapern.actions import (
    CHEST_PUT_OFFSET,
    CHEST_TAKE_OFFSET,
    REROLL_OFFSET,
    REROLL_VECTORS,
    STOP,
)
from pirate_envs.piraten_kapern.dice import count_vectors, roll_probability
from pirate_envs.piraten_kapern.rules import (
    DISQUALIFYING_SKULLS,
    ISLAND_PENALTY_PER_SKULL,
    NUM_DICE,
    NUM_FACES,
    SKULL,
    card_skulls,
    check_card,
    objects_points,
    score_counts,
)
from pirate_envs.piraten_kapern.view import View

_RADIX = NUM_DICE + 1  # counts per face are 0..8: a multiset's code is its base-9 number
_PLACE = _RADIX ** np.arange(NUM_FACES)
#: The value of a chest move: a put before every re-roll, a take after every other move.
CHEST_PUT_VALUE, CHEST_TAKE_VALUE = np.inf, -np.inf


@once
def _outcomes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every roll of ``n`` dice (counts per face) and its probability."""
    vectors = np.array(count_vectors(n), dtype=np.int64).reshape(-1, NUM_FACES)
    return vectors, np.array([roll_probability(tuple(v)) for v in vectors.tolist()])


@once
def _kept_tables(card: str) -> tuple[dict[int, int], np.ndarray, np.ndarray]:
    """Per kept multiset (0..7 dice, by base-9 code): expected points at stake after re-rolling the rest, P(bust)."""
    check_card(card)
    states = np.array(count_vectors(NUM_DICE), dtype=np.int64)
    state_codes = states @ _PLACE
    order = np.argsort(state_codes)
    points = np.array([score_counts(row, card) for row in states.tolist()], dtype=np.float64)
    busts = (states[:, SKULL] + card_skulls(card) >= DISQUALIFYING_SKULLS).astype(np.float64)
    codes, worth, bust = [], [], []
    for rolled in range(1, NUM_DICE + 1):
        outcomes, probs = _outcomes(rolled)
        kept_codes = np.array(count_vectors(NUM_DICE - rolled), dtype=np.int64).reshape(-1, NUM_FACES) @ _PLACE
        after = kept_codes[:, None] + (outcomes @ _PLACE)[None, :]  # codes add: the eight dice after the roll
        rows = order[np.searchsorted(state_codes[order], after)]
        codes.extend(kept_codes.tolist())
        worth.append(points[rows] @ probs)
        bust.append(busts[rows] @ probs)
    return {code: i for i, code in enumerate(codes)}, np.concatenate(worth), np.concatenate(bust)


def action_values(view: View, actions: Sequence[int]) -> np.ndarray:
    """The one-step value of each of ``actions`` (legal for the player on turn) in ``view``."""
    actions = np.asarray(actions, dtype=np.int64)
    values = np.zeros(len(actions))
    rerolls = (actions >= REROLL_OFFSET) & (actions < CHEST_PUT_OFFSET)
    values[actions == STOP] = 0.0 if view.island else view.turn_points
    values[(actions >= CHEST_PUT_OFFSET) & (actions < CHEST_TAKE_OFFSET)] = CHEST_PUT_VALUE
    values[actions >= CHEST_TAKE_OFFSET] = CHEST_TAKE_VALUE
    if not rerolls.any():
        return values
    taken = REROLL_VECTORS[actions[rerolls] - REROLL_OFFSET]
    if view.island:
        values[rerolls] = taken.sum(axis=1) * ISLAND_PENALTY_PER_SKULL / NUM_FACES
        return values
    index, worth, bust = _kept_tables(view.card)
    codes = (np.array(view.showing) - taken) @ _PLACE
    rows = np.array([index[int(code)] for code in codes])
    protected = objects_points(view.chest, view.card) if view.card == "treasure_chest" else 0
    values[rerolls] = worth[rows] + bust[rows] * protected
    return values


#: The ``mcts`` options of Kapern (`agents.search.ismcts.SearchAgent` keywords; named by the game's spec):
#: rollouts to the end of the turn (a bust changes no score), the tree split by the dice rolled,
#: moves added best first by `action_values`, the last turn played to win, returns relative to
#: the searched position.
SEARCH_OPTIONS: dict[str, Any] = {
    "horizon": TURN,
    "closed_loop": True,
    "widening_values": action_values,
    "win_bonus": 100_000.0,
    "relative_returns": True,
}
