"""The Piraten Kapern action table.

Dice showing the same face are interchangeable, so a re-roll is named by how many dice of
each face it takes (not by which dice): the vector ``(coin, diamond, monkey, parrot, sabre,
skull)`` with the skull count 0 or 1 (the Sorceress). Every vector that some legal state
allows has exactly one action; the mask picks those the dice showing allow.

| block | actions | meaning |
|---|---|---|
| ``stop`` | 1 | end the turn and score |
| ``reroll`` | 2073 | re-roll this many free dice of each face |
| ``chest_put`` | 5 | put one free die of a face (coin..sabre) on the Treasure Chest |
| ``chest_take`` | 5 | take one die of a face off the Treasure Chest |

``ACTION_FEATURES`` describes each action by 68 fixed numbers, for policies that score an
action from what it does: the block (4 one-hots); for a re-roll, the dice it takes of each
non-skull face as a fraction of eight (5) and as one-hots of 1..8 (40), whether it takes the
Sorceress skull (1) and a one-hot of how many dice it takes in all (8); for the chest, the
face put on (5) or taken off (5).
"""

from __future__ import annotations

import itertools

import numpy as np

from pirate_envs.core.actions import ActionFeatures, ActionTable
from pirate_envs.piraten_kapern.rules import FACES, NON_SKULL_FACES, NUM_DICE, NUM_FACES

MIN_REROLL = 2


def _reroll_vectors() -> np.ndarray:
    """All re-roll count vectors a legal state can allow, in a fixed order."""
    vectors = []
    for skull in (0, 1):
        for counts in itertools.product(range(NUM_DICE + 1), repeat=len(NON_SKULL_FACES)):
            total = sum(counts) + skull
            if total > NUM_DICE or (skull == 0 and total < MIN_REROLL) or total == 0:
                continue
            vectors.append((*counts, skull))
    return np.array(vectors, dtype=np.int64)


#: Row ``i`` is the per-face count vector of re-roll action ``REROLL_OFFSET + i``.
REROLL_VECTORS = _reroll_vectors()
#: The same rows as Python tuples, for the engine's hot path.
REROLL_TUPLES: tuple[tuple[int, ...], ...] = tuple(tuple(int(x) for x in v) for v in REROLL_VECTORS)


def _reroll_label(vector: np.ndarray) -> str:
    parts = [f"{FACES[f]}x{n}" for f, n in enumerate(vector) if n]
    return "reroll " + " ".join(parts)


ACTIONS = ActionTable(
    [
        ("stop", ["stop"]),
        ("reroll", [_reroll_label(v) for v in REROLL_VECTORS]),
        ("chest_put", [f"put {FACES[f]} on chest" for f in NON_SKULL_FACES]),
        ("chest_take", [f"take {FACES[f]} off chest" for f in NON_SKULL_FACES]),
    ]
)
STOP = ACTIONS.offset("stop")
REROLL_OFFSET = ACTIONS.offset("reroll")
CHEST_PUT_OFFSET = ACTIONS.offset("chest_put")
CHEST_TAKE_OFFSET = ACTIONS.offset("chest_take")
NUM_ACTIONS = len(ACTIONS)
_VECTOR_INDEX = {v: i for i, v in enumerate(REROLL_TUPLES)}


def reroll_action(counts: tuple[int, ...] | list[int]) -> int:
    """The action that re-rolls ``counts`` dice per face (six counts, skull last)."""
    key = tuple(int(c) for c in counts)
    if len(key) != NUM_FACES or key not in _VECTOR_INDEX:
        raise ValueError(f"no re-roll action for counts {key}")
    return REROLL_OFFSET + _VECTOR_INDEX[key]


def reroll_counts(action: int) -> tuple[int, ...]:
    """The per-face counts re-rolled by a re-roll action."""
    return REROLL_TUPLES[action - REROLL_OFFSET]


def _action_features() -> ActionFeatures:
    """The fixed feature rows of every action (see the module docstring)."""
    faces = [FACES[f] for f in NON_SKULL_FACES]
    names = [b.name for b in ACTIONS.blocks]
    names += [f"reroll_{face}" for face in faces]
    names += [f"reroll_{face}_{k}" for face in faces for k in range(1, NUM_DICE + 1)]
    names += ["reroll_skull"] + [f"reroll_total_{k}" for k in range(1, NUM_DICE + 1)]
    names += [f"put_{face}" for face in faces] + [f"take_{face}" for face in faces]
    column = {name: i for i, name in enumerate(names)}
    matrix = np.zeros((NUM_ACTIONS, len(names)), dtype=np.float32)
    for block in ACTIONS.blocks:
        matrix[block.start : block.stop, column[block.name]] = 1.0
    for row, counts in enumerate(REROLL_TUPLES, start=REROLL_OFFSET):
        for face, k in zip(faces, counts):
            if k:
                matrix[row, column[f"reroll_{face}"]] = k / NUM_DICE
                matrix[row, column[f"reroll_{face}_{k}"]] = 1.0
        matrix[row, column["reroll_skull"]] = counts[-1]
        matrix[row, column[f"reroll_total_{sum(counts)}"]] = 1.0
    for i, face in enumerate(faces):
        matrix[CHEST_PUT_OFFSET + i, column[f"put_{face}"]] = 1.0
        matrix[CHEST_TAKE_OFFSET + i, column[f"take_{face}"]] = 1.0
    return ActionFeatures(matrix, tuple(names))


ACTION_FEATURES = _action_features()
