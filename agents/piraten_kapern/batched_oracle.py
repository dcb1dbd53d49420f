"""The Piraten Kapern turn oracle in batched form: one table lookup per row, many rows at once.

`KapernOracleBatch` plays exactly `agents.piraten_kapern.oracle.KapernOracleAgent` on rows of
observation vectors and action masks. The oracle's solved turns are turned once into a table
``best[card, option_open, dice]`` (the batched engine's rows of count vectors), so a decision is
a few array lookups instead of a reference engine kept in step per game (the one-game path of
`agents.batched.one_game`, which made the oracle the slowest opponent of a training pool).

It reads only these pieces, by name in the env's ``observation_layout`` (``table_layout``
``"seated"`` and ``"max"`` alike): ``card`` (one-hot), ``dice`` and ``chest`` (per face / 8;
the dice showing are their sum), ``sorceress_available`` and ``rolls`` (/ 10; the card's
one-off option: the Sorceress's unused re-roll, After the Storm before its second roll) and
``island``. That is everything the one-game oracle reads of its View, so no decision can
differ. Chest moves come first with the Treasure Chest, one per step, as `reroll_step` plays
them. Deterministic; it remembers nothing of a game.

Checked by ``tests/agents/piraten_kapern/test_batched_oracle.py``: at every decision of AEC games with
the one-game oracle at every seat (every player count, both layouts, with the promo cards),
the batched choice equals the one-game choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.once import once
from agents.piraten_kapern.oracle import solve_turn
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, CHEST_TAKE_OFFSET, REROLL_OFFSET, REROLL_VECTORS, STOP
from pirate_envs.piraten_kapern.batched import NUM_ACTIONS, _rule_tables
from pirate_envs.piraten_kapern.dice import count_vectors
from pirate_envs.piraten_kapern.observation import ROLLS_SCALE
from pirate_envs.piraten_kapern.rules import CARD_INDEX, CARDS, NON_SKULL_FACES, NUM_DICE, NUM_FACES

#: The observation pieces read.
READ_PIECES = ("card", "dice", "chest", "sorceress_available", "rolls", "island")
SORCERESS, STORM, TREASURE_CHEST = CARD_INDEX["sorceress"], CARD_INDEX["storm"], CARD_INDEX["treasure_chest"]


@once
def oracle_table() -> tuple[np.ndarray, np.ndarray]:
    """``vector_id`` (the batched engine's rows of count vectors) and ``best[card, option_open, row]``:
    the oracle's action (``STOP`` or a re-roll action) for the eight dice of ``row`` (``STOP`` elsewhere)."""
    vector_id = _rule_tables()[0].astype(np.int64)
    best = np.full((len(CARDS), 2, int(vector_id.max()) + 1), STOP, dtype=np.int64)
    for c, card in enumerate(CARDS):
        solution = solve_turn(card)
        for option_open in (False, True):  # a card without a one-off option has it closed
            solved = option_open if option_open in solution.policy else False
            for counts in count_vectors(NUM_DICE):
                best[c, int(option_open), vector_id[counts]] = solution.best_action(counts, solved)
    return vector_id, best


def _first(condition: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a boolean ``(M, F)`` array: whether any entry holds, and the first column that does."""
    return condition.any(axis=1), condition.argmax(axis=1)


class KapernOracleBatch:
    """`agents.piraten_kapern.oracle.KapernOracleAgent` on many rows at once (see the module docstring).

    ``env``: the raw AEC env of the table (its ``observation_layout`` places the pieces read);
    ``num_games`` and ``seed`` are the protocol's: the oracle is deterministic and remembers nothing.
    """

    name = "oracle"

    def __init__(self, env: Any, num_games: int, seed: int | None = None):
        layout = env.observation_layout
        self.size = layout.size
        self.pieces = {name: layout[name] for name in READ_PIECES}
        self.num_games = num_games
        self.vector_id, self.best = oracle_table()
        self.reroll_vectors = np.array(REROLL_VECTORS, dtype=np.int64)
        self.faces = np.array(NON_SKULL_FACES, dtype=np.int64)

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The oracle's move in every row (``ValueError`` for a row with no legal action, no eight dice, or a
        re-roll that the table's roll limit forbids)."""
        observations = np.asarray(observations)
        masks = np.asarray(action_masks)
        rows = len(observations)
        if (observations.shape, masks.shape) != ((rows, self.size), (rows, NUM_ACTIONS)):
            raise ValueError(
                f"observations of shape {observations.shape} and action_masks of shape {masks.shape}: "
                f"expected (M, {self.size}) observations of this table and (M, {NUM_ACTIONS}) action masks"
            )
        legal_rows = masks.any(axis=1)
        if not legal_rows.all():
            row = int(np.flatnonzero(~legal_rows)[0])
            raise ValueError(f"row {row} of action_masks has no legal action: is it this agent's turn?")
        piece = self.pieces
        card = observations[:, piece["card"]].argmax(axis=1)
        free = np.rint(observations[:, piece["dice"]] * NUM_DICE).astype(np.int64)
        chest = np.rint(observations[:, piece["chest"]] * NUM_DICE).astype(np.int64)
        showing = free + chest
        wrong = showing.sum(axis=1) != NUM_DICE
        if wrong.any():
            raise ValueError(
                f"row {int(np.flatnonzero(wrong)[0])} of observations: the oracle solves the 8-dice game "
                f"(its free and chest dice must add up to {NUM_DICE}: num_dice)"
            )
        rolls = np.rint(observations[:, piece["rolls"]][:, 0] * ROLLS_SCALE)
        option_open = np.where(
            card == SORCERESS, observations[:, piece["sorceress_available"]][:, 0] > 0.5, (card == STORM) & (rolls < 2)
        )
        island = observations[:, piece["island"]][:, 0] > 0.5
        dice_row = self.vector_id[tuple(showing[:, face] for face in range(NUM_FACES))]
        actions = self.best[card, option_open.astype(np.int64), dice_row]
        actions[island] = STOP  # the Island of Skulls is worth 0 to the player whatever he does: stop at once
        chest_turn = (card == TREASURE_CHEST) & ~island & (actions != STOP)
        if chest_turn.any():  # every kept die on the chest first: one move at a time, takes before puts
            j = np.flatnonzero(chest_turn)
            keep = showing[j] - self.reroll_vectors[actions[j] - REROLL_OFFSET]
            on_chest = chest[j][:, self.faces]
            kept = keep[:, self.faces]
            take, take_face = _first(on_chest > kept)
            put, put_face = _first(on_chest < kept)
            moves = np.where(
                take, CHEST_TAKE_OFFSET + take_face, np.where(put, CHEST_PUT_OFFSET + put_face, actions[j])
            )
            actions[j] = moves
        illegal = ~masks[np.arange(rows), actions].astype(bool)
        if illegal.any():
            row = int(np.flatnonzero(illegal)[0])
            raise ValueError(
                f"row {row}: the oracle plays re-rolls without limit; this table caps a turn's rolls (max_rolls)"
            )
        return actions


__all__ = ["KapernOracleBatch", "oracle_table"]
