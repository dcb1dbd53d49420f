"""Rolling Piraten Kapern dice fast: one uniform draw per roll from a table of outcomes.

Dice showing the same face are interchangeable, so a roll of ``n`` fair dice is a count
vector over the six faces, multinomially distributed. `ROLL_TABLES` lists, for each
``n``, every count vector with its cumulative probability; a roll is then one
``random()`` and one ``bisect``, about five times cheaper than ``Generator.multinomial``.
The machinery lives in `pirate_envs.core.chance` (the engines roll through their chance
source, `pirate_envs.core.chance.Chance.roll_dice`); this module names it for the game.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pirate_envs.core.chance import SEED_BOUND, DiceRoller, roll_table
from pirate_envs.core.chance import count_vectors as _count_vectors
from pirate_envs.core.chance import roll_probability as roll_probability
from pirate_envs.piraten_kapern.rules import NUM_DICE, NUM_FACES

#: ``roll(n)`` -> counts per face of ``n`` dice (tests script rolls with their own).
DiceSource = Callable[[int], "tuple[int, ...] | list[int]"]


def count_vectors(n: int) -> list[tuple[int, ...]]:
    """Every way ``n`` interchangeable dice can show the six faces, as counts per face.

    The order is that of ``itertools.combinations_with_replacement`` over the faces.
    """
    return _count_vectors(n, NUM_FACES)


#: ``ROLL_TABLES[n] = (count vectors, cumulative probabilities)`` for 0 to 8 dice.
ROLL_TABLES = [roll_table(n, NUM_FACES) for n in range(NUM_DICE + 1)]


def roller(rng: np.random.Generator) -> DiceRoller:
    """A dice source seeded by one draw of ``rng`` (reproducible)."""
    return DiceRoller(int(rng.integers(SEED_BOUND)))


__all__ = ["ROLL_TABLES", "DiceRoller", "DiceSource", "count_vectors", "roll_probability", "roller"]
