"""Piraten Kapern: press-your-luck dice with fortune cards (see `.env` for the rules page)."""

from pirate_envs.piraten_kapern.engine import KapernConfig, KapernEngine, Phase
from pirate_envs.piraten_kapern.rules import CARDS, FACES, score_dice
from pirate_envs.piraten_kapern.view import KapernView

__all__ = ["CARDS", "FACES", "KapernConfig", "KapernEngine", "KapernView", "Phase", "score_dice"]
