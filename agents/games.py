"""Each game's agents and agent-side facts, declared by the game's own package ``agents/<game>``.

`pirate_envs` imports nothing from ``agents``. A game's agents register from this
side: ``agents/<game>/__init__.py`` declares ``AGENTS = GameAgents(...)``, with the game's package
named as the game's package is (``pirate_envs/skull_king`` -> ``agents/skull_king``), and
`game_agents_of` finds it from the env id through the game's spec. Targets are
``"module:name"`` strings inside that package (``"heuristic:SkullKingHeuristic"``), imported only
when used, so listing a game's agents compiles no kernel.

Adding a game's agents: write its package, declare ``AGENTS`` there; no table elsewhere names it.
The analyses find their per-game parts the same way (`game_module`: ``agents/<game>/advice.py``,
``agents/<game>/mistakes.py``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

import pirate_envs
from pirate_envs.core.spec import resolve


@dataclass(frozen=True)
class GameAgents:
    """One game's agents and agent-side facts; every target is ``"module:name"`` relative to the game's package."""

    #: The game's agents package (``"agents.skull_king"``); set by `game_agents_of`.
    package: str = ""
    #: The honest heuristic (an `agents.base.Agent` class) and its batched form.
    heuristic: str | None = None
    batched_heuristic: str | None = None
    #: An exact or solved agent and its batched form, and the race agent (the whole game solved for the win).
    oracle: str | None = None
    batched_oracle: str | None = None
    race: str | None = None
    #: Further game-specific agents, ``(kind, "module:Class")`` (Kapern's best responses).
    more_kinds: tuple[tuple[str, str], ...] = ()
    #: A mapping of ``agents.search.ismcts.SearchAgent`` keywords that differ from the defaults.
    search_options: str | None = None
    #: Iterations per move of a plain ``mcts`` (``None``: the search's default).
    search_simulations: int | None = None
    #: The strategy analysis' collector class (`agents.analysis.Collector`).
    collector: str | None = None
    #: The benchmark's control variate, ``(venv, rows, uniform) -> luck``, and its description in words.
    luck: str | None = None
    luck_description: str = "none (corrected = raw)"

    def target(self, field: str) -> Any:
        """The object ``field`` names (imported now), or ``None`` when the game has none."""
        name = getattr(self, field)
        return None if name is None else resolve(f"{self.package}.{name}")

    def absolute(self, field: str) -> str | None:
        """``field``'s ``"module:name"`` with the package's module path (``None`` when the game has none)."""
        name = getattr(self, field)
        return None if name is None else f"{self.package}.{name}"

    @property
    def kinds(self) -> dict[str, str]:
        """``{kind: "module:Class"}`` of the game-specific agents (``heuristic``, ``oracle``, ``race``, then
        `more_kinds`)."""
        found = {kind: self.absolute(kind) for kind in ("heuristic", "oracle", "race")}
        found.update((kind, f"{self.package}.{target}") for kind, target in self.more_kinds)
        return {kind: target for kind, target in found.items() if target is not None}

    @property
    def batched_kinds(self) -> dict[str, str]:
        """``{kind: "module:Class"}`` of the batched forms (``heuristic``, ``oracle``)."""
        found = {"heuristic": self.absolute("batched_heuristic"), "oracle": self.absolute("batched_oracle")}
        return {kind: target for kind, target in found.items() if target is not None}

    def search_keywords(self) -> Mapping[str, Any]:
        """The ``SearchAgent`` keywords of `search_options` (imported now; ``{}`` when none)."""
        return self.target("search_options") or {}


@cache
def game_agents_of(env_id: str) -> GameAgents:
    """The `GameAgents` of ``env_id``'s game (``ValueError`` for an unknown id, as ``pirate_envs.game_spec``)."""
    package = f"agents.{pirate_envs.game_spec(env_id).package}"
    declared = getattr(importlib.import_module(package), "AGENTS", None)
    if not isinstance(declared, GameAgents):
        raise LookupError(f"{package} declares no AGENTS = GameAgents(...)")
    return GameAgents(**{**declared.__dict__, "package": package})


def game_module(env_id: str, name: str) -> ModuleType:
    """The module ``name`` of ``env_id``'s agents package (``agents.<game>.<name>``, imported now;
    ``ModuleNotFoundError`` when the package has none, ``ValueError`` for an unknown id)."""
    return importlib.import_module(f"agents.{pirate_envs.game_spec(env_id).package}.{name}")


__all__ = ["GameAgents", "game_agents_of", "game_module"]
