"""`GameSpec`: everything the suite needs to know about one game, declared once in ``pirate_envs/<game>/spec.py``.

Every registry reads the specs of ``pirate_envs.GAME_SPECS``: ``pirate_envs.make`` (the entry
module), the batched engine (the backend class), the command line and the web table (player
counts, options and their safe ranges).

A spec names nothing above ``pirate_envs``: the game's agents are declared by the ``agents`` package,
in the package named as the game's `GameSpec.package` (``agents.games``). ``"module:name"`` strings
of the game's own modules are resolved only when used (`resolve`).
``tests/test_specs.py`` checks every declared value against what the env itself enforces.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class UserOption:
    """An option of the game's ``Config`` a person may set (at the web table, in a replayed record).

    ``kind``: ``"int"`` or ``"int_list"``. ``low``/``high``: the safe range of an integer option
    (``None``: unranged), which keeps every game short enough to serve. ``on_page``: the web
    table's new-game form offers it (else only a replayed record may carry it, within the range).
    """

    name: str
    kind: Literal["int", "int_list"] = "int"
    low: int | None = None
    high: int | None = None
    on_page: bool = True


@dataclass(frozen=True)
class GameSpec:
    """One game's declaration (see the module docstring); every ``"module:name"`` string resolves by `resolve`."""

    #: The id of ``pirate_envs.make`` (``"skull_king_v0"``).
    env_id: str
    #: The single-agent Gymnasium id (``"pirate_envs/SkullKing-v0"``).
    gym_id: str
    #: The game's name for people (``"Skull King"``).
    name: str
    #: The module exposing ``env`` and ``raw_env`` (``"pirate_envs.skull_king_v0"``).
    entry_module: str
    #: ``"module:Config"``: the game's settings dataclass (the options of ``make``).
    config: str
    #: The player counts ``make`` accepts, ``min_players..max_players``, and the count when none is given.
    min_players: int
    max_players: int
    default_players: int
    #: ``"module:Class"`` of the batched engine's kernels (``None``: not covered).
    batched_backend: str | None = None
    #: Where the batched backend keeps each seat's score as the engine's ``scores()`` gives it:
    #: ``"attribute"`` (an ``(N, P)`` array) or ``"attribute:COLUMN"`` (column ``COLUMN``, a constant
    #: of the backend's module, of an ``(N, P, F)`` array); read by self-play's final scores.
    batched_scores: str | None = None
    #: The winners are the seats of the highest score (a score-mode win share needs no replay).
    winners_by_score: bool = False
    #: The options a person may set, with their safe ranges.
    options: tuple[UserOption, ...] = ()
    #: Earlier versions of this very game (the same rules and action table; this version's observation
    #: holds each of their pieces, by name and shape): their agents play this version too, each reading
    #: its own pieces of this version's observation (``tests/test_specs.py`` checks the claim).
    same_game_as: tuple[str, ...] = ()

    def plays_agents_of(self, env_id: str) -> bool:
        """Whether an agent trained on ``env_id`` plays this version: the same id or one of `same_game_as`."""
        return env_id == self.env_id or env_id in self.same_game_as

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Every player count the game allows, in order."""
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def option_ranges(self) -> dict[str, tuple[int, int]]:
        """``{name: (low, high)}`` of the ranged options."""
        return {o.name: (o.low, o.high) for o in self.options if o.low is not None and o.high is not None}

    @property
    def package(self) -> str:
        """The game's package under ``pirate_envs`` (``"skull_king"``), read from `config`.

        The ``agents`` package names its package for the game alike (``agents/skull_king``) and declares
        the game's agents there; nothing here names them.
        """
        return self.config.partition(":")[0].split(".")[1]


def resolve(target: str) -> Any:
    """The object a ``"module:name"`` string names (imports the module)."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{target!r} is not a 'module:name' string")
    return getattr(importlib.import_module(module_name), attribute)


__all__ = ["GameSpec", "UserOption", "resolve"]
