"""Lucky Pirate action table: play a set of one kind, play a down card blind, pick up the pile.

* ``play``: action ``kind * MAX_COPIES + count - 1`` plays ``count`` cards of ``kind`` from
  the hand (or, once the hand is empty, from the up cards).
* ``down``: one per down-card slot: turn that card over and play it if it can be played.
* ``pick_up``: take the pile into the hand (only when nothing can be played).
* ``lay_up``: one per kind: during the set-up (option ``choose_up_cards``), lay one card of
  that kind from the hand face up.
"""

from __future__ import annotations

from pirate_envs.core.actions import ActionTable
from pirate_envs.lucky_pirate.cards import KINDS, MAX_COPIES, MAX_UP_DOWN, NUM_KINDS

ACTIONS = ActionTable(
    [
        ("play", [f"play {count} x {kind}" for kind in KINDS for count in range(1, MAX_COPIES + 1)]),
        ("down", [f"play down card {slot + 1} blind" for slot in range(MAX_UP_DOWN)]),
        ("pick_up", ["pick up the pile"]),
        ("lay_up", [f"lay {kind} face up" for kind in KINDS]),
    ]
)
NUM_ACTIONS = len(ACTIONS)
PLAY_OFFSET = ACTIONS.offset("play")
NUM_PLAY_ACTIONS = NUM_KINDS * MAX_COPIES
DOWN_OFFSET = ACTIONS.offset("down")
PICK_UP = ACTIONS.offset("pick_up")
LAY_UP_OFFSET = ACTIONS.offset("lay_up")


def play_action(kind: int, count: int) -> int:
    """The action that plays ``count`` cards of kind index ``kind``."""
    return PLAY_OFFSET + kind * MAX_COPIES + count - 1


def down_action(slot: int) -> int:
    """The action that plays down-card ``slot`` blind."""
    return DOWN_OFFSET + slot


def decode_play(action: int) -> tuple[int, int]:
    """``(kind, count)`` of a play action."""
    kind, count = divmod(action - PLAY_OFFSET, MAX_COPIES)
    return kind, count + 1
