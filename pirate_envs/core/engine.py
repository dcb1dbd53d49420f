"""The contract between a game's rules engine and the shared AEC environment.

A rules engine holds the full state of one game, knows whose decision it is, which actions
are legal and how to apply one. It imports no gymnasium or pettingzoo. The AEC adapter
(``pirate_envs.core.aec``) is written once against this contract.

Chance. An engine draws every deal, die and random choice through ``self.chance``, a
`pirate_envs.core.chance.Chance` that ``reset`` sets (`Engine.start_chance`: a ``numpy``
generator is wrapped in a `GeneratorChance`, which makes the very calls the engines always made,
so a seed deals the same game as before). Never ``np.random`` or a generator of its own: tests
script deals and dice with a `ScriptedChance`, a `RecordingChance` reads a game's outcomes back,
and the batched engine's reference twin of a row is the plain engine whose ``pinned_chance`` is
the row's `SplitMix64Stream`. ``resample_hidden(seat, chance)`` takes a chance source or a
generator (`as_chance`): a search hands it a source that draws independently of the order of
the true hidden cards, and plain callers keep passing generators.

Copies. ``clone()`` is an independent copy (stepping one never changes the other) whose chance
source is cloned too, so it draws what the original would (``clone(chance)``: it draws from
``chance`` instead; a search's determinization passes a fresh source). The base implementation copies the
engine's mutable containers (writeable arrays, lists, dicts, sets, non-frozen dataclasses) one
by one and shares the rest (numbers, strings, enums, read-only arrays, frozen configs and
records); an engine holding anything else (views of its own arrays, say) extends it.
"""

from __future__ import annotations

import copy
import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pirate_envs.core.actions import ActionFeatures, ActionTable
from pirate_envs.core.chance import Chance, as_chance
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

    Subclasses set the class attributes, start ``reset`` with ``self.chance =
    self.start_chance(rng)`` and draw only through ``self.chance`` (see the module docstring),
    and keep ``current_player``, ``terminated`` and ``truncated`` up to date.
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
    #: The source every draw comes from (set by ``reset``).
    chance: Chance
    #: A source every ``reset`` starts a copy of, whatever it is given (``None``: the one given).
    #: The batched engine's reference twin of a row pins the row's stream: each reset deals that game.
    pinned_chance: Chance | None = None

    @abstractmethod
    def reset(self, rng: Chance | np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        """Start a new game drawing from ``rng`` (``self.chance = self.start_chance(rng)``; ``options``
        are checked against ``RESET_OPTIONS``)."""

    def start_chance(self, rng: Chance | np.random.Generator) -> Chance:
        """The chance source of a new game: a copy of ``pinned_chance`` if set, else ``rng`` (`as_chance`)."""
        if self.pinned_chance is not None:
            return self.pinned_chance.clone()
        return as_chance(rng)

    def clone(self, chance: Chance | None = None) -> Engine:
        """An independent copy of the game drawing from ``chance``, by default a clone of this game's source.

        See the module docstring. A search that gives the copy a fresh source passes it here (a
        generator's clone costs about as much as the rest of the copy).
        """
        twin = copy.copy(self)
        state = twin.__dict__
        for name, value in state.items():
            if not isinstance(value, _SHARED):
                state[name] = _copied(value)
        twin.chance = self.chance.clone() if chance is None else chance
        return twin

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
    def resample_hidden(self, seat: int, rng: Chance | np.random.Generator) -> None:
        """Redraw everything ``seat`` cannot see (other hands, deck order, future dice) from ``rng`` (`as_chance`)."""

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


#: Values `Engine.clone` shares without a look (immutable).
_SHARED = (int, float, bool, str, bytes, type(None), tuple, frozenset, np.generic, Chance)


def _copied(value: Any) -> Any:
    """``value`` for a clone: mutable containers copied (their mutable items too), the rest shared.

    A list's items are taken to be of one kind: a list whose first item is immutable is copied shallowly.
    """
    if isinstance(value, np.ndarray):
        return value.copy() if value.flags.writeable else value
    kind = type(value)
    if kind is list:
        if not value or isinstance(value[0], _SHARED):
            return value.copy()
        return [x if isinstance(x, _SHARED) else _copied(x) for x in value]
    if kind is dict:
        return {k: v if isinstance(v, _SHARED) else _copied(v) for k, v in value.items()}
    if kind is set:
        return set(value)
    if dataclasses.is_dataclass(value) and not value.__dataclass_params__.frozen:  # type: ignore[union-attr]
        twin = copy.copy(value)
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if not isinstance(item, _SHARED):
                setattr(twin, f.name, _copied(item))
        return twin
    return value


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
