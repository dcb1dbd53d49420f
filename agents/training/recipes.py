"""Each game's training recipe as data: ``agents/<game>/recipes.json``, one entry per env id.

A recipe holds the settings ``python -m experiments.train --env-id <id>`` uses when no flag sets them
(network, reward, opponent pool, budget, schedule) and the duplicate deals its learning curves are
measured on, fixed before any run (``evaluation``: table size, games, the seed of the evaluation deals and
the seed of the validation deals that choose among training seeds). Everything in ``train`` is a field of
the command's arguments, by its name (``num_players``, not ``--num-players``).
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


@dataclass(frozen=True)
class Recipe:
    """One env id's training recipe (see the module docstring)."""

    env_id: str
    about: str
    train: dict[str, Any]
    evaluation: dict[str, Any] = field(default_factory=dict)

    def flags(self, names: Iterable[str] | None = None) -> list[str]:
        """The recipe's ``train`` settings (only ``names``, when given) as ``experiments.train`` flags."""
        words: list[str] = []
        chosen = set(self.train if names is None else names)
        for name, value in self.train.items():
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

    def command(self, *extra: str) -> str:
        """The whole ``python -m experiments.train`` command of the recipe, with ``extra`` flags after it."""
        return shlex.join(["python", "-m", "experiments.train", "--env-id", self.env_id, *self.flags(), *extra])


def recipes_of_game(package: str) -> dict[str, Recipe]:
    """The recipes in ``agents/<package>/recipes.json`` by env id (``{}`` when the game has none)."""
    path = resources.files("agents").joinpath(package, RECIPES_FILE)
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text())
    unknown = [key for entry in entries.values() for key in entry if key not in ("about", "train", "evaluation")]
    if unknown:
        raise ValueError(f"agents/{package}/{RECIPES_FILE}: unknown recipe keys {unknown}")
    return {env_id: Recipe(env_id=env_id, **entry) for env_id, entry in entries.items()}


def recipe_for(env_id: str) -> Recipe | None:
    """The training recipe of ``env_id`` (``None`` when it has none); ``ValueError`` for an unknown id."""
    return recipes_of_game(pirate_envs.game_spec(env_id).package).get(env_id)


__all__ = ["RECIPES_FILE", "Recipe", "recipe_for", "recipes_of_game"]
