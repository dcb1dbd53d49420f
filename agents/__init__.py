"""Agents for pirate_envs: the `Agent` protocol, random, heuristic and search baselines."""

from agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
