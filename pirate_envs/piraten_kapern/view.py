"""What one Piraten Kapern player knows: everything on the table, nothing of the future.

The dice, the card in play and the scores are public; the order of the fortune deck and the
dice to come are hidden (only the counts of cards left in the deck are known, since the
discards are face up).
"""

from __future__ import annotations

from typing import NamedTuple


class View(NamedTuple):
    """One seat's view of the game (absolute seats; the encoder makes them seat-relative).

    A named tuple: immutable and cheap to build on every observation.
    """

    seat: int
    num_players: int
    current_player: int
    phase: str
    card: str
    free: tuple[int, ...]  # dice not on the chest, counts per face
    chest: tuple[int, ...]  # dice on the Treasure Chest, counts per face
    rolls: int  # rolls made this turn, the first included
    sorceress_used: bool
    island: bool
    island_skulls: int
    chest_moves: int
    turn_points: int  # what the player on turn scores if he stops now
    scores: tuple[int, ...]
    final_trigger: int | None
    final_turns_left: tuple[bool, ...]
    deck_counts: tuple[int, ...]  # fortune cards of each kind left in the deck
    target_score: int

    @property
    def my_turn(self) -> bool:
        """Whether the viewer is the player on turn."""
        return self.seat == self.current_player

    @property
    def showing(self) -> tuple[int, ...]:
        """Counts per face of all the dice (free and on the chest)."""
        return tuple(a + b for a, b in zip(self.free, self.chest))
