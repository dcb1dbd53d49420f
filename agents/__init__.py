"""Agents for pirate_envs: the `Agent` protocol, the registry of agent names, and the modules behind them.

``import agents`` also registers the single-agent Gymnasium ids (``pirate_envs/<Game>-v0``,
`agents.selfplay.ids`).
"""

from agents.base import Agent, RandomAgent
from agents.selfplay.ids import register_gymnasium_ids

register_gymnasium_ids()

__all__ = ["Agent", "RandomAgent", "register_gymnasium_ids"]
