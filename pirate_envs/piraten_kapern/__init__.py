"""Piraten Kapern: press-your-luck dice with fortune cards (see `.env` for the rules page)."""

from pirate_envs.piraten_kapern.engine import Config, Engine, KapernEngine, Phase
from pirate_envs.piraten_kapern.observation import Encoder
from pirate_envs.piraten_kapern.rules import CARDS, FACES, score_dice
from pirate_envs.piraten_kapern.view import View

__all__ = ["CARDS", "FACES", "Config", "Encoder", "Engine", "KapernEngine", "Phase", "View", "score_dice"]
