"""Skull King (first edition): the trick-taking bidding game, as a PettingZoo AEC environment."""

from pirate_envs.skull_king.actions import ACTIONS
from pirate_envs.skull_king.engine import Config, Phase, SkullKingEngine
from pirate_envs.skull_king.rules import hand_score, legal_cards, trick_bonus, trick_winner
from pirate_envs.skull_king.view import SkullKingView

__all__ = [
    "ACTIONS",
    "Config",
    "Phase",
    "SkullKingEngine",
    "SkullKingView",
    "hand_score",
    "legal_cards",
    "trick_bonus",
    "trick_winner",
]
