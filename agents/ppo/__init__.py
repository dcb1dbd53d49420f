"""The PPO engine.

The masked PPO algorithm (`algorithm`), its loss (readable torch in `loss`, the fused numba pass
in `fast_loss`), the pipelined updates and the action-feature head.
"""
