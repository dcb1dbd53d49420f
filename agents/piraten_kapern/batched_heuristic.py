"""The Piraten Kapern heuristic in batched form: one numba kernel chooses the moves of many rows.

`KapernHeuristicBatch` plays exactly `agents.piraten_kapern.heuristic.KapernHeuristic`
(read its docstring for the rules of thumb) on rows of observation vectors and action masks.
It reads only these, by piece name in the env's ``observation_layout`` (so ``table_layout``
``"seated"`` and ``"max"`` alike): ``card`` (the one-hot of the fortune card), ``dice`` and
``chest`` (free dice and dice on the Treasure Chest, per face / 8: the dice showing are their
sum), ``sorceress_available`` (the Sorceress is the card and her re-roll unused: exactly the
heuristic's ``option_open`` with the Sorceress), ``island`` and ``turn_points`` (/ 1000). That
is everything the one-game heuristic reads of its View, so no decision can differ.

Rules are not written twice: the points of the dice kept on the Treasure Chest and the re-roll action
table are the batched engine's tables (`pirate_envs.piraten_kapern.batched`, computed by
the reference helpers), and the stake threshold and the padding order are the heuristic's own
constants. The heuristic is deterministic, and remembers nothing of a game.

Checked by ``tests/agents/piraten_kapern/test_batched_heuristic.py``: AEC games with the one-game
heuristic at every seat, every player count, both table layouts, with and without the promo
cards, and turns from random Treasure Chest arrangements; at every decision the batched choice
(one row, and all positions as one batch) equals the one-game choice. Whole games played on the
batched engine are replayed in the AEC env, every move checked against the one-game heuristic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.once import once
from agents.piraten_kapern.heuristic import SMALL_STAKE, SPARE_ORDER
from pirate_envs.core.kernel_cache import cross_module_kernel
from pirate_envs.piraten_kapern.batched import (
    CHEST_PUT_OFFSET,
    CHEST_TAKE_OFFSET,
    MIN_REROLL,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_DICE,
    NUM_FACES,
    PEACE,
    REROLL_OFFSET,
    SABRE,
    SKULL,
    STOP,
    STORM,
    TREASURE_CHEST,
    _rule_tables,
)
from pirate_envs.piraten_kapern.rules import CARD_INDEX, CARDS, MIN_SET, MONKEY, PARROT, SEA_BATTLES

#: The observation pieces the kernel reads, in the order of its ``offsets`` argument.
READ_PIECES = ("card", "dice", "chest", "sorceress_available", "island", "turn_points")
_CARD, _DICE, _CHEST, _SORCERESS, _ISLAND, _TURN_POINTS = range(len(READ_PIECES))
MONKEY_BUSINESS = CARD_INDEX["monkey_business"]
#: Kernel answers for a row with no legal action and one that holds no position (the caller raises).
NO_LEGAL_ACTION, BAD_ROW = -2, -1


@once
def _tables() -> tuple[np.ndarray, ...]:
    """``vector_id``, ``chest_points``, ``card_skulls``, ``reroll_index`` (the batched engine's tables),
    ``sabres_needed[card]`` (0 off a Sea Battle) and the padding order."""
    vector_id, _, _, chest_points, _, card_skulls, _, reroll_index = _rule_tables()
    sabres_needed = np.array([SEA_BATTLES[card][0] if card in SEA_BATTLES else 0 for card in CARDS], dtype=np.int64)
    return vector_id, chest_points, card_skulls, reroll_index, sabres_needed, np.array(SPARE_ORDER, dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _count(value):
    """A dice count from its observation entry (count / 8)."""
    return int(np.floor(value * NUM_DICE + 0.5))


@njit(cache=True, nogil=True, inline="always")
def _junk(showing, card, sea_battle, reroll):
    """``reroll`` = the dice that score nothing where they stand (as ``kapern_heuristic.junk``)."""
    if card == STORM:
        reroll[MONKEY] = showing[MONKEY]
        reroll[PARROT] = showing[PARROT]
        reroll[SABRE] = showing[SABRE]
        return
    if card == MONKEY_BUSINESS:
        if showing[MONKEY] + showing[PARROT] < MIN_SET:
            reroll[MONKEY] = showing[MONKEY]
            reroll[PARROT] = showing[PARROT]
    else:
        for face in (MONKEY, PARROT):
            reroll[face] = showing[face] if showing[face] < MIN_SET else 0
    if card == PEACE or (not sea_battle and showing[SABRE] < MIN_SET):
        reroll[SABRE] = showing[SABRE]


@njit(cache=True, nogil=True, inline="always")
def _non_skull_dice(reroll):
    """How many non-skull dice ``reroll`` takes."""
    total = 0
    for face in range(SKULL):
        total += reroll[face]
    return total


@cross_module_kernel("pirate_envs", "agents")
def act_kernel(observations, masks, offsets, small_stake, vector_id, chest_points, card_skulls, reroll_index,
               sabres_needed, spare_order, actions):  # fmt: skip
    """``actions[j]``: the heuristic's move in row ``j`` (``NO_LEGAL_ACTION`` for an empty mask row, ``BAD_ROW``
    where the dice do not add up to eight)."""
    free = np.zeros(NUM_FACES, dtype=np.int64)
    chest = np.zeros(NUM_FACES, dtype=np.int64)
    showing = np.zeros(NUM_FACES, dtype=np.int64)
    reroll = np.zeros(NUM_FACES, dtype=np.int64)
    for j in range(observations.shape[0]):
        legal = False
        for action in range(masks.shape[1]):  # stops at once where stop is legal: every live position
            if masks[j, action]:
                legal = True
                break
        if not legal:
            actions[j] = NO_LEGAL_ACTION
            continue
        obs = observations[j]
        card = 0
        for c in range(1, NUM_CARDS):
            if obs[offsets[_CARD] + c] > obs[offsets[_CARD] + card]:
                card = c
        total = 0
        for face in range(NUM_FACES):
            free[face] = _count(obs[offsets[_DICE] + face])
            chest[face] = _count(obs[offsets[_CHEST] + face])
            showing[face] = free[face] + chest[face]
            total += showing[face]
            if free[face] < 0 or chest[face] < 0:
                total = -1
                break
        if total < MIN_REROLL or total > NUM_DICE:  # 2 to 8 dice: the option num_dice (8 by the rules)
            actions[j] = BAD_ROW
            continue
        island = obs[offsets[_ISLAND]] > 0.5
        reroll[:] = 0
        if island:  # re-roll every die that is not a skull
            for face in range(SKULL):
                reroll[face] = free[face]
        else:
            needed = sabres_needed[card]
            sea_battle = needed > 0
            chasing = showing[SABRE] < needed if sea_battle else card == PEACE and showing[SABRE] > 0
            _junk(showing, card, sea_battle, reroll)
            if chasing and sea_battle:  # every die but the sabres
                for face in range(SKULL):
                    reroll[face] = showing[face] if face != SABRE else 0
            sorceress = obs[offsets[_SORCERESS]] > 0.5 and showing[SKULL] > 0
            bank = False
            if not chasing and showing[SKULL] + card_skulls[card] >= 2:
                at_stake = int(np.floor(obs[offsets[_TURN_POINTS]] * 1000.0 + 0.5))
                if card == TREASURE_CHEST:  # the dice kept go on the chest: only the rest is at stake
                    at_stake -= chest_points[vector_id[showing[0] - reroll[0], showing[1] - reroll[1],
                                                       showing[2] - reroll[2], showing[3] - reroll[3],
                                                       showing[4] - reroll[4], 0]]  # fmt: skip
                bank = at_stake > small_stake
            if bank:
                reroll[:] = 0
                if not sorceress:
                    actions[j] = STOP
                    continue
                reroll[SKULL] = 1  # a lone skull re-roll risks nothing
            else:
                if sorceress:
                    reroll[SKULL] = 1
                if chasing:  # pad with the least valuable dice up to a legal re-roll
                    for face in spare_order:
                        while (not sea_battle or face != SABRE) and _non_skull_dice(reroll) < MIN_REROLL \
                                and reroll[face] < showing[face]:  # fmt: skip
                            reroll[face] += 1
        if _non_skull_dice(reroll) < MIN_REROLL and reroll[SKULL] == 0:
            actions[j] = STOP
            continue
        action = -1
        if card == TREASURE_CHEST and not island:  # every kept die on the chest first, one move at a time
            for face in range(SKULL):
                if action < 0 and chest[face] > showing[face] - reroll[face]:
                    action = CHEST_TAKE_OFFSET + face
            for face in range(SKULL):
                if action < 0 and chest[face] < showing[face] - reroll[face]:
                    action = CHEST_PUT_OFFSET + face
        if action < 0:
            action = REROLL_OFFSET + reroll_index[reroll[0], reroll[1], reroll[2], reroll[3], reroll[4], reroll[5]]
        actions[j] = action if masks[j, action] else STOP


class KapernHeuristicBatch:
    """`agents.piraten_kapern.heuristic.KapernHeuristic` on many rows at once (see the module docstring).

    ``env``: the raw AEC env of the table (its ``observation_layout`` places the pieces read);
    ``num_games`` and ``seed`` are the protocol's: the heuristic is deterministic and remembers nothing.
    """

    name = "heuristic"

    def __init__(self, env: Any, num_games: int, seed: int | None = None, small_stake: int = SMALL_STAKE):
        layout = env.observation_layout
        self.size = layout.size
        self.offsets = np.array([layout.piece(name).start for name in READ_PIECES], dtype=np.int64)
        self.num_games = num_games
        self.small_stake = small_stake
        self.tables = _tables()

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The heuristic's move in every row (``ValueError`` for a row with no legal action or no position)."""
        observations = np.asarray(observations)
        masks = np.asarray(action_masks)
        masks = masks.view(np.int8) if masks.dtype == np.bool_ else masks.astype(np.int8, copy=False)
        rows = len(observations)
        if (observations.shape, masks.shape) != ((rows, self.size), (rows, NUM_ACTIONS)):
            raise ValueError(
                f"observations of shape {observations.shape} and action_masks of shape {masks.shape}: "
                f"expected (M, {self.size}) observations of this table and (M, {NUM_ACTIONS}) action masks"
            )
        actions = np.empty(len(observations), dtype=np.int64)
        act_kernel(observations, masks, self.offsets, self.small_stake, *self.tables, actions)
        empty = np.flatnonzero(actions == NO_LEGAL_ACTION)
        if empty.size:
            raise ValueError(f"row {int(empty[0])} of action_masks has no legal action: is it this agent's turn?")
        bad = np.flatnonzero(actions == BAD_ROW)
        if bad.size:
            raise ValueError(
                f"row {int(bad[0])} of observations holds no Piraten Kapern position: its free and chest dice "
                f"must add up to {MIN_REROLL} to {NUM_DICE}"
            )
        return actions


__all__ = ["KapernHeuristicBatch", "act_kernel"]
