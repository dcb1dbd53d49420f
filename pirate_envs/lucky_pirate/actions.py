"""Lucky Pirate action table: play a set of one kind, play a down card blind, pick up the pile.

* ``play``: action ``kind * MAX_COPIES + count - 1`` plays ``count`` cards of ``kind`` from
  the hand (or, once the hand is empty, from the up cards).
* ``down``: one per down-card slot: turn that card over and play it if it can be played.
* ``pick_up``: take the pile into the hand (only when nothing can be played).
* ``lay_up``: one per kind: during the set-up (option ``choose_up_cards``), lay one card of
  that kind from the hand face up.

`ACTION_FEATURES` (the features of version 1, ``lucky_pirate_v1``) describes every action by
fixed numbers, so that a policy's action head shares what it learns between similar moves: its
block; for a play or a lay-up, the kind (one-hot), the count (scaled and one-hot), whether the kind
is a special card and whether it is a number that can form a run; for a play, what the cards make
of the pile they land on: the value they set (scaled by the Kraken's 10; a Porthole, Reverse and
Skip keep the pile's value and set none), whether they restrict the next player (Captain), free
the pile (Parrot), clear it (Walk the Plank, or three or more equal numbers: a run), copy the card
below (Porthole), reverse the direction (an odd number of Reverses) or skip players (Skips, per
card); for a blind down card, its slot. What depends on the position (the pile's value, what the
next player is known to hold) is in the observation; the feature head scores each action by its
row against a projection of the observation, so such interactions are learned there.
"""

from __future__ import annotations

import numpy as np

from pirate_envs.core.actions import ActionFeatures, ActionTable
from pirate_envs.lucky_pirate.cards import (
    CAPTAIN,
    FACE_VALUE,
    FIRST_MATE,
    FIRST_MATE_VALUE,
    KINDS,
    KRAKEN,
    MAX_COPIES,
    MAX_UP_DOWN,
    MAX_VALUE,
    MERMAID,
    MERMAID_VALUE,
    NUM_KINDS,
    NUMBER_CARDS,
    PARROT,
    PORTHOLE,
    REVERSE,
    SKIP,
    WALK_THE_PLANK,
)
from pirate_envs.lucky_pirate.rules import RUN_TO_CLEAR

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


#: The value a card of each kind sets on the pile it lands on (``None``: it keeps the pile's, or frees it).
_SETS_VALUE: tuple[int | None, ...] = tuple(
    FIRST_MATE_VALUE if k == FIRST_MATE else MERMAID_VALUE if k == MERMAID else FACE_VALUE[k] for k in range(NUM_KINDS)
)


def _action_features() -> ActionFeatures:
    """The fixed feature rows of every action (see the module docstring)."""
    names = [block.name for block in ACTIONS.blocks]
    names += [f"kind_{kind}" for kind in KINDS]
    names += ["count"] + [f"count_{c}" for c in range(1, MAX_COPIES + 1)]
    names += ["special", "run_kind", "sets_value", "keeps_value", "restricts", "frees", "clears", "copies_below"]
    names += ["reverses", "skips"] + [f"down_slot_{slot + 1}" for slot in range(MAX_UP_DOWN)]
    column = {name: i for i, name in enumerate(names)}
    matrix = np.zeros((NUM_ACTIONS, len(names)), dtype=np.float32)
    for block in ACTIONS.blocks:
        matrix[block.start : block.stop, column[block.name]] = 1.0
    for kind in range(NUM_KINDS):
        is_number = kind <= KRAKEN  # 1..8, Captain (9) and Kraken (10) form runs
        for row in [*(play_action(kind, c) for c in range(1, MAX_COPIES + 1)), LAY_UP_OFFSET + kind]:
            matrix[row, column[f"kind_{KINDS[kind]}"]] = 1.0
            matrix[row, column["special"]] = float(kind >= len(NUMBER_CARDS))
            matrix[row, column["run_kind"]] = float(is_number)
        for count in range(1, MAX_COPIES + 1):
            row = play_action(kind, count)
            value = _SETS_VALUE[kind]
            matrix[row, column["count"]] = count / MAX_COPIES
            matrix[row, column[f"count_{count}"]] = 1.0
            matrix[row, column["sets_value"]] = 0.0 if value is None else value / MAX_VALUE
            matrix[row, column["keeps_value"]] = float(kind in (PORTHOLE, REVERSE, SKIP))
            matrix[row, column["restricts"]] = float(kind == CAPTAIN)
            matrix[row, column["frees"]] = float(kind == PARROT)
            matrix[row, column["clears"]] = float(kind == WALK_THE_PLANK or (is_number and count >= RUN_TO_CLEAR))
            matrix[row, column["copies_below"]] = float(kind == PORTHOLE)
            matrix[row, column["reverses"]] = float(kind == REVERSE and count % 2 == 1)
            matrix[row, column["skips"]] = count / MAX_COPIES if kind == SKIP else 0.0
    for slot in range(MAX_UP_DOWN):
        matrix[down_action(slot), column[f"down_slot_{slot + 1}"]] = 1.0
    return ActionFeatures(matrix, tuple(names))


#: The fixed features of every action (``lucky_pirate_v1``'s ``env.unwrapped.action_features``).
ACTION_FEATURES = _action_features()
