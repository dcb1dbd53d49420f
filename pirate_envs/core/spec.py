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
    #: Options of a quick game, ``(name, value)`` pairs (a few hands, a low target, a turn cap): what
    #: tests and examples play where a whole game is not the point (`quick_options`).
    quick_game: tuple[tuple[str, Any], ...]
    #: The single-agent Gymnasium id (``"pirate_envs/SkullKing-v0"``; ``None``: none, the agents package
    #: declares no heuristic opponents for the game).
    gym_id: str | None = None
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
    #: What a seat knows (OpenSpiel's ``Information``): ``"imperfect"`` (hands, deck order or bids are
    #: hidden; ``resample_hidden`` redraws them) or ``"perfect"`` (every seat sees the whole state;
    #: ``resample_hidden`` changes no view, only the future draws).
    information: Literal["perfect", "imperfect"] = "imperfect"
    #: Whether the rules draw anything by chance (deals, dice): ``reset`` or ``apply`` draw from ``chance``.
    chance: bool = True
    #: The optional parts the game ships, by their names in `OPTIONAL_PARTS` (the batched kernels are
    #: declared by `batched_backend`, the single-agent Gymnasium id by `gym_id`): `has` reads them.
    optional_parts: frozenset[str] = frozenset()
    #: Earlier versions of this very game (the same rules and action table; this version's observation
    #: holds each of their pieces, by name and shape): their agents play this version too, each reading
    #: its own pieces of this version's observation (``tests/test_specs.py`` checks the claim).
    same_game_as: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.information not in INFORMATION:
            raise ValueError(f"{self.env_id}: information={self.information!r}; expected one of {list(INFORMATION)}")
        unknown = sorted(set(self.optional_parts) - set(DECLARED_PARTS))
        if unknown:
            raise ValueError(f"{self.env_id}: unknown optional part(s) {unknown}; parts: {list(DECLARED_PARTS)}")

    def has(self, part: str) -> bool:
        """Whether the game ships the optional ``part`` (a name of `OPTIONAL_PARTS`; ``ValueError`` for another)."""
        if part not in OPTIONAL_PARTS:
            raise ValueError(f"unknown optional part {part!r}; parts: {list(OPTIONAL_PARTS)}")
        if part == BATCHED_KERNELS:
            return self.batched_backend is not None
        if part == GYMNASIUM_ID:
            return self.gym_id is not None
        return part in self.optional_parts

    def lacks(self, part: str) -> str | None:
        """Why the checks of ``part`` do not apply (``"pig_v0 declares no batched_kernels ..."``), else ``None``."""
        return None if self.has(part) else f"{self.env_id} declares no {part} ({OPTIONAL_PARTS[part]})"

    def module(self, name: str) -> str:
        """The dotted name of the game's module ``name`` (``"pirate_envs.skull_king.openspiel"``), from `config`."""
        return f"{self.config.partition(':')[0].rpartition('.')[0]}.{name}"

    def plays_agents_of(self, env_id: str) -> bool:
        """Whether an agent trained on ``env_id`` plays this version: the same id or one of `same_game_as`."""
        return env_id == self.env_id or env_id in self.same_game_as

    @property
    def quick_options(self) -> dict[str, Any]:
        """`quick_game` as keyword options of ``make``."""
        return dict(self.quick_game)

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


#: Values of `GameSpec.information`.
INFORMATION = ("perfect", "imperfect")

BATCHED_KERNELS = "batched_kernels"
GYMNASIUM_ID = "gymnasium_id"

#: Every optional part a game may ship, with what declaring it commits the game to (the generic tests
#: run the part's checks; ``tests/test_declarations.py`` checks each declaration against the game, both ways).
OPTIONAL_PARTS: dict[str, str] = {
    BATCHED_KERNELS: "numba kernels named by batched_backend: the vector env and check_lockstep",
    GYMNASIUM_ID: "a single-agent Gymnasium id against the agents package's heuristic opponents (gym_id)",
    "openspiel_facts": "the game's openspiel.py FACTS: pirate_envs.openspiel.load_game",
    "events": "public events: the engine appends to `events` while recording (core.events)",
    "table_layouts": "the env option table_layout ('seated' or 'max'), TableLayoutOption",
    "reset_options": "RESET_OPTIONS of the engine: chosen deals or seats for tests",
    "invariants": "the engine's check_invariants, run at every decision by check_env's conservation",
    "web_page": "a page_state(view) that draws the table beside the text at the web table",
    "rule_card": "the agents package's rule card (rules:<env_id>)",
    "analysis_collector": "the agents package's strategy analysis collector",
}

#: The optional parts the four shipped games each ship (their specs declare it; Pig declares its own).
SHIPPED_GAME_PARTS: frozenset[str] = frozenset(
    {"openspiel_facts", "events", "table_layouts", "reset_options", "web_page", "rule_card", "analysis_collector"}
)

#: The parts declared in `GameSpec.optional_parts` (the others by their own fields).
DECLARED_PARTS: tuple[str, ...] = tuple(part for part in OPTIONAL_PARTS if part not in (BATCHED_KERNELS, GYMNASIUM_ID))


def resolve(target: str) -> Any:
    """The object a ``"module:name"`` string names (imports the module)."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{target!r} is not a 'module:name' string")
    return getattr(importlib.import_module(module_name), attribute)


__all__ = [
    "BATCHED_KERNELS",
    "DECLARED_PARTS",
    "GYMNASIUM_ID",
    "INFORMATION",
    "OPTIONAL_PARTS",
    "SHIPPED_GAME_PARTS",
    "GameSpec",
    "UserOption",
    "resolve",
]
