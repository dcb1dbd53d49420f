"""Each game's training recipe as data: ``agents/<game>/recipes.json``, one entry per env id.

A recipe holds the settings ``python -m experiments.train --env-id <id>`` uses when no flag sets them
(network, reward, opponent pool, budget, schedule) and the duplicate deals its learning curves are
measured on, fixed before any run (``evaluation``: table size, games, the seed of the evaluation deals and
the seed of the validation deals that choose among training seeds). Everything in ``train`` is a field of
the command's arguments, by its name (``num_players``, not ``--num-players``).

A recipe may have a second phase (``then``): the fields a second run sets over ``train``, which starts from the
first run's last checkpoint (its ``init``) in the folder `PHASE_2_FOLDER` inside the first run's, and hands over
the recipe's agent. It takes no warm start, and names no folder or starting network of its own (`FIXED_IN_PHASE_2`).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pirate_envs

#: The file of a game's recipes, in its agents package.
RECIPES_FILE = "recipes.json"
#: The keys of a recipe entry.
RECIPE_KEYS = ("about", "train", "then", "evaluation")
#: The second phase's run folder, inside the first phase's.
PHASE_2_FOLDER = "phase_2"
#: The second phase's arguments (as a run's ``config.json`` stores them), written in the first phase's folder when
#: it starts, so that a ``--resume`` of the first goes on into the second.
PHASE_2_CONFIG = "phase_2.json"
#: Fields the second phase cannot set: the command sets them (its start, the first run's last checkpoint, and
#: its folder) or they belong to a run's start.
FIXED_IN_PHASE_2 = (
    "env_id", "init", "warm_start", "warm_start_games", "warm_start_rounds", "warm_start_epochs", "out_dir",
    "run_name", "resume", "overwrite", "recipe",
)  # fmt: skip


@dataclass(frozen=True)
class Recipe:
    """One env id's training recipe (see the module docstring)."""

    env_id: str
    about: str
    train: dict[str, Any]
    evaluation: dict[str, Any] = field(default_factory=dict)
    then: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        fixed = sorted(set(self.then) & set(FIXED_IN_PHASE_2))
        if fixed:
            raise ValueError(f"the {self.env_id} recipe's second phase sets {fixed}, which the command sets")

    def flags(self, names: Iterable[str] | None = None) -> list[str]:
        """The recipe's ``train`` settings (only ``names``, when given) as ``experiments.train`` flags."""
        return settings_flags(self.train, names)

    def then_flags(self, names: Iterable[str] | None = None) -> list[str]:
        """The second phase's settings over ``train`` (only ``names``, when given) as flags (``[]``: no second
        phase)."""
        return settings_flags(self.then, names)

    def command(self, *extra: str) -> str:
        """The whole ``python -m experiments.train`` command of the recipe, with ``extra`` flags after it (a recipe
        of two phases: its first phase; the same command runs both, see `describe`)."""
        return shlex.join(["python", "-m", "experiments.train", "--env-id", self.env_id, *self.flags(), *extra])

    def describe(self) -> str:
        """The recipe in one line: its command, and the second phase's settings when it has one."""
        if not self.then:
            return self.command()
        return f"{self.command()}; then, from its last checkpoint: {shlex.join(self.then_flags())}"


def settings_flags(settings: dict[str, Any], names: Iterable[str] | None = None) -> list[str]:
    """``settings`` (fields of ``experiments.train``'s arguments; only ``names``, when given) as its flags."""
    words: list[str] = []
    chosen = set(settings if names is None else names)
    for name, value in settings.items():
        if name not in chosen:
            continue
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            words.append(flag if value else "--no-" + name.replace("_", "-"))
        elif isinstance(value, list):
            words += [flag, *(str(v) for v in value)]
        else:
            words += [flag, str(value)]
    return words


def recipes_of_game(package: str) -> dict[str, Recipe]:
    """The recipes in ``agents/<package>/recipes.json`` by env id (``{}`` when the game has none)."""
    path = resources.files("agents").joinpath(package, RECIPES_FILE)
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text())
    unknown = [key for entry in entries.values() for key in entry if key not in RECIPE_KEYS]
    if unknown:
        raise ValueError(f"agents/{package}/{RECIPES_FILE}: unknown recipe keys {unknown}")
    return {env_id: Recipe(env_id=env_id, **entry) for env_id, entry in entries.items()}


def recipe_for(env_id: str) -> Recipe | None:
    """The training recipe of ``env_id`` (``None`` when it has none); ``ValueError`` for an unknown id."""
    return recipes_of_game(pirate_envs.game_spec(env_id).package).get(env_id)


__all__ = [
    "FIXED_IN_PHASE_2",
    "PHASE_2_CONFIG",
    "PHASE_2_FOLDER",
    "RECIPES_FILE",
    "RECIPE_KEYS",
    "Recipe",
    "recipe_for",
    "recipes_of_game",
    "settings_flags",
]
