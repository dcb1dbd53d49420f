"""Lucky Pirate: a shedding card game with special pirate cards (see `.env` for the rules page)."""

from pirate_envs.lucky_pirate.cards import KINDS
from pirate_envs.lucky_pirate.engine import Config, Engine, LuckyPirateEngine
from pirate_envs.lucky_pirate.observation import Encoder
from pirate_envs.lucky_pirate.rules import PileRules, PileTop, legal_plays, pile_top
from pirate_envs.lucky_pirate.view import View

__all__ = [
    "KINDS",
    "Config",
    "Encoder",
    "Engine",
    "LuckyPirateEngine",
    "PileRules",
    "PileTop",
    "View",
    "legal_plays",
    "pile_top",
]
