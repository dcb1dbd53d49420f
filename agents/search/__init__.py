"""Searches over the engine contract.

IS-MCTS (`ismcts`), guided by a network (`guided`), sequential halving (`halving`) and its
batched worlds (`batched`).
"""
