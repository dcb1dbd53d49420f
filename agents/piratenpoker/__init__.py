"""Piratenpoker's agents: the heuristic (one-game and batched) and its analysis collector."""
