"""Piraten Kapern's advice: when to stop and when to roll again, read from the observation and
measured by intervention (`agents.analysis.advice`). Action 0 stops; the others re-roll or move
dice to and from the Treasure Chest (the rules below treat every move but stopping as "rolling on").

The one-turn oracle maximises a turn's points; the race to the target (`agents.piraten_kapern.race`)
plays differently near the end: far behind it gambles, in the final round only beating the leader
counts. Two rules say so in words, and are measured like the others.

The rules contradict where they overlap ("0-1 skulls, roll again" beside "2,000+ at stake, stop"), so
`ADVICE` is their precedence: a player checks them in this order and the first that applies decides,
the narrower before the broader (the last turn, a Sea Battle, the race, then the skull counts).
"""

from __future__ import annotations

import numpy as np

from agents.analysis.advice.findings import AdvicePlan
from agents.analysis.advice.outcome import Outcome
from agents.analysis.advice.rules import Rule, piece
from pirate_envs.piraten_kapern.engine import DEFAULT_TARGET
from pirate_envs.piraten_kapern.observation import POINTS_SCALE
from pirate_envs.piraten_kapern.rules import CARDS, NUM_DICE, SABRE, SEA_BATTLES

STOP = 0
#: The target score in the observation's units (scores are given as a fraction of the target, 6,000
#: in the base game the plan plays).
TARGET = 1.0


#: The sabres each fortune card's Sea Battle asks for, by card index (0: not a Sea Battle).
SEA_BATTLE_SABRES = np.array([SEA_BATTLES.get(card, (0, 0))[0] for card in CARDS])


def _sea_battle_short(obs, layout) -> np.ndarray:
    """Rows in a Sea Battle whose dice do not show the sabres it asks for yet."""
    needed = SEA_BATTLE_SABRES[piece(obs, layout, "card").argmax(axis=1)]
    sabres = np.rint((piece(obs, layout, "dice")[:, SABRE] + piece(obs, layout, "chest")[:, SABRE]) * NUM_DICE)
    return (needed > 0) & (sabres < needed)


def _skulls(obs, layout) -> np.ndarray:
    return np.rint(piece(obs, layout, "skulls")[:, 0] * NUM_DICE)


def _normal_roll(obs, layout) -> np.ndarray:
    """Not on the Island of Skulls (there skulls count otherwise)."""
    return piece(obs, layout, "island")[:, 0] < 0.5


def _stop(obs, legal, layout) -> np.ndarray:
    out = np.zeros(legal.shape, dtype=bool)
    out[:, STOP] = True
    return out


def _roll_on(obs, legal, layout) -> np.ndarray:
    return ~_stop(obs, legal, layout)


def _behind_after_stopping(obs, layout, target: float) -> np.ndarray:
    """Rows where the other player's score is at least ``target`` (a fraction of the game's target) and the
    mover's score plus this turn's points would still be below it (two players)."""
    scores = piece(obs, layout, "scores")
    turn = piece(obs, layout, "turn_points")[:, 0] * POINTS_SCALE
    return (scores[:, 1] >= target) & (scores[:, 0] + turn / DEFAULT_TARGET < scores[:, 1])


ADVICE: tuple[Rule, ...] = (
    Rule(
        "final_turn_never_stop_behind",
        "On your last turn (the other player has reached 6,000), never stop while your total would not beat theirs.",
        lambda obs, legal, layout: (
            (piece(obs, layout, "final_round")[:, 0] > 0.5) & _behind_after_stopping(obs, layout, TARGET)
        ),
        _roll_on,
    ),
    Rule(
        "sea_battle_roll_on",
        "In a Sea Battle, roll again until you show the sabres it asks for: stopping short loses its points anyway.",
        lambda obs, legal, layout: _normal_roll(obs, layout) & _sea_battle_short(obs, layout),
        _roll_on,
    ),
    Rule(
        "gamble_when_trailing_late",
        "Near the end (the other player at 5,000 or more) and still behind with this turn's points, "
        "roll again even on two skulls.",
        lambda obs, legal, layout: (
            _normal_roll(obs, layout) & (_skulls(obs, layout) == 2) & _behind_after_stopping(obs, layout, 5 / 6)
        ),
        _roll_on,
    ),
    Rule(
        "roll_on_two_skulls_little_at_stake",
        "With two skulls showing and under 300 points at stake, roll again: there is little to lose.",
        lambda obs, legal, layout: (
            _normal_roll(obs, layout)
            & (_skulls(obs, layout) == 2)
            & (piece(obs, layout, "turn_points")[:, 0] * POINTS_SCALE < 300)
        ),
        _roll_on,
    ),
    Rule(
        "stop_on_two_skulls",
        "With two skulls showing, stop and bank your points.",
        lambda obs, legal, layout: _normal_roll(obs, layout) & (_skulls(obs, layout) == 2),
        _stop,
    ),
    Rule(
        "bank_a_big_turn",
        "With 2,000 points or more at stake, stop, even with no skull or one.",
        lambda obs, legal, layout: (
            _normal_roll(obs, layout)
            & (_skulls(obs, layout) <= 1)
            & (piece(obs, layout, "turn_points")[:, 0] * POINTS_SCALE >= 2000)
        ),
        _stop,
    ),
    Rule(
        "roll_on_low_skulls",
        "With no skull or one skull showing, roll again.",
        lambda obs, legal, layout: _normal_roll(obs, layout) & (_skulls(obs, layout) <= 1),
        _roll_on,
    ),
)

#: Who plays the interventions: the network WITH/WITHOUT each rule against itself (two players).
PLAN = AdvicePlan(
    "ppo:piraten_kapern_v0",
    "ppo:piraten_kapern_v0",
    5_000,
    "The network, like the oracle it is distilled from, plays each turn for its points. Winning is a race, "
    "and near the end the race's advice differs (`agents.piraten_kapern.race` solves it for two players): on "
    "the last turn only beating the leader counts, so a player behind must roll on where a points-maximiser "
    "stops. Two rules put that in words (`final_turn_never_stop_behind`, `gamble_when_trailing_late`); the "
    "findings below say which of them the games bear out.",
)

#: A decision works when its turn ends with points banked (the turn is not lost to skulls).
OUTCOME = Outcome("turn", "the turn scores", "turn_passes")

__all__ = ["ADVICE", "OUTCOME", "PLAN"]
