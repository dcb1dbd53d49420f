"""Skull King's agents: the heuristic (one-game and batched), its analysis collector and the benchmark's value model."""

from agents.games import GameAgents

AGENTS = GameAgents(
    heuristic="heuristic:SkullKingHeuristic",
    batched_heuristic="batched_heuristic:SkullKingHeuristicBatch",
    collector="analysis:SkullKingCollector",
    luck="luck:skull_king_luck",
    luck_description="a fixed model's win shares after each bid and card of a random opponent",
)

__all__ = ["AGENTS"]
