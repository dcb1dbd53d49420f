"""Pig's rules as pure helpers: the die, what a roll does to the turn total, who has won.

No game state and no gymnasium or pettingzoo import; the engine uses these, the rule tests trace them.
"""

from __future__ import annotations

#: Faces of the one six-sided die.
DIE_FACES = 6
#: The face that loses the turn total and ends the turn.
BUST_FACE = 1
#: Table sizes.
MIN_PLAYERS = 2
MAX_PLAYERS = 6


def after_roll(turn_total: int, face: int) -> int | None:
    """The turn total after rolling ``face``; ``None`` on a bust (the total is lost, the turn ends)."""
    if not 1 <= face <= DIE_FACES:
        raise ValueError(f"face={face!r} is not a face of the die; expected 1..{DIE_FACES}")
    return None if face == BUST_FACE else turn_total + face


def has_won(score: int, target_score: int) -> bool:
    """Whether a banked ``score`` reaches the target (the game ends at once: that player wins)."""
    return score >= target_score


__all__ = ["BUST_FACE", "DIE_FACES", "MAX_PLAYERS", "MIN_PLAYERS", "after_roll", "has_won"]
