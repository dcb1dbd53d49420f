"""Piratenpoker's agents: the heuristic (one-game and batched) and its analysis collector."""

from agents.games import GameAgents

AGENTS = GameAgents(
    heuristic="heuristic:PiratenpokerHeuristic",
    batched_heuristic="batched_heuristic:PiratenpokerHeuristicBatch",
    search_options="heuristic:SEARCH_OPTIONS",
    search_simulations=50,
    collector="analysis:PiratenpokerCollector",
)

__all__ = ["AGENTS"]
