"""Lucky Pirate's agents: the heuristic (one-game and batched) and its analysis collector."""

from agents.games import GameAgents

AGENTS = GameAgents(
    heuristic="heuristic:LuckyPirateHeuristic",
    batched_heuristic="batched_heuristic:LuckyPirateHeuristicBatch",
    collector="analysis:LuckyPirateCollector",
)

__all__ = ["AGENTS"]
