"""Pig's rules engine: the ``Config``, and `PigEngine`, one roll-or-hold decision at a time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from examples.pig.actions import ACTIONS, HOLD, ROLL
from examples.pig.rules import DIE_FACES, MAX_PLAYERS, MIN_PLAYERS, after_roll, has_won
from examples.pig.view import View
from pirate_envs.core.chance import Chance, as_chance
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.engine import TurnGuard, check_options, read_only
from pirate_envs.core.errors import check_range

#: The turn guard's default: far beyond any game to the default target.
DEFAULT_MAX_TURNS = 10_000

_ROLL_ONLY = read_only(np.array([1, 0], dtype=np.int8))
_ROLL_OR_HOLD = read_only(np.array([1, 1], dtype=np.int8))
assert len(ACTIONS) == 2 and (ROLL, HOLD) == (0, 1)


@dataclass(frozen=True)
class Config:
    """Pig's settings: the table size, the score that wins, and the turn guard."""

    num_players: int = 2
    target_score: int = 100
    max_turns: int = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_range("target_score", self.target_score, 1)
        check_range("max_turns", self.max_turns, 1)


class PigEngine(BaseEngine):
    """Pig: roll to add to the turn total (a 1 loses it and ends the turn) or hold to bank it."""

    ACTIONS = ACTIONS
    RESET_OPTIONS: ClassVar[Mapping[str, str]] = {}

    def __init__(self, config: Config):
        self.config = config
        self.num_players = config.num_players
        self.events = None

    def reset(self, rng: Chance | np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        check_options(options, self.RESET_OPTIONS)
        self.chance = self.start_chance(rng)
        self.bank = [0] * self.num_players
        self.turn_total = 0
        self.rolls = 0
        self.last_roll = 0
        self.current_player = 0
        self.winner: int | None = None
        self.terminated = self.truncated = False
        self.guard = TurnGuard(self.config.max_turns)

    def legal_mask(self) -> np.ndarray:
        return _ROLL_OR_HOLD if self.turn_total > 0 else _ROLL_ONLY

    def apply(self, action: int) -> None:
        if action == ROLL:
            self.last_roll = self.chance.integers(1, DIE_FACES + 1)
            self.rolls += 1
            total = after_roll(self.turn_total, self.last_roll)
            if total is not None:
                self.turn_total = total
                return
        else:
            seat = self.current_player
            self.bank[seat] += self.turn_total
            if has_won(self.bank[seat], self.config.target_score):
                self.winner, self.terminated, self.turn_total = seat, True, 0
                return
        self._next_turn()

    def _next_turn(self) -> None:
        self.turn_total = self.rolls = 0
        self.current_player = (self.current_player + 1) % self.num_players
        self.truncated = self.guard.tick()

    def scores(self) -> np.ndarray:
        return np.array(self.bank, dtype=np.float64)

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def view(self, seat: int) -> View:
        return View(seat, self.num_players, self.current_player, tuple(self.bank), self.turn_total, self.rolls,
                    self.last_roll, self.config.target_score, tuple(self.winners()), self.done)  # fmt: skip

    def resample_hidden(self, seat: int, rng: Chance | np.random.Generator) -> None:
        """Nothing is hidden: only the future rolls are redrawn, from ``rng`` (the game's new source)."""
        self.chance = as_chance(rng)

    def check_invariants(self) -> None:
        target = self.config.target_score
        assert self.turn_total >= 0 and all(score >= 0 for score in self.bank), (self.turn_total, self.bank)
        assert all(score < target for seat, score in enumerate(self.bank) if seat != self.winner), self.bank
        assert self.rolls > 0 or self.turn_total == 0, (self.rolls, self.turn_total)

    def render(self) -> str:
        lines = [f"Pig: first to {self.config.target_score}"]
        for seat, score in enumerate(self.bank):
            mark = ">" if seat == self.current_player and not self.done else " "
            lines.append(f"{mark} player_{seat}: {score}")
        lines.append(f"turn total {self.turn_total} after {self.rolls} rolls; last roll {self.last_roll or '-'}")
        if self.done:
            lines.append("game over: " + (f"player_{self.winner} wins" if self.winner is not None else "turn limit"))
        return "\n".join(lines)


Engine = PigEngine

__all__ = ["DEFAULT_MAX_TURNS", "Config", "Engine", "PigEngine"]
