"""Piraten Kapern's agents.

The heuristic, the exact turn oracle (each one-game and batched), the look-ahead, the two-player
race, its best responses and the analysis collector.
"""
