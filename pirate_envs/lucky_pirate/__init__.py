"""Lucky Pirate: a shedding card game with special pirate cards (see :mod:`.env` for the rules page)."""

from pirate_envs.lucky_pirate.engine import LuckyPirateEngine
from pirate_envs.lucky_pirate.rules import KINDS, Config, PileTop, legal_plays, pile_top
from pirate_envs.lucky_pirate.view import LuckyPirateView

__all__ = ["KINDS", "Config", "LuckyPirateEngine", "LuckyPirateView", "PileTop", "legal_plays", "pile_top"]
