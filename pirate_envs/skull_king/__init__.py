"""Skull King (first edition): the trick-taking bidding game, as a PettingZoo AEC environment."""

from pirate_envs.skull_king.actions import ACTIONS
from pirate_envs.skull_king.engine import Config, Engine, Phase, SkullKingEngine
from pirate_envs.skull_king.observation import Encoder
from pirate_envs.skull_king.rules import hand_score, legal_cards, trick_bonus, trick_winner
from pirate_envs.skull_king.view import View

__all__ = [
    "ACTIONS",
    "Config",
    "Encoder",
    "Engine",
    "Phase",
    "SkullKingEngine",
    "View",
    "hand_score",
    "legal_cards",
    "trick_bonus",
    "trick_winner",
]
