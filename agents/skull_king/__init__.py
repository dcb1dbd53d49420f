"""Skull King's agents: the heuristic (one-game and batched), its analysis collector and the benchmark's value model."""
