"""Pig (``pig_v0``): the example game, a press-your-luck race with one die.

Rules summary
-------------
2 to 6 players take turns. On your turn you roll one die as often as you like, adding each
face to your turn total; a 1 loses the turn total and ends your turn. Hold instead and the
turn total is added to your score and the turn passes. The first player whose score reaches
the target (100) wins at once.

Arguments
---------
* ``num_players`` (2): 2..6.
* ``target_score`` (100): the score that wins (small for quick tests).
* ``max_turns`` (10,000): the turn guard; reaching it truncates the game.
* ``reward_mode``, ``render_mode``: as every env (`pirate_envs.core.aec.PirateAECEnv`).

Observation
-----------
| index | name | shape | meaning |
|---|---|---|---|
| 0-1 | on_turn | (2,) | one-hot: player on turn, seat-relative (index 0 = me) |
| 2-3 | scores | (2,) | banked scores / target score (at most 1), seat-relative |
| 4 | turn_total | (1,) | the turn total / target score (at most 1) |
| 5-10 | last_roll | (6,) | one-hot: the face last rolled (all zero before the first roll) |

(the 2-player table; per-player pieces have one entry per seat.)

Actions
-------
| action | meaning |
|---|---|
| 0 | roll |
| 1 | hold |

Rewards: ``"win"``: +1 to the winner, -1 to the others; ``"score"``: each banked point / 100.

Assumptions
-----------
* *assumption*: the first roll of a turn is compulsory (hold is legal only with a turn total),
  so no turn passes without a roll.
* Seat 0 takes the first turn.

Version history
---------------
v0: first release.
"""

from __future__ import annotations

from examples.pig.engine import Config, PigEngine
from examples.pig.observation import Encoder, build_layout
from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv

SCORE_SCALE = 1.0 / 100.0


class raw_env(PirateAECEnv):
    """Pig as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "pig_v0"}
    CONFIG = Config
    ENGINE = PigEngine
    SCORE_SCALE = SCORE_SCALE

    def make_encoder(self) -> ObservationEncoder:
        return Encoder(build_layout(self.config.num_players))
