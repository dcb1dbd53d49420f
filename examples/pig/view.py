"""What one Pig player knows: everything (a perfect-information game; only the future rolls are unknown)."""

from __future__ import annotations

from typing import NamedTuple


class View(NamedTuple):
    """One seat's view of the game (absolute seats; the encoder makes them seat-relative)."""

    seat: int
    num_players: int
    current_player: int
    scores: tuple[int, ...]  # banked scores
    turn_total: int  # what the player on turn banks if he holds now
    rolls: int  # rolls made this turn
    last_roll: int  # the face last rolled in the game (0: none yet)
    target_score: int
    winners: tuple[int, ...]  # the winner once the game is over
    over: bool  # the game has ended (won, or stopped by the turn guard)

    @property
    def my_turn(self) -> bool:
        """Whether the viewer is the player on turn."""
        return self.seat == self.current_player


__all__ = ["View"]
