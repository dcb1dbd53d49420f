"""Piratenpoker (Michael Schacht, Piatnik): bid poker cards for loot; see :mod:`pirate_envs.piratenpoker.env`."""

from pirate_envs.piratenpoker.engine import ACTIONS, Phase, PiratenpokerEngine
from pirate_envs.piratenpoker.rules import Config, bid_winner, final_score, final_winners
from pirate_envs.piratenpoker.view import TableView, View

__all__ = [
    "ACTIONS",
    "Config",
    "Phase",
    "PiratenpokerEngine",
    "TableView",
    "View",
    "bid_winner",
    "final_score",
    "final_winners",
]
