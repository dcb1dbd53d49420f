"""Pig's action table: two actions, roll the die or hold (bank the turn total)."""

from __future__ import annotations

from pirate_envs.core.actions import ActionTable

ACTIONS = ActionTable([("roll", ["roll"]), ("hold", ["hold"])])
ROLL = ACTIONS.offset("roll")
HOLD = ACTIONS.offset("hold")

__all__ = ["ACTIONS", "HOLD", "ROLL"]
