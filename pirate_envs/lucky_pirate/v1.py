"""Lucky Pirate, version 1 (``lucky_pirate_v1``): what a card-counting player can know, and action features.

Version 1 is the same game as version 0 with two differences, so version 0's layout and agents
stay as they are:

* the observation options ``observe_known`` and ``observe_pile`` are on by default (`ConfigV1`):
  the observation ends with the piece ``known`` (per seat, the cards every player saw go into its
  hand: a picked-up pile, a blind down card that failed) and then ``pile_cards`` (the pile's cards
  per kind); with the counts of the hand, the up cards and the removed cards already in it, every
  card a counting player can place is in the vector;
* the env has action features (`pirate_envs.lucky_pirate.actions.ACTION_FEATURES`), so the
  training commands' feature action head applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pirate_envs.core.actions import ActionFeatures
from pirate_envs.lucky_pirate.actions import ACTION_FEATURES
from pirate_envs.lucky_pirate.engine import Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.env import raw_env as raw_env_v0

ENV_ID = "lucky_pirate_v1"


@dataclass(frozen=True)
class ConfigV1(Config):
    """Version 1's options: those of `Config`, with ``observe_known`` and ``observe_pile`` on by default."""

    observe_known: bool = True
    observe_pile: bool = True


class LuckyPirateEngineV1(LuckyPirateEngine):
    """Version 1's engine: the same game, with the fixed action features."""

    ACTION_FEATURES: ClassVar[ActionFeatures | None] = ACTION_FEATURES


class raw_env(raw_env_v0):
    """Lucky Pirate version 1 as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**raw_env_v0.metadata, "name": ENV_ID}
    CONFIG = ConfigV1
    ENGINE = LuckyPirateEngineV1
