"""The contract between a game's rules engine and the shared AEC environment.

A rules engine holds the full state of one game, knows whose decision it is, which actions
are legal and how to apply one. It imports no gymnasium or pettingzoo. The AEC adapter
(``pirate_envs.core.aec``) is written once against this contract.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pirate_envs.core.actions import ActionFeatures, ActionTable
from pirate_envs.core.errors import check_mapping


def read_only(array: np.ndarray) -> np.ndarray:
    """``array`` itself, marked read-only (for arrays shared between states or handed out)."""
    array.flags.writeable = False
    return array


@dataclass
class TurnGuard:
    """Counts turns and says when a configurable limit is reached (the anti-loop guard)."""

    limit: int
    turns: int = 0

    def tick(self) -> bool:
        """Count one turn; ``True`` once the limit is reached."""
        self.turns += 1
        return self.turns >= self.limit

    @property
    def reached(self) -> bool:
        """Whether the limit has been reached."""
        return self.turns >= self.limit


class Engine(ABC):
    """Base class of a game's rules engine.

    Subclasses set the class attributes, build their state in ``reset`` from the generator
    they are given (the only source of randomness) and keep ``current_player``,
    ``terminated`` and ``truncated`` up to date.
    """

    #: The game's action table (one ``Discrete`` space for every seat).
    ACTIONS: ClassVar[ActionTable]
    #: Optional fixed features of every action (``None``: the game defines none).
    ACTION_FEATURES: ClassVar[ActionFeatures | None] = None
    #: Reset options the engine understands, with a one-line description each.
    RESET_OPTIONS: ClassVar[Mapping[str, str]] = {}
    #: Whether the rules allow endless forced play (every move forced, nobody progresses): such
    #: a game relies on its turn guard, and the env docstring says how often it truncates.
    CAN_CYCLE: ClassVar[bool] = False

    num_players: int
    current_player: int = 0
    terminated: bool = False
    truncated: bool = False
    #: Why ``truncated`` was set where a game can tell more than its turn guard (else ``None``).
    truncation_reason: str | None = None

    @abstractmethod
    def reset(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        """Start a new game (``options`` are checked against ``RESET_OPTIONS``)."""

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """``int8`` mask over ``ACTIONS`` for ``current_player``.

        The adapter marks it read-only and hands it to the agents as is, so the engine must
        not write to it later; equal states may share one array.
        """

    @abstractmethod
    def apply(self, action: int) -> None:
        """Apply a legal action of ``current_player`` (callers check legality first)."""

    @abstractmethod
    def scores(self) -> np.ndarray:
        """Every seat's game score so far (``float64``), the basis of score-mode rewards."""

    @abstractmethod
    def winners(self) -> list[int]:
        """Seats that won the finished game (several on a shared win)."""

    @abstractmethod
    def view(self, seat: int) -> Any:
        """An immutable record of what ``seat`` knows now."""

    @abstractmethod
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        """Redraw everything ``seat`` cannot see (other hands, deck order, future dice)."""

    @abstractmethod
    def render(self) -> str:
        """A readable multi-line description of the full state."""

    @property
    def done(self) -> bool:
        """Whether the game has ended (terminated or truncated)."""
        return self.terminated or self.truncated

    def legal_actions(self) -> list[int]:
        """Legal actions of ``current_player`` as a list."""
        return np.flatnonzero(self.legal_mask()).tolist()


def check_options(options: Mapping[str, Any] | None, allowed: Mapping[str, str]) -> dict[str, Any]:
    """Return ``options`` as a dict; ``TypeError`` unless a mapping or ``None``, ``ValueError`` naming the valid keys.

    One unknown option is accepted, as no option at all: exactly ``{"options": 1}``, the probe
    with which PettingZoo's ``api_test`` checks that ``reset`` takes ``options``. Accepting that
    one probe lets PettingZoo's unmodified test run on the envs as any user would run it; every
    other unknown key or value (``{"options": 2}``, ``{"options": {...}}``, the probe beside
    another key) is refused.
    """
    options = check_mapping("options", options)
    probe = options.get("options")
    if len(options) == 1 and type(probe) is int and probe == 1 and "options" not in allowed:
        return {}  # PettingZoo api_test's probe {"options": 1}: no option
    unknown = sorted((key for key in options if key not in allowed), key=repr)
    if unknown:
        valid = list(allowed) or "none"
        raise ValueError(f"unknown reset option(s) {unknown}; valid options: {valid}")
    return options
