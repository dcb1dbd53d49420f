"""Piratenpoker (Michael Schacht, Piatnik): bid poker cards for loot; see `pirate_envs.piratenpoker.env`."""

from pirate_envs.piratenpoker.actions import ACTIONS
from pirate_envs.piratenpoker.engine import Config, Engine, Phase, PiratenpokerEngine
from pirate_envs.piratenpoker.observation import Encoder
from pirate_envs.piratenpoker.rules import bid_winner, final_score, final_winners
from pirate_envs.piratenpoker.view import TableView, View

__all__ = [
    "ACTIONS",
    "Config",
    "Encoder",
    "Engine",
    "Phase",
    "PiratenpokerEngine",
    "TableView",
    "View",
    "bid_winner",
    "final_score",
    "final_winners",
]
