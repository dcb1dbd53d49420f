"""Lucky Pirate: a shedding card game with special pirate cards (see `.env` for the rules page)."""

from pirate_envs.lucky_pirate.cards import KINDS
from pirate_envs.lucky_pirate.engine import Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.rules import PileRules, PileTop, legal_plays, pile_top
from pirate_envs.lucky_pirate.view import LuckyPirateView

__all__ = ["KINDS", "Config", "LuckyPirateEngine", "LuckyPirateView", "PileRules", "PileTop", "legal_plays", "pile_top"]
